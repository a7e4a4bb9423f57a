package natspending

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// The server allows the bucket two consumers; a hundred approvals wait on
// one replica while the other lists and decides them. Each is decided as
// the page said.
func TestManyMoreWaitingApprovalsThanTheServerHasConsumersAreAllDecided(t *testing.T) {
	const consumers, n = 2, 100
	url := natstest.Start(t).URL()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// The bucket's stream, made as the store makes it but with a
	// consumer limit.
	if _, err := natstest.Client(t, url).CreateStream(ctx, jetstream.StreamConfig{
		Name: "KV_" + DefaultBucket, Subjects: []string{"$KV." + DefaultBucket + ".>"}, MaxMsgsPerSubject: 1,
		AllowRollup: true, DenyDelete: true, AllowDirect: true, Discard: jetstream.DiscardNew, MaxAge: DefaultMaxAge,
		Storage: jetstream.FileStorage, MaxConsumers: consumers,
	}); err != nil {
		t.Fatal(err)
	}
	asking, showing := open(t, Config{NATS: natsconn.Config{URL: url}}), open(t, Config{NATS: natsconn.Config{URL: url}})
	joined := make(chan struct{}, n)
	asking.hub.joined = func() { joined <- struct{}{} }
	want := map[string]browser.Outcome{}
	type waited struct {
		id  string
		o   browser.Outcome
		err error
	}
	out := make(chan waited, n)
	for i := range n {
		p := approval(fmt.Sprintf("a%03d", i))
		want[p.ID] = []browser.Outcome{browser.Approved, browser.Denied}[i%2]
		if err := asking.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		go func() {
			o, err := asking.Wait(ctx, p.ID)
			out <- waited{p.ID, o, err}
		}()
	}
	for range n {
		select {
		case <-joined:
		case w := <-out:
			t.Fatalf("Wait %s ended before any decision: %q, %v", w.id, w.o, w.err)
		}
	}
	list, err := showing.List(ctx)
	if err != nil || len(list) != n {
		t.Fatalf("the page lists %d approvals (%v), want %d", len(list), err, n)
	}
	for _, p := range list {
		if ok, err := showing.Decide(ctx, p.ID, want[p.ID]); !ok || err != nil {
			t.Fatalf("deciding %s: %v, %v", p.ID, ok, err)
		}
	}
	for range n {
		w := <-out
		if w.err != nil || w.o != want[w.id] {
			t.Errorf("Wait %s = %q, %v; want %q", w.id, w.o, w.err, want[w.id])
		}
	}
}
