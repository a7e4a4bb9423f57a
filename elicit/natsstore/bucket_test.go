package natsstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// replayBucket creates the bucket Open would, then lets edit change its
// stream's configuration, as an operator with NATS admin rights can.
func replayBucket(t *testing.T, js jetstream.JetStream, name string, edit func(*jetstream.StreamConfig)) {
	t.Helper()
	if _, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: name, History: 1, Storage: jetstream.FileStorage, LimitMarkerTTL: DefaultSkew}); err != nil {
		t.Fatal(err)
	}
	editStream(t, js, name, edit)
}

func editStream(t *testing.T, js jetstream.JetStream, name string, edit func(*jetstream.StreamConfig)) {
	t.Helper()
	stream, err := js.Stream(t.Context(), "KV_"+name)
	if err != nil {
		t.Fatal(err)
	}
	c := stream.CachedInfo().Config
	edit(&c)
	if _, err := js.UpdateStream(t.Context(), c); err != nil {
		t.Fatal(err)
	}
}

// A bucket that could forget a used state before it expires is refused
// at start, naming what is wrong.
func TestABucketThatCouldForgetAUsedStateIsRefusedAtOpen(t *testing.T) {
	url := startServer(t)
	js := natstest.Client(t, url)
	for _, tc := range []struct {
		name, want string
		create     func(name string)
	}{
		{"short_age", "forgets every record after 3s", func(name string) {
			replayBucket(t, js, name, func(c *jetstream.StreamConfig) { c.MaxAge, c.Duplicates = 3*time.Second, time.Second })
		}},
		{"discard_old", "discards the oldest", func(name string) {
			replayBucket(t, js, name, func(c *jetstream.StreamConfig) { c.MaxMsgs, c.Discard = 10, jetstream.DiscardOld })
		}},
		{"in_memory", "kept in memory", func(name string) {
			if _, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: name, Storage: jetstream.MemoryStorage, LimitMarkerTTL: DefaultSkew}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		tc.create(tc.name)
		_, err := Open(t.Context(), Config{Config: natsconn.Config{URL: url}, Bucket: tc.name})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--replay-store-bucket") {
			t.Errorf("%s: Open gave %v, want a refusal saying it %s and what to do", tc.name, err, tc.want)
		}
	}
}

// A live bucket edited to forget records early refuses every use from
// then on: a replica does not go on trusting what it checked at start.
func TestABucketEditedWhileTheStoreRunsRefusesUses(t *testing.T) {
	url := startServer(t)
	s := open(t, Config{Config: natsconn.Config{URL: url, Recheck: time.Nanosecond}})
	if fresh, err := s.Use(t.Context(), used(strings.Repeat("a1", 16))); !fresh || err != nil {
		t.Fatalf("a use before the edit: %v %v", fresh, err)
	}
	editStream(t, natstest.Client(t, url), DefaultBucket, func(c *jetstream.StreamConfig) { c.MaxAge, c.Duplicates = 3*time.Second, time.Second })
	fresh, err := s.Use(t.Context(), used(strings.Repeat("a2", 16)))
	if fresh || err == nil || !strings.Contains(err.Error(), "forgets every record after 3s") {
		t.Fatalf("a use after the bucket was edited to a 3 s age: %v %v, want a refusal naming the age", fresh, err)
	}
}

// A bucket deleted under a running store is created again at the next
// use; a state issued before that cannot be checked (its record went with
// the old bucket) and is asked again, never run; a state issued after is
// recorded as ever.
func TestADeletedBucketIsCreatedAgainAndEarlierStatesAreAskedAgain(t *testing.T) {
	url := startServer(t)
	s := open(t, Config{Config: natsconn.Config{URL: url}})
	before := used(strings.Repeat("b1", 16))
	if fresh, err := s.Use(t.Context(), before); !fresh || err != nil {
		t.Fatalf("first use: %v %v", fresh, err)
	}
	js := natstest.Client(t, url)
	if err := js.DeleteKeyValue(t.Context(), DefaultBucket); err != nil {
		t.Fatal(err)
	}
	if fresh, err := s.Use(t.Context(), before); fresh || !errors.Is(err, elicit.ErrIssuedBeforeStart) {
		t.Fatalf("the same state after the bucket was deleted: %v %v, want it asked again (ErrIssuedBeforeStart)", fresh, err)
	}
	after := used(strings.Repeat("b2", 16))
	if fresh, err := s.Use(t.Context(), after); !fresh || err != nil {
		t.Fatalf("a state issued after the bucket came back: %v %v", fresh, err)
	}
	if fresh, err := s.Use(t.Context(), after); fresh || err != nil {
		t.Fatalf("that state again: %v %v, want not fresh", fresh, err)
	}
	if _, err := js.KeyValue(t.Context(), DefaultBucket); err != nil {
		t.Errorf("the bucket was not created again: %v", err)
	}
}
