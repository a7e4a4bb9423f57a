package clients

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// Codex's entry approves the gated tools (fisk-mcp asks for them), passes
// the desktop's variables, and approves call_tool only when every tool it
// could run that is not read-only is gated; the note says what codex exec
// refuses and what to add.
func TestCodexApprovalsLetThroughOnlyWhatFiskMCPAsksFor(t *testing.T) {
	cases := []struct {
		name    string
		served  Served
		browser bool
		approve []string
		env     bool
		says    []string
	}{
		{"gated, listed", Served{Count: 3, Gated: []string{"touch", "deploy"}, UngatedWrites: nil}, true,
			[]string{"deploy", "touch"}, true, []string{"Codex runs the gated tools (deploy, touch) without asking"}},
		{"gated and ungated writes, listed", Served{Count: 3, Gated: []string{"touch"}, UngatedWrites: []string{"rm"}}, true,
			[]string{"touch"}, true, []string{"codex exec refuses the 1 ungated tools that are not read-only (rm)", `[mcp_servers.srv.tools.TOOL] approval_mode = "approve"`}},
		{"deferred, every write gated", Served{Count: 90, Gated: []string{"touch"}, Deferred: true}, true,
			[]string{"touch", "call_tool"}, true, []string{"call_tool is approved in Codex too"}},
		{"deferred, with ungated writes", Served{Count: 90, Gated: []string{"touch"}, UngatedWrites: []string{"rm"}, Deferred: true}, true,
			[]string{"touch"}, true, []string{"call_tool would also run 1 ungated tools that are not read-only (rm) with nobody asked", "codex exec refuses it"}},
		{"not counted", Served{Count: -1}, true, nil, true, []string{"could not be counted, so none is approved"}},
		{"asked through Codex: nothing approved", Served{Count: 3, Gated: []string{"touch"}}, false, nil, false, nil},
		{"no gated tools, ungated writes", Served{Count: 3, UngatedWrites: []string{"rm"}}, false, nil, false, []string{"codex exec refuses the 1 ungated tools"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			approve, env, note := CodexApprovals("srv", tc.served, tc.browser)
			if !slices.Equal(approve, tc.approve) {
				t.Errorf("approve %q, want %q", approve, tc.approve)
			}
			if (len(env) > 0) != tc.env {
				t.Errorf("env_vars %q", env)
			}
			for _, s := range tc.says {
				if !strings.Contains(note, s) {
					t.Errorf("note %q lacks %q", note, s)
				}
			}
			if len(tc.says) == 0 && note != "" {
				t.Errorf("note %q, want none", note)
			}
		})
	}
}

// The approvals and variables parse back as Codex reads them, and a forced
// install replaces the server's table and its tools' subtables where they
// stand, keeping the rest of the file.
func TestCodexEntryWithApprovalsInstallsAndReplaces(t *testing.T) {
	l := fiskLaunch
	l.Approve, l.PassEnv = []string{"touch", "call_tool"}, CodexDesktopEnv
	out, err := Render("codex", l)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			EnvVars []string `toml:"env_vars"`
			Tools   map[string]struct {
				ApprovalMode string `toml:"approval_mode"`
			} `toml:"tools"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	e := doc.MCPServers["nats"]
	if !slices.Equal(e.EnvVars, CodexDesktopEnv) || len(e.Tools) != 2 || e.Tools["touch"].ApprovalMode != "approve" || e.Tools["call_tool"].ApprovalMode != "approve" {
		t.Errorf("parsed %+v from\n%s", e, out)
	}

	path := writeTemp(t, "config.toml", codexFile)
	if _, err := Install("codex", l, path, false); err != nil {
		t.Fatal(err)
	}
	if again, err := Install("codex", l, path, false); err != nil || !again.Unchanged {
		t.Errorf("the same entry again: %+v, %v", again, err)
	}
	fewer := l
	fewer.Approve = []string{"deploy"}
	if _, err := Install("codex", fewer, path, false); err == nil {
		t.Error("a different entry replaced without force")
	}
	if _, err := Install("codex", fewer, path, true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), codexFile) || strings.Contains(string(data), "tools.touch") || !strings.Contains(string(data), "tools.deploy") {
		t.Errorf("after the forced install:\n%s", data)
	}
	got := decodeFile(t, "codex", path)
	want := decodeFile(t, "codex", writeTemp(t, "want.toml", codexFile+"\n"+mustRender(t, fewer)))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func mustRender(t *testing.T, l Launch) string {
	t.Helper()
	out, err := Render("codex", l)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
