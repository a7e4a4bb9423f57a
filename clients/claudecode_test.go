package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// addOptions are the options of "claude mcp add" as Claude Code 2.1
// declares them (claude mcp add --help): the value each takes, and whether
// it takes several (commander.js "<value...>").
var addOptions = map[string]struct{ value, variadic bool }{
	"-e": {true, true}, "--env": {true, true},
	"-H": {true, true}, "--header": {true, true},
	"-s": {true, false}, "--scope": {true, false},
	"-t": {true, false}, "--transport": {true, false},
	"--callback-port": {true, false},
	"--client-id":     {true, false},
	"--client-secret": {false, false},
}

// claudeAdd is what Claude Code registers for a "claude mcp add" line.
type claudeAdd struct {
	name, command string
	args          []string
	env           map[string]string
	transport     string
}

// parseClaudeAdd models how commander.js, which Claude Code's CLI is built
// on, parses "claude mcp add [options] <name> <commandOrUrl> [args...]":
// options may sit anywhere before "--"; a variadic option takes every
// following word that does not start with "-"; "--opt=value" is one value
// and ends the option; after "--" every word is an operand. Claude Code
// then requires each --env value to be KEY=VALUE.
func parseClaudeAdd(argv []string) (claudeAdd, error) {
	var operands []string
	values := map[string][]string{}
	var variadic string // the variadic option taking values, if any
	for i := 0; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			operands = append(operands, argv[i+1:]...)
			break
		}
		if variadic != "" && !strings.HasPrefix(arg, "-") {
			values[variadic] = append(values[variadic], arg)
			continue
		}
		variadic = ""
		if o, ok := addOptions[arg]; ok {
			name := longName(arg)
			if o.value {
				if i++; i == len(argv) {
					return claudeAdd{}, fmt.Errorf("option %s argument missing", arg)
				}
				values[name] = append(values[name], argv[i])
			}
			if o.variadic {
				variadic = name
			}
			continue
		}
		if k, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(k, "--") {
			if o, known := addOptions[k]; known && o.value {
				values[longName(k)] = append(values[longName(k)], v)
				continue
			}
		}
		if strings.HasPrefix(arg, "-") {
			return claudeAdd{}, fmt.Errorf("unknown option %q", arg)
		}
		operands = append(operands, arg)
	}
	if len(operands) < 2 {
		return claudeAdd{}, fmt.Errorf("missing required argument (name and commandOrUrl), operands %q", operands)
	}
	a := claudeAdd{name: operands[0], command: operands[1], args: operands[2:], env: map[string]string{}, transport: "stdio"}
	for _, kv := range values["--env"] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return claudeAdd{}, fmt.Errorf("Invalid environment variable format: %s", kv)
		}
		a.env[k] = v
	}
	if t := values["--transport"]; len(t) > 0 {
		a.transport = t[len(t)-1]
	}
	return a, nil
}

func longName(opt string) string {
	switch opt {
	case "-e":
		return "--env"
	case "-H":
		return "--header"
	case "-s":
		return "--scope"
	case "-t":
		return "--transport"
	}
	return opt
}

// shellWords splits line as sh does, by running it.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `for a in `+line+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

var claudeLaunches = []Launch{
	{Name: "nats", Command: "/usr/local/bin/fisk-mcp", Args: []string{"serve", "--name=nats", "/usr/bin/nats"}},
	{Name: "nats", Command: "/usr/local/bin/fisk-mcp", Args: []string{"serve", "/usr/bin/nats"}, Env: map[string]string{"NATS_CONTEXT": "prod"}},
	{Name: "fisk-demo", Command: "/opt/fisk mcp/bin/fisk-mcp", Args: []string{"serve", "--confirm-tag=impact:rw", "--include=^stream_", "/opt/demo"},
		Env: map[string]string{"A": "b", "WITH_SPACE": "a b", "EQUALS": "x=y", "DASH": "-v", "EMPTY": "", "QUOTE": "it's"}},
}

func TestClaudeCodeLineParsesAsClaudeCodeReadsIt(t *testing.T) {
	for _, l := range claudeLaunches {
		t.Run(l.Name+fmt.Sprint(len(l.Env)), func(t *testing.T) {
			line, err := Render("claude-code", l)
			if err != nil {
				t.Fatal(err)
			}
			words := shellWords(t, strings.TrimSpace(line))
			if !slices.Equal(words[:3], []string{"claude", "mcp", "add"}) {
				t.Fatalf("line %q does not start with claude mcp add", line)
			}
			got, err := parseClaudeAdd(words[3:])
			if err != nil {
				t.Fatalf("Claude Code would refuse %q: %v", line, err)
			}
			want := claudeAdd{name: l.Name, command: l.Command, args: l.Args, env: l.Env, transport: "stdio"}
			if want.env == nil {
				want.env = map[string]string{}
			}
			if got.name != want.name || got.command != want.command || !slices.Equal(got.args, want.args) || !maps.Equal(got.env, want.env) || got.transport != want.transport {
				t.Errorf("Claude Code would register %+v\nwant %+v\nfrom %s", got, want, line)
			}
		})
	}
}

// The model agrees with Claude Code on the line that used to be printed:
// a variable before the name swallows the name.
func TestClaudeCodeModelRejectsTheNameAfterAVariadicEnv(t *testing.T) {
	_, err := parseClaudeAdd([]string{"--transport", "stdio", "--env", "K=V", "nats", "--", "/bin/fisk-mcp", "serve"})
	if err == nil || !strings.Contains(err.Error(), "Invalid environment variable format: nats") {
		t.Fatalf("err = %v, want the name read as a variable", err)
	}
}

// With the real Claude Code CLI (from npm, pinned), the line registers
// exactly the launch: run against a scratch HOME, so nothing of the
// person's changes.
func TestClaudeCodeLineRegistersTheServerWithTheRealCLI(t *testing.T) {
	dir, err := testsupport.InstallNPM("@anthropic-ai/claude-code", "2.1.332", false)
	testsupport.RequireTool(t, "registration with the real claude CLI (npm)", err)
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	for _, l := range claudeLaunches {
		t.Run(l.Name+fmt.Sprint(len(l.Env)), func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			line, err := Render("claude-code", l)
			if err != nil {
				t.Fatal(err)
			}
			words := shellWords(t, strings.TrimSpace(line))
			cmd := exec.CommandContext(t.Context(), claude, words[1:]...)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, stderr.String())
			}
			got := registered(t, filepath.Join(home, ".claude"), project, l.Name)
			want := l.Env
			if want == nil {
				want = map[string]string{}
			}
			if got.Command != l.Command || !slices.Equal(got.Args, l.Args) || !maps.Equal(got.Env, want) {
				t.Errorf("registered %+v, want %+v", got, l)
			}
		})
	}
}

// registered reads the server name as Claude Code stored it for project.
func registered(t *testing.T, dir, project, name string) (entry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}) {
	t.Helper()
	for _, file := range []string{filepath.Join(dir, ".claude.json"), filepath.Join(filepath.Dir(dir), ".claude.json")} {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var cfg struct {
			Projects map[string]struct {
				MCPServers map[string]json.RawMessage `json:"mcpServers"`
			} `json:"projects"`
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		for path, p := range cfg.Projects {
			if raw, ok := p.MCPServers[name]; ok && filepath.Clean(path) == filepath.Clean(project) {
				if err := json.Unmarshal(raw, &entry); err != nil {
					t.Fatal(err)
				}
				return entry
			}
		}
	}
	t.Fatalf("no server %q registered for %s", name, project)
	return entry
}
