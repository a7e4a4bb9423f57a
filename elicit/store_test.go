package elicit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// brokenStore cannot record anything, like a shared store that is down.
type brokenStore struct{ err error }

func (b brokenStore) Use(context.Context, UsedState) (bool, error) { return false, b.err }

func TestUnreachableReplayStoreRefusesApprovalsWithItsReason(t *testing.T) {
	reason := errors.New("the replay store at nats://127.0.0.1:4222 cannot be reached")
	f := newFixture(t, fixtureOptions{gate: Options{Replay: brokenStore{err: reason}}})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	f.wantRefused(res, CodeUnavailable, "approvals are unavailable: "+reason.Error()+"; ungated tools still work")
}

// A decline is recorded like an approval: the same state answered again
// with accept is a replay.
func TestDeclinedStateCannotBeAnsweredAgainWithAccept(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	id := onlyID(t, first)
	if res := retry(t, cs, "rm", args, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}}, first.RequestState); !res.IsError || f.last().Code != CodeDeclined {
		t.Fatalf("decline: %q %s", text(res), f.last().Code)
	}

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{id: yes()}, first.RequestState)

	f.wantRefused(res, CodeReplayed, "already used")
}

// A process with the same key that started after the state was issued (a
// restart) cannot know whether it was used: it asks again, nothing runs.
func TestStateIssuedBeforeTheStoreStartedIsAskedAgain(t *testing.T) {
	key := testKey()
	before := newFixture(t, fixtureOptions{gate: Options{Key: key}})
	later, err := NewMemoryStore(MemoryOptions{Since: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	after := newFixture(t, fixtureOptions{gate: Options{Key: key, Replay: later}})
	args := map[string]any{"name": "orders"}
	first := call(t, before.manual(), "rm", args)

	res := retry(t, after.manual(), "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	after.wantAskedAgain(res, CodeExpired, first.RequestState)
	if n := after.ran.Load(); n != 0 {
		t.Errorf("the command ran %d times, want 0", n)
	}
}
