package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// receivedList lists s's tools over a session whose client logs every message
// it reads, and returns the decoded result and the "tools" array exactly
// as it arrived.
func receivedList(t *testing.T, s *Server, version string) (*mcp.ListToolsResult, json.RawMessage) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	read := &testsupport.LogBuffer{}
	client := mcp.NewClient(&mcp.Implementation{Name: "wire", Version: "1"}, nil)
	cs := testsupport.ConnectClient(t, client, &mcp.LoggingTransport{Transport: ct, Writer: read}, version)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(read.String()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		var msg struct {
			Result struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if ok && json.Unmarshal([]byte(line), &msg) == nil && msg.Result.Tools != nil {
			return res, msg.Result.Tools
		}
	}
	t.Fatalf("no tools/list response among the messages read:\n%s", read.String())
	return nil, nil
}

func TestListsSendEachHintOnceAndNoDefaultIdempotentHint(t *testing.T) {
	for _, mode := range []DeferMode{DeferNever, DeferAlways} {
		for _, version := range protocolVersions {
			s, _ := newServer(t, Config{Defer: mode}, fixtureSet(t, exposure.Policy{}))
			res, raw := receivedList(t, s, version)
			var sent []struct {
				Name        string                     `json:"name"`
				Annotations map[string]json.RawMessage `json:"annotations"`
			}
			if err := json.Unmarshal(raw, &sent); err != nil || len(sent) != len(res.Tools) {
				t.Fatalf("%s %s: %v: %s", mode, version, err, raw)
			}
			for i, tool := range res.Tools {
				a, has := tool.Annotations, sent[i].Annotations
				_, idem := has["idempotentHint"]
				_, ro := has["readOnlyHint"]
				_, destructive := has["destructiveHint"]
				_, open := has["openWorldHint"]
				_, title := has["title"]
				switch {
				case idem != a.IdempotentHint:
					t.Errorf("%s %s %s: idempotentHint sent %v, want only when true: %s", mode, version, tool.Name, idem, raw)
				case !ro || !open:
					t.Errorf("%s %s %s: readOnlyHint and openWorldHint must always be sent: %v", mode, version, tool.Name, has)
				case destructive == a.ReadOnlyHint:
					t.Errorf("%s %s %s: destructiveHint sent %v, want exactly when not read-only", mode, version, tool.Name, destructive)
				case title:
					t.Errorf("%s %s %s: annotations.title repeats the title %q", mode, version, tool.Name, tool.Title)
				}
			}
		}
	}
}

func TestEncodeToolsGivesTheBytesAClientReceives(t *testing.T) {
	markup, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "markup",
		Description: "Reads <subject> -> a & b",
		InputSchema: map[string]any{"type": "object"},
		Fn:          func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	set := fixtureSet(t, exposure.Policy{}, markup)
	for _, mode := range []DeferMode{DeferNever, DeferAlways} {
		cfg := Config{Defer: mode}
		s, _ := newServer(t, cfg, set)
		_, raw := receivedList(t, s, testsupport.LegacyProtocol)
		listed, err := ListTools(t.Context(), cfg, set)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeTools(listed.Tools)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(raw) {
			t.Errorf("%s: EncodeTools gave\n%s\nthe client received\n%s", mode, got, raw)
		}
		if sdk, _ := json.Marshal(listed.Tools); len(sdk) <= len(raw) {
			t.Errorf("%s: the SDK's own encoding (%d bytes) is no larger than the server's (%d): is a false idempotentHint still sent?", mode, len(sdk), len(raw))
		}
	}
}

func TestTheSentListKeepsEveryFieldOfTheResultButTheToolsEncoding(t *testing.T) {
	res := &mcp.ListToolsResult{
		Meta:       mcp.Meta{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fisk-mcp"}},
		Cacheable:  mcp.Cacheable{CacheScope: "public"},
		NextCursor: "next",
		Tools:      []*mcp.Tool{{Name: "t", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{}}},
	}
	wire, err := onTheWire(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sdk, sent map[string]any
	for _, c := range []struct {
		v    any
		into *map[string]any
	}{{res, &sdk}, {wire, &sent}} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, c.into); err != nil {
			t.Fatal(err)
		}
	}
	tools := sent["tools"].([]any)
	if a := tools[0].(map[string]any)["annotations"]; len(a.(map[string]any)) != 1 {
		t.Errorf("annotations sent as %v, want readOnlyHint alone", a)
	}
	delete(sdk, "tools")
	delete(sent, "tools")
	if fmt.Sprint(sdk) != fmt.Sprint(sent) {
		t.Errorf("the sent result is %v, the SDK's %v", sent, sdk)
	}
}
