package execrunner

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

func BenchmarkRingBufferWrite4K(b *testing.B) {
	chunk := make([]byte, 4<<10)
	for i := range chunk {
		chunk[i] = byte('a' + i%26)
	}
	ring := NewRingBuffer(DefaultCaptureLimit)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ring.Write(chunk)
	}
}

// BenchmarkRunTrivial measures what Run adds to starting and reaping a
// process: the same trivial binary through a bare exec.Command(...).Run()
// and through Run (whose capture pipe, process group, PWD and group kill
// are the difference). The execrunner sub-benchmark reports its time per run
// divided by the bare one's (over all bare runs so far) as "x-bare". On a
// shared machine the two can see different load, so the paired
// sub-benchmark alternates them run by run and reports the same ratio from
// those pairs (its ns/op is one bare run plus one Run).
func BenchmarkRunTrivial(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true binary")
	}
	ctx := context.Background()
	// The server builds the scrubbed environment once, not per call.
	env := Environ(os.Environ(), nil)
	bareRun := func(b *testing.B) {
		if err := exec.Command(path).Run(); err != nil {
			b.Fatal(err)
		}
	}
	ourRun := func(b *testing.B) {
		if _, err := Run(ctx, Command{Path: path, Env: env}); err != nil {
			b.Fatal(err)
		}
	}
	var bareTime time.Duration
	var bareRuns int
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			bareRun(b)
		}
		bareTime += b.Elapsed()
		bareRuns += b.N
	})
	b.Run("execrunner", func(b *testing.B) {
		for b.Loop() {
			ourRun(b)
		}
		if bareRuns > 0 {
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/(float64(bareTime)/float64(bareRuns)), "x-bare")
		}
	})
	b.Run("paired", func(b *testing.B) {
		var bare, ours time.Duration
		for b.Loop() {
			start := time.Now()
			bareRun(b)
			mid := time.Now()
			ourRun(b)
			bare, ours = bare+mid.Sub(start), ours+time.Since(mid)
		}
		b.ReportMetric(float64(ours)/float64(bare), "x-bare")
	})
}
