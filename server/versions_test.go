package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discoverBody is a server/discover request asking for version.
func discoverBody(version string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"` + version + `",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// rpcResponse reads one JSON-RPC response, sent as JSON or as one SSE event.
func rpcResponse(t *testing.T, resp *http.Response) (result struct {
	SupportedVersions []string `json:"supportedVersions"`
}, rpcErr *struct {
	Code int                                `json:"code"`
	Data mcp.UnsupportedProtocolVersionData `json:"data"`
}) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(body)))
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id"`) {
				body = []byte(data)
			}
		}
	}
	var msg struct {
		Result *struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
		Error *struct {
			Code int                                `json:"code"`
			Data mcp.UnsupportedProtocolVersionData `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("response %q (%d): %v", body, resp.StatusCode, err)
	}
	if msg.Result != nil {
		result.SupportedVersions = msg.Result.SupportedVersions
	}
	return result, msg.Error
}

func TestDiscoverAndTheUnsupportedVersionErrorNameTheSameVersions(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "stateful"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
			base, _ := serveHTTP(t, s, HTTPConfig{Stateless: stateless})

			disc, rpcErr := rpcResponse(t, post(t, base, discoverBody(modernVersion), map[string]string{"Mcp-Protocol-Version": modernVersion, "Mcp-Method": "server/discover"}))
			if rpcErr != nil || len(disc.SupportedVersions) == 0 {
				t.Fatalf("server/discover: error %+v, versions %v", rpcErr, disc.SupportedVersions)
			}
			if got := slices.Contains(disc.SupportedVersions, modernVersion); got != stateless {
				t.Errorf("server/discover lists %v; 2026-07-28 listed = %v, want %v", disc.SupportedVersions, got, stateless)
			}

			resp := post(t, base, discoverBody("v999.0.0"), map[string]string{"Mcp-Protocol-Version": "v999.0.0", "Mcp-Method": "server/discover"})
			_, rpcErr = rpcResponse(t, resp)
			if resp.StatusCode != http.StatusBadRequest || rpcErr == nil || rpcErr.Code != mcp.CodeUnsupportedProtocolVersion {
				t.Fatalf("discover for v999.0.0: status %d, error %+v; want 400 and -32022", resp.StatusCode, rpcErr)
			}
			if !slices.Equal(rpcErr.Data.Supported, disc.SupportedVersions) || rpcErr.Data.Requested != "v999.0.0" {
				t.Errorf("-32022 lists %v (requested %q); server/discover lists %v", rpcErr.Data.Supported, rpcErr.Data.Requested, disc.SupportedVersions)
			}

			// A header that disagrees with the body is still a mismatch.
			resp = post(t, base, discoverBody("v999.0.0"), map[string]string{"Mcp-Protocol-Version": modernVersion, "Mcp-Method": "server/discover"})
			if _, rpcErr = rpcResponse(t, resp); rpcErr == nil || rpcErr.Code != mcp.CodeHeaderMismatch {
				t.Errorf("discover for v999.0.0 under a %s header: error %+v, want a header mismatch", modernVersion, rpcErr)
			}
		})
	}
}
