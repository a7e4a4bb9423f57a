package server

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// pidFIFO creates a named pipe for the fixture's spawn --pid-file and reads
// it in the background. spawn's write blocks until the pipe is read, so the
// returned channel delivers the pids exactly when spawn has started its
// grandchild: no polling of a file that may not be written yet.
func pidFIFO(t *testing.T) (path string, pids <-chan string) {
	t.Helper()
	path = tempPath(t, "pids")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	ch := make(chan string, 1)
	go func() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("reading the pid pipe: %v", err)
		}
		ch <- string(data)
	}()
	t.Cleanup(func() {
		// Unblock the reader if spawn never opened the pipe.
		if fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			unix.Close(fd)
		}
	})
	return path, ch
}

func itoa(n int) string { return strconv.Itoa(n) }
