package server

import (
	"errors"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMethodsOfUndeclaredCapabilitiesAreNotFound(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)
			//lint:ignore SA1019 the server must not declare logging to clients that still know it
			if caps := cs.InitializeResult().Capabilities; caps.Prompts != nil || caps.Resources != nil || caps.Logging != nil || caps.Completions != nil {
				t.Fatalf("capabilities = %+v, want tools only", caps)
			}
			calls := map[string]func() error{
				"prompts/list": func() error { _, err := cs.ListPrompts(t.Context(), nil); return err },
				"prompts/get": func() error {
					_, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "p"})
					return err
				},
				"resources/list": func() error { _, err := cs.ListResources(t.Context(), nil); return err },
				"resources/templates/list": func() error {
					_, err := cs.ListResourceTemplates(t.Context(), nil)
					return err
				},
				"resources/read": func() error {
					_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///etc/passwd"})
					return err
				},
				"completion/complete": func() error {
					_, err := cs.Complete(t.Context(), &mcp.CompleteParams{
						Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "p"},
						Argument: mcp.CompleteParamsArgument{Name: "a", Value: "b"},
					})
					return err
				},
			}
			if version == legacyVersion {
				calls["logging/setLevel"] = func() error {
					//lint:ignore SA1019 a legacy client may still send it
					return cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"})
				}
			}
			for method, call := range calls {
				var werr *jsonrpc.Error
				if err := call(); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("%s: err = %v, want a -32601 method not found", method, err)
				}
			}
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Errorf("tools/list: %v", err)
			}
		})
	}
}
