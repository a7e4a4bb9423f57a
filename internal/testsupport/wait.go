package testsupport

import (
	"testing"
	"time"
)

// Await receives from ch, or fails the test after patience. patience only
// turns a hang into a failure; it is never how a test synchronises.
func Await[T any](t testing.TB, ch <-chan T, patience time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(patience):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
