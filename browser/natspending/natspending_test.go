package natspending

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/browser/storetest"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// open opens a Store with its own connection, closed when t ends.
func open(t testing.TB, c Config) *Store {
	t.Helper()
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// opener opens, for each call, a Store with a connection of its own to
// url, on one bucket: the stores of replicas.
func opener(url string) func(t *testing.T) browser.Store {
	return func(t *testing.T) browser.Store { return open(t, Config{NATS: natsconn.Config{URL: url}}) }
}

func approval(id string) browser.Pending {
	now := time.Now()
	return browser.Pending{Request: browser.Request{ID: id, Server: "fisk-mcp", Tool: "app_rm",
		CommandLine: "app rm x", Trigger: "ai:confirm", Client: "client 1.0", Deadline: now.Add(time.Minute)}, Created: now}
}

// A bucket made before by a server that waited less, keeping its entries
// for less than this one's approvals wait, is refused with what to do; one
// that keeps them long enough is used.
func TestOpenRefusesABucketThatKeepsApprovalsTooBriefly(t *testing.T) {
	url := natstest.Start(t).URL()
	open(t, Config{NATS: natsconn.Config{URL: url}, MaxAge: 30 * time.Second})
	if s, err := Open(t.Context(), Config{NATS: natsconn.Config{URL: url}, LongestWait: time.Minute}); err == nil {
		s.Close()
		t.Fatal("a bucket keeping approvals 30s was accepted for waits of a minute")
	} else if !strings.Contains(err.Error(), "nats kv del "+DefaultBucket) || !strings.Contains(err.Error(), "--elicit-timeout") {
		t.Errorf("the refusal does not say what to do: %v", err)
	}
	open(t, Config{NATS: natsconn.Config{URL: url}, LongestWait: 20 * time.Second})
}

func TestTheStoreConforms(t *testing.T) {
	storetest.Run(t, opener(natstest.Start(t).URL()))
}

func TestStoresOnOneServerShareTheirApprovals(t *testing.T) {
	storetest.RunShared(t, opener(natstest.Start(t).URL()))
}

// Two replicas: the one whose call waits for the person, and the one
// whose page the person happens to load.
func TestAnApprovalWaitingOnOneReplicaIsDecidedOnTheOthersPage(t *testing.T) {
	url := natstest.Start(t).URL()
	asking, showing := open(t, Config{NATS: natsconn.Config{URL: url}}), open(t, Config{NATS: natsconn.Config{URL: url}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p := approval("Zm9vYmFyLWJhei1xdXV4LTAxMjM0NTY3")
	if err := asking.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	waited := make(chan browser.Outcome, 1)
	go func() {
		o, err := asking.Wait(ctx, p.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- o
	}()
	list, err := showing.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != p.ID || list[0].CommandLine != p.CommandLine {
		t.Fatalf("the other replica's page lists %+v, %v; want the waiting approval", list, err)
	}
	if ok, err := showing.Decide(ctx, list[0].ID, browser.Approved); !ok || err != nil {
		t.Fatalf("deciding on the other replica: %v, %v", ok, err)
	}
	if o := <-waited; o != browser.Approved {
		t.Fatalf("the waiting replica learnt %q, want approved", o)
	}
}

// A decision carries who took it to the replica whose call waits, and
// the caller's identity of a pending approval travels with it.
func TestWhoDecidedIsReadOnTheOtherReplica(t *testing.T) {
	url := natstest.Start(t).URL()
	asking, showing := open(t, Config{NATS: natsconn.Config{URL: url}}), open(t, Config{NATS: natsconn.Config{URL: url}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p := approval("d2hvLWRlY2lkZWQtaXQtMDEyMzQ1Njc4")
	p.CallerID = "https://auth.example.com/#alice"
	if err := asking.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	if by, err := asking.DecidedBy(ctx, p.ID); by != "" || err != nil {
		t.Fatalf("undecided, it was decided by %q, %v", by, err)
	}
	list, err := showing.List(ctx)
	if err != nil || len(list) != 1 || list[0].CallerID != p.CallerID {
		t.Fatalf("the other replica lists %+v, %v; want the caller's identity", list, err)
	}
	if ok, err := showing.DecideBy(ctx, p.ID, browser.Approved, "bob"); !ok || err != nil {
		t.Fatalf("deciding: %v, %v", ok, err)
	}
	if o, err := asking.Wait(ctx, p.ID); o != browser.Approved || err != nil {
		t.Fatalf("waited: %q, %v", o, err)
	}
	if by, err := asking.DecidedBy(ctx, p.ID); by != "bob" || err != nil {
		t.Errorf("decided by %q, %v; want bob", by, err)
	}
	if ok, _ := showing.DecideBy(ctx, p.ID, browser.Denied, "carol"); ok {
		t.Error("a second decision counted")
	}
	if by, _ := asking.DecidedBy(ctx, p.ID); by != "bob" {
		t.Errorf("after a second decision, decided by %q", by)
	}
}

// waiting puts p and waits on it in a goroutine; the context bounds the
// test, so that a Wait that hangs fails it.
func waiting(t *testing.T, s *Store, p browser.Pending) (context.Context, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	if err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx, p.ID)
		waited <- err
	}()
	return ctx, waited
}

func TestAServerThatGoesAwayFailsWaitAndDecideAsUnavailable(t *testing.T) {
	srv := natstest.Start(t)
	s := open(t, Config{NATS: natsconn.Config{URL: srv.URL(), OpTimeout: time.Second}})
	p := approval("0123456789abcdef0123456789abcdef")
	ctx, waited := waiting(t, s, p)
	srv.Stop()
	unavailable := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, natsconn.ErrUnavailable) || !strings.Contains(err.Error(), "the approval store at "+srv.URL()) || ctx.Err() != nil {
			t.Errorf("%s without the server: %v; want natsconn.ErrUnavailable naming the approval store", what, err)
		}
	}
	unavailable("Wait", <-waited)
	_, err := s.Decide(ctx, p.ID, browser.Approved)
	unavailable("Decide", err)
	_, err = s.List(ctx)
	unavailable("List", err)
	_, err = s.Wait(ctx, p.ID)
	unavailable("Wait begun after the loss", err)
}

func TestCloseEndsAWaitInProgress(t *testing.T) {
	s := open(t, Config{NATS: natsconn.Config{URL: natstest.Start(t).URL()}})
	ctx, waited := waiting(t, s, approval("c10sed"))
	s.Close()
	if err := <-waited; !errors.Is(err, natsconn.ErrUnavailable) || ctx.Err() != nil {
		t.Fatalf("Wait across Close: %v, want natsconn.ErrUnavailable", err)
	}
}

func TestAnUnreachableServerAtOpenIsNotAnErrorButEveryUseIs(t *testing.T) {
	s := open(t, Config{NATS: natsconn.Config{URL: natstest.Unreachable(t)}})
	if err := s.Put(t.Context(), approval("abcd")); !errors.Is(err, natsconn.ErrUnavailable) {
		t.Fatalf("Put without a server: %v, want natsconn.ErrUnavailable", err)
	}
}

func TestAServerWithoutJetStreamFailsAtOpenSayingSo(t *testing.T) {
	srv := natstest.Start(t, func(o *server.Options) { o.JetStream = false })
	_, err := Open(t.Context(), Config{NATS: natsconn.Config{URL: srv.URL(), OpTimeout: time.Second}})
	if err == nil || !strings.Contains(err.Error(), "nats-server -js") {
		t.Fatalf("Open on a server without JetStream: %v; want an error saying to enable it", err)
	}
}

// The layout other tools (nats kv get) and other versions read.
func TestABucketHoldsOneJSONEntryPerApprovalUnderItsID(t *testing.T) {
	url := natstest.Start(t).URL()
	s := open(t, Config{NATS: natsconn.Config{URL: url}})
	ctx := t.Context()
	p := approval("b64url-_nonce=")
	if err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	kv, err := natstest.Client(t, url).KeyValue(ctx, DefaultBucket)
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info := st.(*jetstream.KeyValueBucketStatus).StreamInfo()
	if st.TTL() != DefaultMaxAge || st.History() != 1 || info.Config.Storage != jetstream.FileStorage {
		t.Errorf("bucket TTL %s, history %d, storage %v; want %s, 1, file", st.TTL(), st.History(), info.Config.Storage, DefaultMaxAge)
	}
	value := func() map[string]json.RawMessage {
		t.Helper()
		e, err := kv.Get(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(e.Value(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := value()
	var stored browser.Pending
	if err := json.Unmarshal(v["pending"], &stored); err != nil || stored.CommandLine != p.CommandLine || string(v["outcome"]) != `""` {
		t.Fatalf("stored %s, %v; want the pending approval and an empty outcome", v, err)
	}
	if ok, err := s.Decide(ctx, p.ID, browser.Denied); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if v := value(); string(v["outcome"]) != `"denied"` {
		t.Fatalf("outcome after Decide: %s", v["outcome"])
	}
}

func TestAnIDThatCannotBeAKeyIsRefusedByPutAndUnknownElsewhere(t *testing.T) {
	s := open(t, Config{NATS: natsconn.Config{URL: natstest.Start(t).URL()}})
	ctx := t.Context()
	for _, id := range []string{"", "a.b", "a/b", "a*", "a b", strings.Repeat("a", 257)} {
		if err := s.Put(ctx, approval(id)); err == nil || !strings.Contains(err.Error(), "use 1 to 256 letters") {
			t.Errorf("Put %q: %v, want a refusal saying what an ID may hold", id, err)
		}
		if ok, err := s.Decide(ctx, id, browser.Approved); ok || err != nil {
			t.Errorf("Decide %q: %v, %v; want false, nil", id, ok, err)
		}
		if _, err := s.Wait(ctx, id); !errors.Is(err, browser.ErrUnknown) {
			t.Errorf("Wait %q: %v, want browser.ErrUnknown", id, err)
		}
		if err := s.Delete(ctx, id); err != nil {
			t.Errorf("Delete %q: %v", id, err)
		}
	}
}

// BenchmarkApprovalCycle is one approval through the store as the asker
// and the page drive it: put, decide, wait (already decided), delete.
func BenchmarkApprovalCycle(b *testing.B) {
	s := open(b, Config{NATS: natsconn.Config{URL: natstest.Start(b).URL()}})
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		p := approval(strconv.Itoa(i))
		if err := s.Put(ctx, p); err != nil {
			b.Fatal(err)
		}
		if ok, err := s.Decide(ctx, p.ID, browser.Approved); !ok || err != nil {
			b.Fatal(ok, err)
		}
		if o, err := s.Wait(ctx, p.ID); o != browser.Approved || err != nil {
			b.Fatal(o, err)
		}
		if err := s.Delete(ctx, p.ID); err != nil {
			b.Fatal(err)
		}
	}
}
