package testsupport

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// LogBuffer collects what a logger or a process writes, JSON log lines
// above all, for a test to read while writing goes on. The zero value is
// ready; it is safe for concurrent use and must not be copied after use.
type LogBuffer struct {
	mu   sync.Mutex
	cond *sync.Cond // wakes WaitRecords on every write; made on first use
	buf  bytes.Buffer
}

// wake returns the condition waiters wait on; the caller holds b.mu.
func (b *LogBuffer) wake() *sync.Cond {
	if b.cond == nil {
		b.cond = sync.NewCond(&b.mu)
	}
	return b.cond
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.wake().Broadcast()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Bytes returns a copy of everything written so far.
func (b *LogBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// Records returns, in order, the complete JSON lines written so far whose
// "msg" is msg, or all of them when msg is empty.
func (b *LogBuffer) Records(msg string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.parse(msg)
}

// parse reads the buffer; the caller holds b.mu.
func (b *LogBuffer) parse(msg string) []map[string]any {
	var out []map[string]any
	for line := range strings.Lines(b.buf.String()) {
		if !strings.HasSuffix(line, "\n") {
			break
		}
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && (msg == "" || rec["msg"] == msg) {
			out = append(out, rec)
		}
	}
	return out
}

// WaitRecords waits until find returns a record from all those written so
// far, and returns it; after patience it fails the test, showing the buffer.
// The check and the wait happen under one lock, so no write is missed, and
// patience only turns a hang into a failure.
func (b *LogBuffer) WaitRecords(t testing.TB, what string, patience time.Duration, find func([]map[string]any) map[string]any) map[string]any {
	t.Helper()
	expired := false
	stop := time.AfterFunc(patience, func() {
		b.mu.Lock()
		expired = true
		b.wake().Broadcast()
		b.mu.Unlock()
	})
	defer stop.Stop()
	b.mu.Lock()
	for {
		if rec := find(b.parse("")); rec != nil {
			b.mu.Unlock()
			return rec
		}
		if expired {
			out := b.buf.String()
			b.mu.Unlock()
			t.Fatalf("no log record %s within %s; log:\n%s", what, patience, out)
		}
		b.wake().Wait()
	}
}
