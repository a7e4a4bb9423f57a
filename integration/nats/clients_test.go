package nats

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// fiskMCPCommand runs the fisk-mcp binary with args in a sandbox, the
// nats binary last, and returns stdout and stderr.
func fiskMCPCommand(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	fiskMCP, nats := requireBinaries(t)
	cmd := exec.CommandContext(t.Context(), fiskMCP, append(args, nats)...)
	cmd.Env = newSandbox(t).env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("fisk-mcp %v: %v\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// The nats CLI's 230 tools are more than any capped client takes: tools
// says they are deferred and what each list weighs, the IDE
// configurations defer them, and Claude Code's lists them all.
func TestNATSIsDeferredForCappedClientsAndListedForClaudeCode(t *testing.T) {
	out, _ := fiskMCPCommand(t, "tools", "--json")
	var doc struct {
		Deferral struct {
			Served   int  `json:"served"`
			Deferred bool `json:"deferred"`
			Lists    struct {
				Full, Deferred struct{ Tools, Bytes int }
			} `json:"tools_list"`
		} `json:"deferral"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Deferral
	if d.Served < 200 || !d.Deferred || d.Lists.Full.Tools != d.Served || d.Lists.Deferred.Bytes > 5000 || d.Lists.Deferred.Bytes*20 > d.Lists.Full.Bytes {
		t.Errorf("deferral = %+v", d)
	}
	t.Logf("tools/list for nats: full %d tools, %d bytes; deferred %d tools, %d bytes",
		d.Lists.Full.Tools, d.Lists.Full.Bytes, d.Lists.Deferred.Tools, d.Lists.Deferred.Bytes)

	out, notes := fiskMCPCommand(t, "config", "vscode", "--defer", "never")
	var cfg struct {
		Servers map[string]struct {
			Args []string `json:"args"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatal(err)
	}
	if args := cfg.Servers["nats"].Args; !slices.Contains(args, "--defer=always") || slices.Contains(args, "--defer=never") {
		t.Errorf("vscode args = %q\n%s", args, notes)
	}

	line, hint := fiskMCPCommand(t, "config", "claude-code")
	if !strings.Contains(line, " --defer=never ") || !strings.Contains(hint, "ENABLE_TOOL_SEARCH=false") {
		t.Errorf("claude-code line %q, hint %q", line, hint)
	}
}
