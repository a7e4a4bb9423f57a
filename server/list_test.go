package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	return testsupport.ListTools(t, cs)
}

func TestListToolsDescribesFixtureCommands(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			tools := listTools(t, connect(t, s, version, nil))

			for _, name := range []string{"echo", "env", "emit", "sleep", "spawn", "exit", "touch", "deploy", "admin_user_add", "admin_user_delete", "admin_user_list"} {
				if tools[name] == nil {
					t.Errorf("tool %s is not listed", name)
				}
			}
			for _, name := range []string{"admin_purge", "internal_debug_dump", "secret", "admin", "admin_user"} {
				if tools[name] != nil {
					t.Errorf("tool %s is listed; denied, hidden and group commands must not be", name)
				}
			}

			echo := tools["echo"]
			// The title is said once: annotations.title would only repeat it.
			if echo.Title != "echo" || echo.Annotations == nil || echo.Annotations.Title != "" {
				t.Errorf("echo title = %q / annotations %+v, want the command path, not repeated in the annotations", echo.Title, echo.Annotations)
			}
			if add := tools["admin_user_add"]; add.Title != "admin user add" {
				t.Errorf("admin_user_add title = %q, want %q", add.Title, "admin user add")
			}
			if !strings.Contains(echo.Description, "Prints the argument vector") || !strings.Contains(echo.Description, "Tags:") {
				t.Errorf("echo description %q lacks the long help or the Tags line", echo.Description)
			}
			schema, _ := json.Marshal(echo.InputSchema)
			if !strings.Contains(string(schema), `"subject"`) {
				t.Errorf("echo input schema %s lacks the subject argument", schema)
			}
			if echo.OutputSchema != nil {
				t.Errorf("echo advertises output schema %v; it is sent only with Config.OutputSchema", echo.OutputSchema)
			}
		})
	}
}

// TestOutputSchemaIsOptIn proves that command tools advertise the
// CommandResult envelope as their output schema only when configured to,
// and that their results carry it as structuredContent either way.
func TestOutputSchemaIsOptIn(t *testing.T) {
	for _, advertise := range []bool{false, true} {
		s, _ := newServer(t, Config{OutputSchema: advertise}, fixtureSet(t, exposure.Policy{}))
		cs := connect(t, s, legacyVersion, nil)
		echo := listTools(t, cs)["echo"]
		if !advertise && echo.OutputSchema != nil {
			t.Errorf("echo advertises output schema %v without Config.OutputSchema", echo.OutputSchema)
		}
		if advertise {
			out, _ := json.Marshal(echo.OutputSchema)
			for _, field := range []string{"command", "exit_code", "output", "truncated", "bytes_total", "duration_ms", "signal"} {
				if !strings.Contains(string(out), `"`+field+`"`) {
					t.Errorf("echo output schema %s lacks %s", out, field)
				}
			}
		}
		res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "x"})
		if env := testsupport.Envelope(t, res); env.Command == "" || env.ExitCode != 0 {
			t.Errorf("output schema %v: the result is not a command envelope: %+v", advertise, env)
		}
	}
}

func TestListToolsMapsBehaviourToAnnotations(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	tools := listTools(t, connect(t, s, legacyVersion, nil))

	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	cases := []struct {
		tool string
		want hints
	}{
		// Read-only implies idempotent: repeating a call changes nothing.
		{"echo", hints{readOnly: true, destructive: false, idempotent: true, openWorld: true}},
		{"env", hints{readOnly: true, destructive: false, idempotent: true, openWorld: false}},
		{"touch", hints{readOnly: false, destructive: false, idempotent: false, openWorld: true}},
		{"admin_user_delete", hints{readOnly: false, destructive: true, idempotent: false, openWorld: true}},
		// No behaviour tags: the conservative defaults.
		{"sleep", hints{readOnly: false, destructive: true, idempotent: false, openWorld: true}},
	}
	for _, c := range cases {
		a := tools[c.tool].Annotations
		if a == nil || a.OpenWorldHint == nil || (!a.ReadOnlyHint && a.DestructiveHint == nil) {
			t.Errorf("%s: incomplete annotations %+v", c.tool, a)
			continue
		}
		got := hints{readOnly: a.ReadOnlyHint, idempotent: a.IdempotentHint, openWorld: *a.OpenWorldHint}
		if a.ReadOnlyHint {
			// The protocol gives destructiveHint meaning only when
			// readOnlyHint is false, so a read-only tool leaves it out.
			if a.DestructiveHint != nil {
				t.Errorf("%s: read-only tool also sends destructiveHint %v", c.tool, *a.DestructiveHint)
			}
		} else {
			got.destructive = *a.DestructiveHint
		}
		if got != c.want {
			t.Errorf("%s annotations = %+v, want %+v", c.tool, got, c.want)
		}
	}
}

func TestNonExposableToolIsNeitherListedNorCallable(t *testing.T) {
	hidden, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "a2a_only",
		Description: "Only for agents",
		InputSchema: map[string]any{"type": "object"},
		Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			t.Error("a tool that is not MCP-exposable ran")
			return json.RawMessage(`{}`), nil
		},
		Exposure: &exposure.Exposure{MCP: false, A2A: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Config{}, customSet(t, hidden, echoTool(t)))
	cs := connect(t, s, legacyVersion, nil)
	if tools := listTools(t, cs); tools["a2a_only"] != nil || tools["echo_json"] == nil {
		t.Errorf("listed %v, want echo_json only", tools)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a2a_only"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("calling a non-exposable tool: err = %v, want unknown tool", err)
	}
}

func TestCallingADeniedToolByNameIsUnknown(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "admin_purge", Arguments: map[string]any{"context": "x"}})
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("calling admin_purge: err = %v, want unknown tool", err)
			}
		})
	}
}
