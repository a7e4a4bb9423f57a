package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
)

// connectAs connects a manual 2026-07-28 client to srv presenting token.
func connectAs(t *testing.T, srv *httpServer, token string) *mcp.ClientSession {
	t.Helper()
	as := *srv
	as.token = token
	cs := as.connect(t, client{protocol: modernProtocol, manual: true,
		elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	// The SDK's client falls back to an older version when its
	// server/discover fails for any reason: say so, with the server's log,
	// rather than fail later on a question that cannot be asked.
	if v := cs.InitializeResult().ProtocolVersion; v != modernProtocol {
		t.Fatalf("the client negotiated %s, not %s: its server/discover failed; the server's log:\n%s", v, modernProtocol, srv.log.String())
	}
	return cs
}

// An approval belongs to the caller it was asked for, on every replica:
// another caller holding the answered state cannot run the command with
// it, and the caller's own retry runs it once, logged as approved by them.
func TestApprovalOnReplicasIsBoundToTheCallerItWasAskedFor(t *testing.T) {
	issuer := startHydra(t, "")
	ns := natstest.Start(t)
	key := sharedKey(t)
	replicaFlags := []string{"--stateless", "--state-key-file", key, "--replay-store", ns.URL()}
	a := startOAuthServer(t, issuer.issuer, replicaFlags...)
	b := startOAuthServer(t, issuer.issuer, replicaFlags...)
	alice := issuer.client(t, "tools", a.url, b.url)
	bob := issuer.client(t, "tools", a.url, b.url)
	tokens := []string{alice.token(t, a.url, "tools"), alice.token(t, b.url, "tools"), bob.token(t, b.url, "tools")}
	aliceOnA, aliceOnB, bobOnB := connectAs(t, a, tokens[0]), connectAs(t, b, tokens[1]), connectAs(t, b, tokens[2])
	path := filepath.Join(t.TempDir(), "touched")

	state, answers := (&replica{httpServer: a, cs: aliceOnA}).ask(t, path)

	res := (&replica{httpServer: b, cs: bobOnB}).answer(t, path, state, answers)
	if !res.IsError || res.NeedsInput() || exists(path) {
		t.Fatalf("Bob presenting Alice's approval to B: %s (ran %v); want a refusal that runs nothing", text(res), exists(path))
	}
	refused := b.log.nthCall(t, "touch", 1)
	if refused["decision"] != "mismatch" || !strings.Contains(refused["decision_detail"].(string), "approval was issued to another caller") ||
		refused["caller"] != bob.id || refused["approver"] != nil {
		t.Errorf("B's line for Bob's call: %v; want a mismatch with another caller, no approver", refused)
	}

	if res := (&replica{httpServer: b, cs: aliceOnB}).answer(t, path, state, answers); res.IsError || !exists(path) {
		t.Fatalf("Alice's own retry on B: %s (ran %v); want it to run", text(res), exists(path))
	}
	ran := b.log.nthCall(t, "touch", 2)
	if ran["result"] != "ok" || ran["decision"] != "approved" || ran["caller"] != alice.id || ran["approver"] != alice.id {
		t.Errorf("B's line for Alice's retry: %v; want it approved by %s", ran, alice.id)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wantReplayed(t, "Alice's retry again to A", (&replica{httpServer: a, cs: aliceOnA}).answer(t, path, state, answers), path)

	for _, s := range []*httpServer{a, b} {
		for _, tok := range tokens {
			if strings.Contains(s.log.String(), tok) {
				t.Errorf("a caller's token is in a replica's log")
			}
		}
	}
}
