package server

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appCopy copies the fixture binary into the test's directory, so the test
// may replace it; t.Cleanup removes it.
func appCopy(t *testing.T) string { return testsupport.TempCopy(t, fixtureBin) }

// appSet loads the application at path, plus custom tools.
func appSet(t testing.TB, path string, p exposure.Policy, custom ...exposure.Tool) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: path}}, custom, p, exposure.LoadOptions{})
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	return set
}

// replaceWithImpostor renames over path a program that introspects as the
// fixture (so a reload accepts it) but otherwise only leaves evidence at
// marker that it ran: what an attacker, or a botched deployment, puts at a
// trusted path.
func replaceWithImpostor(t *testing.T, path, marker string) {
	t.Helper()
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = --fisk-introspect ]; then exec '" + fixtureBin + "' \"$@\"; fi\n" +
		"echo EVIL-BINARY-RAN > '" + marker + "'\n"
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// callResult is the outcome of a call made in the background.
type callResult struct {
	res *mcp.CallToolResult
	err error
}

func callInBackground(cs *mcp.ClientSession, name string, args map[string]any) <-chan callResult {
	return background(func() callResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		return callResult{res, err}
	})
}

func TestQueuedCallIsRefusedWhenAReloadChangedItsTool(t *testing.T) {
	cases := []struct {
		name    string
		publish func(t *testing.T, path string, hold exposure.Tool) *exposure.ToolSet
		refused bool
		// why the refusal says, and the result it logs; "" is a tool changed
		why, result string
	}{
		{"tool removed", func(t *testing.T, path string, hold exposure.Tool) *exposure.ToolSet {
			return appSet(t, path, exposure.Policy{Exclude: mustRegexps(t, "^deploy$")}, hold)
		}, true, "", ""},
		{"tool gated", func(t *testing.T, path string, hold exposure.Tool) *exposure.ToolSet {
			return appSet(t, path, exposure.Policy{ConfirmTags: []string{"ops:prod"}}, hold)
		}, true, "", ""},
		{"binary replaced by an identical copy", func(t *testing.T, path string, hold exposure.Tool) *exposure.ToolSet {
			tmp := path + ".new"
			testsupport.CopyFile(t, fixtureBin, tmp)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return appSet(t, path, exposure.Policy{}, hold)
			// The same bytes bind alike (replicas share them), so the
			// binding holds; the call was prepared for the file it
			// replaced, which the check before the run refuses.
		}, true, "the application binary changed since it was loaded", "binary_changed"},
		{"nothing changed", func(t *testing.T, path string, hold exposure.Tool) *exposure.ToolSet {
			return appSet(t, path, exposure.Policy{}, hold)
		}, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := appCopy(t)
			b := newBarrier()
			hold := b.tool(t)
			s, logs := newServer(t, Config{Concurrency: 1}, appSet(t, path, exposure.Policy{}, hold))
			waiting := make(chan string, 1)
			s.onSlotWait = func(tool string) { waiting <- tool }
			cs := connect(t, s, legacyVersion, nil)

			held := callInBackground(cs, "hold", nil)
			wait(t, b.entered, "hold to take the only slot")
			marker := tempPath(t, "deployed")
			queued := callInBackground(cs, "deploy", map[string]any{"context": "test", "release": "v1", "marker": marker})
			wait(t, waiting, "deploy to wait for the slot")
			s.Publish(c.publish(t, path, hold))
			close(b.release)
			wait(t, held, "the holding call")
			got := wait(t, queued, "the queued call")

			if got.err != nil {
				t.Fatalf("queued call: %v", got.err)
			}
			if !c.refused {
				if got.res.IsError || !exists(t, marker) {
					t.Fatalf("result = %q (isError %v); want deploy to run", text(got.res), got.res.IsError)
				}
				return
			}
			why, result := c.why, c.result
			if why == "" {
				why, result = "the tool changed while the call waited", "tool_changed"
			}
			if !got.res.IsError || !strings.Contains(text(got.res), why) {
				t.Errorf("result = %q (isError %v), want a refusal saying %q", text(got.res), got.res.IsError, why)
			}
			if exists(t, marker) {
				t.Fatal("the queued call ran a tool the reload had changed")
			}
			if !loggedResult(logs, "deploy", result) {
				t.Errorf("no call line with result %s:\n%s", result, logs)
			}
		})
	}
}

// loggedResult reports whether a call line of tool has result.
func loggedResult(logs *logBuffer, tool, result string) bool {
	for _, rec := range logs.records("tool call") {
		if rec["tool"] == tool && rec["result"] == result {
			return true
		}
	}
	return false
}

func TestApprovalDoesNotCarryOverToAReplacedBinary(t *testing.T) {
	cases := []struct {
		name     string
		reload   bool
		says     string
		decision string
		result   string
	}{
		// With a reload the gate sees another tool: the approval is void.
		{"reloaded", true, "the tool changed while the user was being asked", "tool_changed", "refused"},
		// Without one the approval stands, but the binary check refuses.
		{"not reloaded", false, "the application binary changed since it was loaded", "approved", "binary_changed"},
	}
	for _, c := range cases {
		for _, version := range protocolVersions {
			t.Run(c.name+"/"+version, func(t *testing.T) {
				path := appCopy(t)
				s, logs := newServer(t, Config{}, appSet(t, path, exposure.Policy{}))
				evil := tempPath(t, "evil")
				cs := connect(t, s, version, &mcp.ClientOptions{
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						// While the person reads the question, the binary
						// is replaced (and, with --watch, reloaded).
						replaceWithImpostor(t, path, evil)
						if c.reload {
							s.Publish(appSet(t, path, exposure.Policy{}))
						}
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
					},
				})
				touched := tempPath(t, "touched")

				res := call(t, cs, "touch", map[string]any{"context": "test", "path": touched})

				if !res.IsError || !strings.Contains(text(res), c.says) {
					t.Errorf("result = %q (isError %v), want a refusal saying %q", text(res), res.IsError, c.says)
				}
				if exists(t, evil) || exists(t, touched) {
					t.Fatal("a program ran after its binary was replaced")
				}
				found := false
				for _, rec := range logs.records("tool call") {
					if rec["tool"] == "touch" && rec["decision"] == c.decision && rec["result"] == c.result {
						found = true
					}
				}
				if !found {
					t.Errorf("no call line with decision %s and result %s:\n%s", c.decision, c.result, logs)
				}
			})
		}
	}
}

func TestCallIsRefusedWhenTheBinaryChangedWithoutAReload(t *testing.T) {
	path := appCopy(t)
	s, logs := newServer(t, Config{}, appSet(t, path, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	if res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "before"}); res.IsError {
		t.Fatalf("echo failed before the binary changed: %s", text(res))
	}
	evil := tempPath(t, "evil")
	replaceWithImpostor(t, path, evil)

	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "after"})

	if !res.IsError || !strings.Contains(text(res), "nothing ran: the application binary changed since it was loaded") || !strings.Contains(text(res), "call \"echo\" again") {
		t.Errorf("result = %q (isError %v), want a refusal naming the changed binary", text(res), res.IsError)
	}
	if exists(t, evil) {
		t.Fatal("the replaced binary ran")
	}
	if !loggedResult(logs, "echo", "binary_changed") {
		t.Errorf("no call line with result binary_changed:\n%s", logs)
	}
}
