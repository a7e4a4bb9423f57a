package introspect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// expiringDeadline is a caller's deadline that passes when the test says
// so rather than at a time: Load sees a deadline (and adds none of its
// own), and once expired, the error of one.
type expiringDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiringDeadline() *expiringDeadline {
	return &expiringDeadline{Context: context.Background(), done: make(chan struct{})}
}

func (d *expiringDeadline) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (d *expiringDeadline) Done() <-chan struct{}       { return d.done }
func (d *expiringDeadline) expire()                     { d.once.Do(func() { close(d.done) }) }

func (d *expiringDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A binary whose --fisk-introspect never answers, ignores SIGTERM and
// starts a grandchild that would outlive it: whether the caller cancels or
// its deadline passes, Load returns the matching error and nothing of the
// binary's group is left running. The test gives up only once the
// grandchild's pid has arrived through a FIFO, so nothing is timed.
func TestLoadGivingUpKillsAGroupThatIgnoresSIGTERM(t *testing.T) {
	requireProc(t)
	bin, err := filepath.Abs(filepath.Join("testdata", "abandon-and-hang"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// giveUp returns the context for Load and the function that ends it.
		giveUp func() (context.Context, func())
		want   error
	}{
		{"cancel", func() (context.Context, func()) { return context.WithCancel(context.Background()) }, context.Canceled},
		{"deadline", func() (context.Context, func()) { d := newExpiringDeadline(); return d, d.expire }, ErrTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pid")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, giveUp := tc.giveUp()
			defer giveUp()
			pids := readPidOnce(t, fifo, giveUp)

			errs := make(chan error, 1)
			go func() {
				_, err := Load(ctx, bin, Options{Env: append(os.Environ(), "PID_FIFO="+fifo), Timeout: time.Hour})
				errs <- err
			}()
			var loadErr error
			select {
			case loadErr = <-errs:
			case <-time.After(30 * time.Second):
				t.Fatal("Load still runs 30s after giving up: the group was not killed")
			}
			pid, ok := <-pids
			if !ok {
				t.Fatalf("the binary never reported its grandchild (Load: %v)", loadErr)
			}
			cleanupGrandchild(t, pid)
			var e *Error
			if !errors.As(loadErr, &e) || !errors.Is(loadErr, tc.want) {
				t.Fatalf("Load err = %v (%T), want *Error matching %v", loadErr, loadErr, tc.want)
			}
			if !strings.Contains(loadErr.Error(), strconv.Quote(bin)) {
				t.Errorf("error %q does not name the binary", loadErr)
			}
			awaitGrandchildGone(t, pid)
		})
	}
}

// readPidOnce reads one pid from fifo on a goroutine, then calls then. The
// channel yields the pid, or is closed without one. If nothing was written
// by the end of the test, the FIFO is opened for writing once, so the read
// ends instead of blocking for good.
func readPidOnce(t *testing.T, fifo string, then func()) <-chan int {
	pids := make(chan int, 1)
	go func() {
		defer close(pids)
		defer then()
		raw, err := os.ReadFile(fifo)
		if pid, convErr := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && convErr == nil && pid > 0 {
			pids <- pid
		}
	}()
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})
	return pids
}
