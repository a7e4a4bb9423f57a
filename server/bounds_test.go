package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An argument of a megabyte cannot be passed to a command; the call must
// say so in a few words, before anyone is asked to approve a command line
// of a megabyte, instead of quoting it whole as a server problem.
func TestACommandLineTooLongToRunIsRefusedBeforeTheGate(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	asked := make(chan string, 10)
	cs := connect(t, s, legacyVersion, answering("accept", true, asked))
	big := strings.Repeat("A", 1<<20)
	for name, args := range map[string]map[string]any{
		"touch": {"context": "test", "path": big},
		"echo":  {"context": "test", "subject": "s", "label": []any{big[:execrunner.MaxArgv/2], big[:execrunner.MaxArgv/2]}},
		"batch": {"context": "test", "items": []any{big}},
	} {
		res := call(t, cs, name, args)
		if !res.IsError || len(text(res)) > 1000 || !strings.Contains(text(res), "pass less in one call") {
			t.Errorf("%s: result %.300q (%d bytes), want a short refusal that says what to do", name, text(res), len(text(res)))
		}
	}
	// touch needs approval: nobody asked means nothing ran.
	select {
	case q := <-asked:
		t.Errorf("a person was asked to approve %d bytes", len(q))
	default:
	}
	for _, rec := range logs.records("tool call") {
		if rec["result"] != string(ResultTooLong) {
			t.Errorf("logged result %v, want %s", rec["result"], ResultTooLong)
		}
	}
	// A command line within the bound still runs.
	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": big[:execrunner.MaxArgv/2]})
	if res.IsError {
		t.Errorf("a command line within the bound failed: %.300s", text(res))
	}
}

// A client names itself; a name of 100 KB, or one holding a secret, must
// not reach every line of the log as it is.
func TestAClientsNameIsBoundedAndRedactedInTheLog(t *testing.T) {
	const token = "server-token-in-client-name"
	s, logs := newServer(t, Config{Redactor: execrunner.NewRedactor(token)}, fixtureSet(t, exposure.Policy{}))
	client := mcp.NewClient(&mcp.Implementation{Name: token + strings.Repeat("n", 100<<10), Version: "1"}, nil)
	cs := testsupport.Connect(t, s.mcp, client, legacyVersion)
	call(t, cs, "echo", map[string]any{"context": "test", "subject": "s"})
	lines := logs.records("tool call")
	if len(lines) != 1 {
		t.Fatalf("%d call lines", len(lines))
	}
	got, _ := lines[0]["client"].(string)
	if len(got) > MaxLogField+64 || strings.Contains(got, token) || !strings.HasPrefix(got, execrunner.Redacted) {
		t.Errorf("logged client of %d bytes: %.100q", len(got), got)
	}
}
