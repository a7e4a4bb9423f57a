package discovery

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureBin is the fixture fisk application, built once for the package.
var fixtureBin string

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		fixtureBin, err = s.Fixture()
		return err
	})
}

// fixtureSet loads the fixture application as a tool set.
func fixtureSet(t testing.TB, p exposure.Policy) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: fixtureBin}}, nil, p, exposure.LoadOptions{})
	if err != nil {
		t.Fatalf("loading the fixture: %v", err)
	}
	return set
}

// customSet builds a tool set of caller-supplied tools only.
func customSet(t testing.TB, tools ...exposure.Tool) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Build(nil, tools, exposure.Policy{})
	if err != nil {
		t.Fatalf("building the tool set: %v", err)
	}
	return set
}

// titleOf is the title a server gives t: its command path, else its name.
func titleOf(t exposure.Tool) string {
	if s, ok := t.(exposure.Sourced); ok && s.Title() != "" {
		return s.Title()
	}
	return t.Name()
}

// fakeServer stands in for the server the discovery tools serve: a set in
// force it swaps, descriptors of a name and description only, and a Run
// and a Record that remember what they were given.
type fakeServer struct {
	inForce  atomic.Pointer[exposure.ToolSet]
	ran      []string
	outcomes []Outcome
}

func newFake(set *exposure.ToolSet) (*fakeServer, *Tools) {
	f := &fakeServer{}
	f.inForce.Store(set)
	return f, New(Config{
		InForce: f.inForce.Load,
		Describe: func(t exposure.Tool) (*mcp.Tool, json.Marshaler) {
			d := &mcp.Tool{Name: t.Name(), Description: t.ModelDescription(), Annotations: &mcp.ToolAnnotations{}}
			return d, d.Annotations
		},
		Run: func(_ context.Context, _ *mcp.CallToolRequest, name string, _ json.RawMessage, via *Executor) (*mcp.CallToolResult, error) {
			f.ran = append(f.ran, via.Name()+" "+name)
			return textResult("ran " + name), nil
		},
		Record: func(context.Context, *mcp.CallToolRequest) func(Outcome, error) {
			return func(o Outcome, _ error) { f.outcomes = append(f.outcomes, o) }
		},
	})
}

// callTool calls the discovery tool name of d with args.
func callTool(t *testing.T, d *Tools, name string, args any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Handler(name)(t.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: raw}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text joins a result's text blocks.
func text(res *mcp.CallToolResult) string { return testsupport.Text(res) }
