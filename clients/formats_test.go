package clients

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// Codex reads [mcp_servers.NAME] with command, args and env (its config
// documentation); every string comes back exactly, whatever it holds.
func TestCodexTableParsesBackAsTOML(t *testing.T) {
	l := Launch{Name: "fisk-demo", Command: `/opt/fisk "mcp"\bin/fisk-mcp`,
		Args: []string{"serve", "--include=^stream_", "tab\there", "line\nbreak", "del\x7f", "bell\x07", "ünï"},
		Env:  map[string]string{"A": "b", "WITH SPACE": "a=b", "Q": `it's "q"`}}
	out, err := Render("codex", l)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, out)
	}
	got := doc.MCPServers["fisk-demo"]
	if len(doc.MCPServers) != 1 || got.Command != l.Command || !reflect.DeepEqual(got.Args, l.Args) || !reflect.DeepEqual(got.Env, l.Env) {
		t.Errorf("parsed %+v\nfrom %s", doc, out)
	}
}

// Gemini CLI reads {"mcpServers": {NAME: {command, args, env}}} from
// settings.json.
func TestGeminiEntryIsAnMCPServersObject(t *testing.T) {
	out, err := Render("gemini", fiskLaunch)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	e := doc["mcpServers"]["nats"]
	if len(doc) != 1 || e["command"] != fiskLaunch.Command || e["type"] != nil || len(e) != 3 {
		t.Errorf("got %s", out)
	}
}
