package e2e

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
)

// These tests run replicas as an operator would: separate fisk-mcp
// processes serving stateless HTTP with one state key and one NATS
// JetStream replay store, a real nats-server in this process. On protocol
// 2026-07-28 the client carries the state between requests, so a question
// asked by one replica can be answered to another.

// sharedKey writes a state key file for replicas to share.
func sharedKey(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(path, []byte(hex.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// replica is one fisk-mcp replica and a manual 2026-07-28 client of it.
type replica struct {
	*httpServer
	cs *mcp.ClientSession
}

func startReplica(t *testing.T, key, store string, extra ...string) *replica {
	t.Helper()
	h := startHTTP(t, "", append([]string{"--stateless", "--state-key-file", key, "--replay-store", store}, extra...)...)
	cs := h.connect(t, client{protocol: modernProtocol, manual: true,
		elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	return &replica{httpServer: h, cs: cs}
}

// ask makes the first round of touch on r; answer retries on r with the
// approval of state.
func (r *replica) ask(t *testing.T, path string) (state string, answers mcp.InputResponseMap) {
	t.Helper()
	first := testsupportCall(t, r.cs, "touch", args("path", path))
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round is not a question: %s", text(first))
	}
	answers = mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = yes
	}
	return first.RequestState, answers
}

func (r *replica) answer(t *testing.T, path, state string, answers mcp.InputResponseMap) *mcp.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path), InputResponses: answers, RequestState: state})
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	return res
}

func testsupportCall(t *testing.T, cs *mcp.ClientSession, name string, a map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: a})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

// wantReplayed checks a refusal as a replay that ran nothing.
func wantReplayed(t *testing.T, who string, res *mcp.CallToolResult, path string) {
	t.Helper()
	if !res.IsError || res.NeedsInput() || !strings.Contains(text(res), "already used") {
		t.Errorf("%s: the used state was not refused as a replay: %s", who, text(res))
	}
	if exists(path) {
		t.Errorf("%s: %s was created: the command ran again", who, path)
	}
}

func TestReplicasShareSingleUseThroughNATS(t *testing.T) {
	ns := natstest.Start(t)
	key := sharedKey(t)
	a := startReplica(t, key, ns.URL())
	b := startReplica(t, key, ns.URL())
	a.log.waitRecord(t, "the replay store in use", func(r map[string]any) bool {
		return r["replay_store"] == ns.URL()+" bucket fisk_mcp_approvals"
	})
	path := filepath.Join(t.TempDir(), "touched")

	state, answers := a.ask(t, path)
	if res := b.answer(t, path, state, answers); res.IsError || !exists(path) {
		t.Fatalf("asked on A, answered on B: did not run: %s", text(res))
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	wantReplayed(t, "again to B", b.answer(t, path, state, answers), path)
	wantReplayed(t, "again to A", a.answer(t, path, state, answers), path)
	a.stop()
	restarted := startReplica(t, key, ns.URL())
	wantReplayed(t, "to A after a restart", restarted.answer(t, path, state, answers), path)
}

// With the memory store a restart forgets which states were used, so a
// state issued before it is not taken: the person is asked again.
func TestMemoryStoreAfterARestartAsksAgainAndRunsNothing(t *testing.T) {
	key := sharedKey(t)
	before := startReplica(t, key, "memory")
	path := filepath.Join(t.TempDir(), "touched")
	state, answers := before.ask(t, path)
	before.stop()
	after := startReplica(t, key, "memory")

	res := after.answer(t, path, state, answers)

	if res.IsError || !res.NeedsInput() || res.RequestState == state || exists(path) {
		t.Fatalf("a state issued before the restart was not asked again: %s", text(res))
	}
}

func TestReplicasRacingOnOneStateRunItOnce(t *testing.T) {
	ns := natstest.Start(t)
	key := sharedKey(t)
	replicas := []*replica{startReplica(t, key, ns.URL()), startReplica(t, key, ns.URL())}
	for round := range 5 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("touched-%d", round))
		state, answers := replicas[0].ask(t, path)
		results := make([]*mcp.CallToolResult, 4)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() { results[i] = replicas[i%2].answer(t, path, state, answers) })
		}
		wg.Wait()
		ran := 0
		for _, res := range results {
			switch {
			case !res.IsError:
				ran++
			case !strings.Contains(text(res), "already used"):
				t.Errorf("round %d: a racing answer was refused for another reason: %s", round, text(res))
			}
		}
		if ran != 1 || !exists(path) {
			t.Errorf("round %d: the approved command ran %d times, want once", round, ran)
		}
	}
}

func TestNATSOutageRefusesApprovalsUntilItReturns(t *testing.T) {
	ns := natstest.Start(t)
	key := sharedKey(t)
	a := startReplica(t, key, ns.URL())
	dir := t.TempDir()

	ns.Stop()
	a.log.waitRecord(t, "the store lost", func(r map[string]any) bool {
		return r["msg"] == "lost the replay store; approvals are refused until it is back"
	})
	// A replica started while the store is down serves all the same.
	late := startReplica(t, key, ns.URL())
	for name, r := range map[string]*replica{"running": a, "started during the outage": late} {
		path := filepath.Join(dir, "during-"+strings.ReplaceAll(name, " ", "-"))
		state, answers := r.ask(t, path)
		res := r.answer(t, path, state, answers)
		if !res.IsError || exists(path) {
			t.Fatalf("%s replica: approved without its store: %s", name, text(res))
		}
		for _, want := range []string{"approvals are unavailable", "the replay store at " + ns.URL(), "cannot be reached", "ungated tools still work"} {
			if !strings.Contains(text(res), want) {
				t.Errorf("%s replica: refusal %q does not say %q", name, text(res), want)
			}
		}
		if res := testsupportCall(t, r.cs, "echo", args("subject", "hello")); res.IsError {
			t.Errorf("%s replica: an ungated call failed during the outage: %s", name, text(res))
		}
	}

	ns.Start()
	a.log.waitRecord(t, "reconnecting", func(r map[string]any) bool { return r["msg"] == "reconnected to the replay store" })
	late.log.waitRecord(t, "connecting", func(r map[string]any) bool { return r["msg"] == "connected to the replay store" })
	for name, r := range map[string]*replica{"running": a, "started during the outage": late} {
		path := filepath.Join(dir, "after-"+strings.ReplaceAll(name, " ", "-"))
		state, answers := r.ask(t, path)
		if res := r.answer(t, path, state, answers); res.IsError || !exists(path) {
			t.Errorf("%s replica: approval after the store returned did not run: %s", name, text(res))
		}
	}
}

func TestReplayStoreMistakesStopServe(t *testing.T) {
	ns := natstest.Start(t)
	ns.Stop()
	ns.Options.Username, ns.Options.Password = "fisk", "right-password"
	ns.Start()
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("wrong-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"not a URL":       {[]string{"--replay-store", "redis://127.0.0.1:1"}, "the scheme must be nats"},
		"not a store":     {[]string{"--replay-store", "disk"}, "give memory, or the URL of a NATS server"},
		"memory and auth": {[]string{"--replay-store-user", "fisk"}, "only applies to a NATS replay store"},
		"bad credentials": {[]string{"--replay-store", ns.URL(), "--replay-store-user", "fisk", "--replay-store-password-file", pw}, "Authorization Violation"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runFiskMCP(t, nil, serveArgs(append(append([]string{"--http", "127.0.0.1:0"}, tc.args...), fixtureBin)...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr does not say %q:\n%s", code, tc.want, stderr)
			}
		})
	}
}
