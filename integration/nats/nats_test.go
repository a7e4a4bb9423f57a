package nats

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// What natscli v0.5.0 is known to contain (measured): 246 runnable leaves,
// 16 of them in hidden subtrees, none tagged ai:deny.
const (
	natsLeaves        = 246
	natsVisibleLeaves = 230
)

// The policy every test serves nats with: the CLI's own impact tags mapped
// onto read-only advice and onto the approval gate, and the --server global
// exposed so that a tool call can carry it.
var natsPolicy = []string{
	"--read-only-tag", "impact:ro",
	"--confirm-tag", "impact:rw",
	"--global-flag", "server",
}

// natsFullList serves nats under natsPolicy with every tool listed: its
// 230 tools are over the default threshold, so it would be deferred.
var natsFullList = append([]string{"--defer", "never"}, natsPolicy...)

// leaf is a runnable command as the nats binary itself describes it.
type leaf struct {
	name   string
	hidden bool
	tags   []string
}

// modelNode is the part of fisk's introspection document this test reads,
// decoded independently of the introspect package under test.
type modelNode struct {
	Name     string       `json:"name"`
	Hidden   bool         `json:"hidden"`
	Tags     []string     `json:"tags"`
	Commands []*modelNode `json:"commands"`
}

// natsLeavesFromModel runs `nats --fisk-introspect` and lists every leaf
// with its flat name, whether it sits in a hidden subtree and its own tags.
func natsLeavesFromModel(t *testing.T, nats string, sb sandbox) []leaf {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), nats, "--fisk-introspect")
	cmd.Env = sb.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	doc, err := cmd.Output()
	if err != nil {
		t.Fatalf("nats --fisk-introspect: %v\n%s", err, stderr.String())
	}
	var root modelNode
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatalf("decoding the nats model: %v", err)
	}
	var leaves []leaf
	var walk func(n *modelNode, path []string, hidden bool)
	walk = func(n *modelNode, path []string, hidden bool) {
		for _, c := range n.Commands {
			p := append(slices.Clone(path), c.Name)
			h := hidden || c.Hidden
			if len(c.Commands) > 0 {
				walk(c, p, h)
				continue
			}
			leaves = append(leaves, leaf{name: strings.Join(p, "_"), hidden: h, tags: c.Tags})
		}
	}
	walk(&root, nil, false)
	return leaves
}

func TestNATSEveryVisibleCommandIsAToolWithAValidSchema(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsFullList...)
	_, nats := requireBinaries(t)

	leaves := natsLeavesFromModel(t, nats, sb)
	if len(leaves) != natsLeaves {
		t.Fatalf("nats %s has %d leaves, want %d: the pinned facts of this test are stale", natscliVersion, len(leaves), natsLeaves)
	}
	var want []string
	for _, l := range leaves {
		if !l.hidden && !slices.Contains(l.tags, "ai:deny") {
			want = append(want, l.name)
		}
	}
	if len(want) != natsVisibleLeaves {
		t.Fatalf("nats %s has %d visible, allowed leaves, want %d", natscliVersion, len(want), natsVisibleLeaves)
	}

	tools := listTools(t, s)
	var got []string
	for name := range tools {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("listed tools differ from the visible nats commands\nmissing: %v\nunexpected: %v", difference(want, got), difference(got, want))
	}

	validName := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	for _, name := range got {
		tool := tools[name]
		if !validName.MatchString(name) {
			t.Errorf("tool name %q does not fit %s", name, validName)
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", name)
		}
		compileSchema(t, name, tool.InputSchema)
	}
}

// compileSchema checks that a listed input schema is a JSON Schema a client
// can compile, and that it is an object schema as MCP requires.
func compileSchema(t *testing.T, name string, schema any) {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Errorf("tool %s: input schema does not marshal: %v", name, err)
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("tool %s: input schema is not JSON: %v", name, err)
		return
	}
	if obj, ok := doc.(map[string]any); !ok || obj["type"] != "object" {
		t.Errorf("tool %s: input schema is not an object schema: %s", name, raw)
		return
	}
	c := jsonschema.NewCompiler()
	url := "urn:fisk-mcp:tool:" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Errorf("tool %s: adding the input schema: %v", name, err)
		return
	}
	if _, err := c.Compile(url); err != nil {
		t.Errorf("tool %s: input schema does not compile: %v\n%s", name, err, raw)
	}
}

func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestNATSImpactROCommandsAreAnnotatedReadOnly(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsFullList...)
	_, nats := requireBinaries(t)

	tools := listTools(t, s)
	var readOnly int
	for _, l := range natsLeavesFromModel(t, nats, sb) {
		tool, ok := tools[l.name]
		if !ok {
			continue // listing is checked by its own test
		}
		want := slices.Contains(l.tags, "impact:ro") && !slices.Contains(l.tags, "impact:rw")
		got := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if got != want {
			t.Errorf("tool %s (tags %v): readOnlyHint = %v, want %v", l.name, l.tags, got, want)
		}
		if got {
			readOnly++
		}
	}
	if readOnly == 0 {
		t.Error("no tool is annotated read-only: --read-only-tag impact:ro had no effect")
	}
}

func TestNATSGatedCommandIsRefusedWithoutElicitationAndDoesNotRun(t *testing.T) {
	// auth operator add (impact:rw) runs without a NATS server and, when it
	// runs, writes an nsc store for the operator into XDG_DATA_HOME.
	args := map[string]any{"name": "gated"}
	storeOf := func(sb sandbox) string { return filepath.Join(sb.data, "nats", "nsc", "stores", "gated") }

	t.Run("gated", func(t *testing.T) {
		sb := newSandbox(t)
		s := serve(t, sb, natsPolicy...)
		res, text := call(t, s, "auth_operator_add", args)
		if !res.IsError {
			t.Errorf("auth_operator_add is gated by --confirm-tag impact:rw and the client cannot approve, yet the call succeeded:\n%s", text)
		}
		if !strings.Contains(strings.ToLower(text), "approval") || strings.Contains(text, "invalid arguments") {
			t.Errorf("the refusal does not say that approval was needed:\n%s", text)
		}
		if _, err := os.Stat(storeOf(sb)); err == nil {
			t.Errorf("the refused command ran: %s exists", storeOf(sb))
		}
	})

	// The control: without the gate the very same call runs, so the refusal
	// above is the gate's doing and not a bad argument.
	t.Run("ungated", func(t *testing.T) {
		sb := newSandbox(t)
		s := serve(t, sb, "--read-only-tag", "impact:ro")
		res, text := call(t, s, "auth_operator_add", args)
		if res.IsError {
			t.Fatalf("auth_operator_add without --confirm-tag failed:\n%s", text)
		}
		if _, err := os.Stat(storeOf(sb)); err != nil {
			t.Errorf("auth_operator_add reported success but created no store: %v", err)
		}
	})
}

func TestNATSCommandsThatNeedNoServerRunAndReturnTheirOutput(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsPolicy...)

	tests := []struct {
		tool string
		args map[string]any
		want *regexp.Regexp
	}{
		{"errors_lookup", map[string]any{"code": 10039}, regexp.MustCompile(`JSNotEnabledForAccountErr`)},
		{"errors_ls", map[string]any{"match": "not enabled for account"}, regexp.MustCompile(`10039`)},
		{"context_ls", nil, regexp.MustCompile(`No known contexts`)},
		{"auth_nuid_gen", nil, regexp.MustCompile(`^[0-9A-Za-z]{22}\n$`)},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, text := call(t, s, tt.tool, tt.args)
			if res.IsError {
				t.Fatalf("%s failed:\n%s", tt.tool, text)
			}
			env := ran(t, tt.tool, res)
			if env.ExitCode != 0 || env.Truncated {
				t.Errorf("%s: exit code %d, truncated %v; want 0, false", tt.tool, env.ExitCode, env.Truncated)
			}
			if !tt.want.MatchString(env.Output) {
				t.Errorf("%s output does not match %s:\n%s", tt.tool, tt.want, env.Output)
			}
		})
	}
}

func TestNATSCommandOutputIsExactlyWhatTheBinaryPrintsForLLMs(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsPolicy...)
	_, nats := requireBinaries(t)

	// fisk-mcp sets LLMFORMAT=1 for every command; natscli then prints
	// Markdown tables instead of box drawing (about a third of the bytes).
	cmd := exec.CommandContext(t.Context(), nats, "errors", "ls")
	cmd.Env = append(sb.env(), "LLMFORMAT=1")
	direct, err := cmd.Output()
	if err != nil {
		t.Fatalf("nats errors ls: %v", err)
	}
	if !bytes.HasPrefix(direct, []byte("# NATS Errors\n")) {
		t.Fatalf("nats errors ls with LLMFORMAT=1 no longer prints Markdown:\n%.200s", direct)
	}

	res, text := call(t, s, "errors_ls", nil)
	if res.IsError {
		t.Fatalf("errors_ls failed:\n%s", text)
	}
	env := ran(t, "errors_ls", res)
	if env.Truncated || env.BytesTotal != int64(len(direct)) || env.Output != string(direct) {
		t.Errorf("errors_ls output (%d of %d bytes, truncated %v) differs from what nats prints with LLMFORMAT=1 (%d bytes)\n%.300s",
			len(env.Output), env.BytesTotal, env.Truncated, len(direct), env.Output)
	}
}

func TestNATSContextAddedThroughAToolCarriesTheExposedGlobalFlag(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsPolicy...)

	const url = "nats://127.0.0.1:4999"
	res, text := call(t, s, "context_add", map[string]any{
		"name": "e2e", "description": "added over MCP", "server": url,
	})
	if res.IsError {
		t.Fatalf("context_add failed:\n%s", text)
	}
	if env := ran(t, "context_add", res); !strings.Contains(env.Command, "--server="+url) {
		t.Errorf("the command line does not carry the global flag: %s", env.Command)
	}
	saved, err := os.ReadFile(filepath.Join(sb.config, "nats", "context", "e2e.json"))
	if err != nil {
		t.Fatalf("context_add reported success but saved no context: %v", err)
	}
	if !strings.Contains(string(saved), url) {
		t.Errorf("the saved context does not carry --server %s:\n%s", url, saved)
	}

	res, _ = call(t, s, "context_ls", nil)
	if out := ran(t, "context_ls", res).Output; res.IsError || !strings.Contains(out, "e2e") || !strings.Contains(out, "added over MCP") {
		t.Errorf("context_ls does not list the new context (isError %v):\n%s", res.IsError, out)
	}
}
