package server

import (
	"sync/atomic"
	"testing"
)

func TestConcurrentlyCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 230} {
		calls := make([]atomic.Int32, n)
		concurrently(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: f(%d) called %d times, want once", n, i, c)
			}
		}
	}
}

func TestConcurrentlyRaisesAPanicInTheCaller(t *testing.T) {
	defer func() {
		if p := recover(); p != "bad descriptor" {
			t.Errorf("recovered %v, want the panic of f", p)
		}
	}()
	concurrently(100, func(i int) {
		if i == 42 {
			panic("bad descriptor")
		}
	})
	t.Error("concurrently returned after f panicked")
}
