package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// gcSettings reads GOGC and the memory limit without changing them.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// The start-up collects nothing until the heap reaches its soft limit, and
// restoring puts back exactly what was in force, once, however often it is
// called; an operator's GOGC or GOMEMLIMIT leaves collection alone.
func TestStartupGCIsOffUntilRestoredAndLeavesOperatorSettings(t *testing.T) {
	wantPercent, wantLimit := gcSettings()
	if wantLimit != math.MaxInt64 || wantPercent < 0 {
		t.Skipf("the test process already runs with GOGC %d and a memory limit of %d", wantPercent, wantLimit)
	}
	noEnv := func(string) string { return "" }

	restore := startupGC(noEnv)
	if p, l := gcSettings(); p != -1 || l != startupMemoryLimit {
		t.Errorf("during start-up GOGC is %d and the limit %d, want off (-1) and %d", p, l, startupMemoryLimit)
	}
	restore()
	// A later change is the operator's or the runtime's own: a second
	// call must not undo it.
	debug.SetGCPercent(wantPercent + 1)
	restore()
	if p, l := gcSettings(); p != wantPercent+1 || l != wantLimit {
		t.Errorf("after restoring twice GOGC is %d and the limit %d, want %d (set after the first) and %d", p, l, wantPercent+1, wantLimit)
	}
	debug.SetGCPercent(wantPercent)

	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		restore := startupGC(func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		})
		if p, l := gcSettings(); p != wantPercent || l != wantLimit {
			t.Errorf("with %s set, start-up changed GOGC to %d and the limit to %d", name, p, l)
		}
		restore()
	}
}
