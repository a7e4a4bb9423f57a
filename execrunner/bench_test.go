package execrunner

import (
	"context"
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
// and through Run. The execrunner sub-benchmark reports its time per run
// divided by the bare one's as the "x-bare" metric.
func BenchmarkRunTrivial(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true binary")
	}
	var bare time.Duration
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(path).Run(); err != nil {
				b.Fatal(err)
			}
		}
		bare = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("execrunner", func(b *testing.B) {
		ctx := context.Background()
		c := Command{Path: path}
		for b.Loop() {
			if _, err := Run(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
		if bare > 0 {
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(bare), "x-bare")
		}
	})
}
