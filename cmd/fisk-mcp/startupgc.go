package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// Start-up is a burst of short-lived garbage (every app's decoded document,
// the schemas built from it, the descriptors and their encoding, the first
// list's encoding) over a live heap of a few MiB. Collecting it costs a
// client its wait: one cycle, begun about 15 MiB in, takes one of two CPUs
// for its marking and slows every allocation, some 6 ms of nats's 75 ms
// start → first tools/list. So nothing is collected until the start-up is
// over, unless the heap reaches startupMemoryLimit first (a soft limit:
// past it the runtime collects as usual). The Go compiler does the same
// for its own short runs.
//
// The start-up is over a little after the first list is written
// (startupSettle), not at once: the client is still reading the list, on
// the same CPUs, and a cycle forced then slowed it (measured with the Go
// SDK's client, 230 tools: 86 ms to the list instead of 78); a cycle left
// to the next allocation fell on the client's next request (a second
// tools/list took 9.8 ms instead of 4.2). A client that has not listed the
// tools within startupGCWindow ends the start-up then.
const (
	startupMemoryLimit = 128 << 20
	startupSettle      = time.Second
	startupGCWindow    = 5 * time.Second
)

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
