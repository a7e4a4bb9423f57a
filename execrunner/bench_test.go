package execrunner

import (
	"bytes"
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
// process that prints nothing. Two baselines run the same binary:
//
//   - bare: exec.Command(path).Run(), which captures nothing (os/exec gives
//     the child the null device for stdout and stderr). This is the
//     baseline the overhead aim is stated against.
//   - bare-captured: the same with cmd.Stdout = cmd.Stderr = a bytes.Buffer,
//     the least os/exec needs to capture output (a pipe and a copying
//     goroutine).
//
// Run differs from them by its capture, process group, PWD and group kill.
// The execrunner sub-benchmark reports its time per run divided by the bare
// one's (over all bare runs so far) as "x-bare". On a shared machine
// separate sub-benchmarks can see different load, so the paired
// sub-benchmarks alternate a baseline run and a Run, and report the ratio
// from those pairs (their ns/op is one baseline run plus one Run).
// paired-start does what the server does instead of Run: Start and Wait,
// under a cancellable context and with a timeout.
func BenchmarkRunTrivial(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true binary")
	}
	benchmarkRun(b, path)
}

// BenchmarkRunSmallOutput is BenchmarkRunTrivial for a command that prints
// one short line, so the capture actually holds something.
func BenchmarkRunSmallOutput(b *testing.B) {
	path, err := exec.LookPath("echo")
	if err != nil {
		b.Skip("no echo binary")
	}
	benchmarkRun(b, path, "a short line of output")
}

func benchmarkRun(b *testing.B, path string, args ...string) {
	ctx := context.Background()
	// The server builds the scrubbed environment once, not per call.
	env := Environ(os.Environ(), nil)
	bareRun := func(b *testing.B) {
		if err := exec.Command(path, args...).Run(); err != nil {
			b.Fatal(err)
		}
	}
	capturedRun := func(b *testing.B) {
		var out bytes.Buffer
		cmd := exec.Command(path, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	ourRun := func(b *testing.B) {
		if _, err := Run(ctx, Command{Path: path, Args: args, Env: env}); err != nil {
			b.Fatal(err)
		}
	}
	serverCtx, cancel := context.WithCancel(ctx)
	b.Cleanup(cancel)
	startWait := func(b *testing.B) {
		p, err := Start(serverCtx, Command{Path: path, Args: args, Env: env, Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	var bareTime time.Duration
	var bareRuns int
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bareRun(b)
		}
		bareTime += b.Elapsed()
		bareRuns += b.N
	})
	b.Run("bare-captured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			capturedRun(b)
		}
	})
	b.Run("execrunner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ourRun(b)
		}
		if bareRuns > 0 {
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/(float64(bareTime)/float64(bareRuns)), "x-bare")
		}
	})
	paired := func(name, unit string, baseline, ourRun func(*testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var base, ours time.Duration
			for b.Loop() {
				start := time.Now()
				baseline(b)
				mid := time.Now()
				ourRun(b)
				base, ours = base+mid.Sub(start), ours+time.Since(mid)
			}
			b.ReportMetric(float64(ours)/float64(base), unit)
		})
	}
	paired("paired", "x-bare", bareRun, ourRun)
	paired("paired-captured", "x-bare-captured", capturedRun, ourRun)
	paired("paired-start", "x-bare", bareRun, startWait)
}
