package main

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Start-up is a burst of short-lived garbage (every app's decoded document,
// the schemas built from it, the descriptors and their encoding, the first
// list's encoding) over a live heap of a few MiB. Collecting it costs a
// client its wait: a cycle takes one of the CPUs the client and the
// introspected binary need, and slows every allocation. So nothing is
// collected until the server's start-up is over (server.Server.StartupOver:
// a little after the first list over stdio, not at once, as the client is
// still reading it), unless the heap reaches startupMemoryLimit first (a
// soft limit: past it the runtime collects as usual). The Go compiler does
// the same for its own short runs. BenchmarkStartup in integration/nats
// measures the start-up with it; GOGC=100 in the benchmark's environment
// measures it without.
const startupMemoryLimit = 128 << 20

// startupGC turns collection off for the start-up (see above) and returns
// what turns it back on, as it was, and collects the start-up's garbage
// at once, before it returns. The returned function may be called any
// number of times, from any goroutine. An operator who set GOGC or
// GOMEMLIMIT chose how this process collects, and is left alone: getenv
// reads the environment.
func startupGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(-1) // reads it
	percent := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(limit, startupMemoryLimit))
	return sync.OnceFunc(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
		runtime.GC()
	})
}
