package chromium

import (
	"context"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Sending starts watching the requests of the tab of ctx and returns a
// function that waits until the tab has sent a request for method and url
// (a click, a form or a script may make it): the browser has announced it
// and handed its headers to the network stack. That the server has read it
// is not observable from the browser; on loopback it follows at once.
func Sending(t testing.TB, ctx context.Context, method, url string) (wait func()) {
	t.Helper()
	lctx, stop := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		matched = map[network.RequestID]bool{} // announced, for method and url
		onWire  = map[network.RequestID]bool{} // headers handed on
		sent    = make(chan struct{})
		once    sync.Once
	)
	// Listen, not Events: the two kinds of event arrive in either order.
	err := chromedp.Listen(lctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		var id network.RequestID
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Request == nil || e.Request.Method != method || e.Request.URL != url {
				return
			}
			id, matched[e.RequestID] = e.RequestID, true
		case *network.EventRequestWillBeSentExtraInfo:
			id, onWire[e.RequestID] = e.RequestID, true
		default:
			return
		}
		if matched[id] && onWire[id] {
			once.Do(func() { close(sent) })
		}
	})
	if err != nil {
		stop()
		t.Fatalf("watching the requests of the tab: %v", err)
	}
	return func() {
		t.Helper()
		defer stop()
		dctx, cancel := Deadline(t, ctx)
		defer cancel()
		select {
		case <-sent:
		case <-dctx.Done():
			t.Fatalf("the tab never sent %s %s", method, url)
		}
	}
}
