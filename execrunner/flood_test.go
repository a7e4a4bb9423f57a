package execrunner

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// A gigabyte goes through Run in a separate process, so that process's peak
// RSS (VmHWM) measures the runner alone, not the rest of the test binary.
func TestFloodOf1GiBKeepsHeadAndTailWithFlatMemory(t *testing.T) {
	const size = 1 << 30
	rep := runInRunner(t, runnerSpec{Mode: "flood", Args: []string{fmt.Sprint(size)}, Timeout: 5 * time.Minute})
	if rep.Err != "" {
		t.Fatalf("run failed: %s", rep.Err)
	}
	res := rep.Result
	head, tail := int64(DefaultCaptureLimit-DefaultCaptureLimit/2), int64(DefaultCaptureLimit/2)

	t.Run("head and tail are exact", func(t *testing.T) {
		want := string(floodBytes(0, head)) + dropMarker(size-head-tail) + string(floodBytes(size-tail, size))
		if res.Output != want {
			t.Fatalf("output differs (len %d, want %d); starts %q, ends %q",
				len(res.Output), len(want), res.Output[:40], res.Output[len(res.Output)-40:])
		}
	})
	t.Run("dropped count and totals", func(t *testing.T) {
		if !res.Truncated || res.BytesTotal != size || res.ExitCode != 0 {
			t.Fatalf("Truncated=%v BytesTotal=%d ExitCode=%d", res.Truncated, res.BytesTotal, res.ExitCode)
		}
		if !bytes.Contains([]byte(res.Output), []byte(fmt.Sprintf("[... %d bytes dropped ...]", size-head-tail))) {
			t.Fatal("marker missing")
		}
	})
	t.Run("peak RSS grows less than 16 MiB", func(t *testing.T) {
		if rep.HWMBeforeKiB <= 0 {
			t.Skip("VmHWM unavailable")
		}
		growth := rep.HWMAfterKiB - rep.HWMBeforeKiB
		t.Logf("VmHWM %d KiB -> %d KiB (+%d KiB)", rep.HWMBeforeKiB, rep.HWMAfterKiB, growth)
		if growth >= 16<<10 {
			t.Fatalf("peak RSS grew by %d KiB", growth)
		}
	})
}
