package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawRequest sends a request on a session and returns the response; it
// may run outside the test's goroutine, so it reports errors instead of
// failing the test.
func rawRequest(method, url, session, body string) (*http.Response, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	return http.DefaultClient.Do(req)
}

// readAll reads a response to its end, for a background goroutine.
func readAll(resp *http.Response, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(data)
}

func TestHTTPDeleteCancelsTheSessionsCallsAndClosesItsStreams(t *testing.T) {
	// The command would run for an hour, and nothing times it out sooner:
	// only the DELETE can end it.
	s, logs := newServer(t, Config{Timeout: time.Hour}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{})
	url := base + "/mcp"
	session := mustOpenSession(t, base)
	if resp, err := rawRequest(http.MethodPost, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %v %v", resp, err)
	}
	get, err := rawRequest(http.MethodGet, url, session, "")
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", get, err)
	}
	stream := background(func() string { return readAll(get, nil) })
	callResp, pids := startSpawn(t, url, session)
	// Another session's call, which the DELETE must leave alone.
	other := mustOpenSession(t, base)
	otherResp, otherPids := startSpawn(t, url, other)

	deleted := background(func() string {
		resp, err := rawRequest(http.MethodDelete, url, session, "")
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		return resp.Status
	})
	if status := wait(t, deleted, "the DELETE to be answered"); status != "204 No Content" {
		t.Fatalf("DELETE: %s", status)
	}
	awaitExit(t, pids)
	wait(t, stream, "the session's GET stream to close")
	wait(t, callResp, "the call's POST stream to close")
	calls := logs.records("tool call")
	if len(calls) != 1 || calls[0]["result"] != "cancelled" || calls[0]["session"] != session {
		t.Errorf("call log %v, want one cancelled call, of the deleted session", calls)
	}
	if resp, err := rawRequest(http.MethodPost, url, session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request on the deleted session: %v %v, want 404", resp, err)
	}

	select {
	case body := <-otherResp:
		t.Fatalf("the other session's call ended with its neighbour's DELETE: %.300s", body)
	default:
	}
	for pid, fd := range otherPids {
		if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0); err != nil || n != 0 {
			t.Errorf("process %d of the other session's call is gone (%v)", pid, err)
		}
	}
	if status := deleteSession(t, base, other); status != http.StatusNoContent {
		t.Fatalf("DELETE of the other session: %d", status)
	}
	awaitExit(t, otherPids)
}

// startSpawn starts an hour-long spawn call on session and returns its
// response, once it ends, and its processes.
func startSpawn(t *testing.T, url, session string) (<-chan string, map[int]int) {
	t.Helper()
	pidFile, written := pidFIFO(t)
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spawn","arguments":{"context":"test","for":"1h","pid-file":"` + pidFile + `"}}}`
	resp := background(func() string { return readAll(rawRequest(http.MethodPost, url, session, body)) })
	return resp, watchPids(t, wait(t, written, "spawn's pids"))
}

func TestEndingASessionCancelsOnlyItsCallsAndRefusesNewOnes(t *testing.T) {
	tr := newCallTracker()
	ended, other := new(mcp.ServerSession), new(mcp.ServerSession)
	ctx1, end1, err := tr.begin(context.Background(), ended)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, end2, _ := tr.begin(context.Background(), other)
	ctx3, end3, _ := tr.begin(context.Background(), nil)

	cancelled, forget := tr.endSession(ended)
	if cancelled != 1 {
		t.Errorf("endSession cancelled %d calls, want the session's one", cancelled)
	}
	wait(t, ctx1.Done(), "the ended session's call to be cancelled")
	if ctx2.Err() != nil || ctx3.Err() != nil {
		t.Error("ending a session cancelled a call of another session or of none")
	}
	if _, _, err := tr.begin(context.Background(), ended); !errors.Is(err, errSessionEnded) {
		t.Errorf("a call on a session being ended: %v, want errSessionEnded", err)
	}
	end1()
	if _, _, err := tr.begin(context.Background(), ended); !errors.Is(err, errSessionEnded) {
		t.Errorf("a call on a session being ended, after its last call: %v, want errSessionEnded", err)
	}
	forget()
	end2()
	end3()
	if len(tr.sessions) != 0 || tr.inFlight() != 0 {
		t.Errorf("%d session scopes and %d calls left, want none", len(tr.sessions), tr.inFlight())
	}
}
