package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// BenchmarkCallerIdentityCost is what a person's client pays per call for
// who they are: one tools/call of the fixture's echo (a real process)
// over loopback streamable HTTP, one call at a time on one session, with
// the shared static token, with an OAuth access token (RS256 with a
// 2048-bit key, ORY Hydra's default, the issuer's keys fetched once), and
// with the same token and a Cedar policy deciding the call. With
// FISK_MCP_BASELINE set, the binary it names is measured beside the one
// under test (bin=before, bin=after), as BenchmarkHTTP200ConcurrentCalls
// does.
//
// Each variant reports the processor time one call cost the server, where
// the token is checked, and the command it ran (server-cpu-us/call,
// command-cpu-us/call, read from /proc in 10 ms ticks), and each OAuth
// variant x-static and cpu-x-static: its time and its processor time per
// call over the static variant's on the same binary. On a busy machine the
// variants' runs, one after the other, differ by more than what a token
// costs; order=interleaved serves every variant at once and calls each in
// turn, so that all share the same moments, and reports each one's median
// time per call (BIN/AUTH-p50-us), processor time per call and ratios to
// static.
//
// The authorization server is a key served on loopback, signing tokens
// shaped like Hydra's (typ JWT, kid, client_id, scp, jti): the cost is the
// token's checking, which does not depend on who serves the key.
func BenchmarkCallerIdentityCost(b *testing.B) {
	iss := newBenchIssuer(b)
	const static = "a-static-bearer-token-for-benchmarks"
	dir := b.TempDir()
	tokenFile, policyFile := filepath.Join(dir, "token"), filepath.Join(dir, "team.cedar")
	if err := os.WriteFile(tokenFile, []byte(static+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	policy := `@id("viewers-read-only")
permit (principal in Group::"viewers", action in [Action::"list", Action::"call"], resource) when { resource.read_only };
`
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		b.Fatal(err)
	}
	oauth := []string{"--oauth-issuer", iss.url, "--oauth-scope", "tools"}
	variants := []struct {
		name  string
		flags []string
	}{
		{"static", []string{"--token-file", tokenFile}},
		{"oauth-rs256", oauth},
		{"oauth-rs256+policy", append([]string{"--policy", policyFile}, oauth...)},
	}
	type binary struct{ name, path string }
	bins := []binary{{"after", fiskMCP}}
	if base := os.Getenv(baselineEnv); base != "" {
		bins = []binary{{"before", base}, {"after", fiskMCP}}
	}
	// start serves one variant on one binary, makes the session's first
	// call (which fetches the issuer's keys), and returns the call and the
	// server's processor time so far.
	start := func(b *testing.B, bin string, flags []string, oauth bool) (call func(), cpu func() cpuUse) {
		url, pid := startBenchServer(b, bin, flags...)
		token := static
		if oauth {
			token = iss.token(b, url)
		}
		cs := connectBench(b, url, token)
		call = func() {
			res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "echo", Arguments: args("subject", "bench")})
			if err != nil || res.IsError {
				b.Fatalf("echo: %v %s", err, text(res))
			}
		}
		call()
		return call, (&load{pid: pid}).cpu
	}

	type cost struct{ wall, cpu time.Duration } // per call
	report := func(b *testing.B, prefix string, per, static cost, ok bool) {
		if ok {
			b.ReportMetric(float64(per.cpu)/float64(time.Microsecond), prefix+"cpu-us/call")
		}
		if static.wall > 0 && per != static {
			b.ReportMetric(float64(per.wall)/float64(static.wall), prefix+"x-static")
			if ok && static.cpu > 0 {
				b.ReportMetric(float64(per.cpu)/float64(static.cpu), prefix+"cpu-x-static")
			}
		}
	}

	statics := map[string]cost{} // by binary
	for _, v := range variants {
		for _, bin := range bins {
			b.Run(fmt.Sprintf("auth=%s/bin=%s", v.name, bin.name), func(b *testing.B) {
				call, cpu := start(b, bin.path, v.flags, v.name != "static")
				before := cpu()
				calls := 0
				for b.Loop() {
					call()
					calls++
				}
				used := cpu().since(before)
				n := time.Duration(calls)
				per := cost{b.Elapsed() / n, (used.server + used.command) / n}
				if used.ok {
					b.ReportMetric(float64(used.server/n)/float64(time.Microsecond), "server-cpu-us/call")
					b.ReportMetric(float64(used.command/n)/float64(time.Microsecond), "command-cpu-us/call")
				}
				if v.name == "static" {
					statics[bin.name] = per
				} else {
					report(b, "", per, statics[bin.name], used.ok)
				}
			})
		}
	}

	b.Run("order=interleaved", func(b *testing.B) {
		type arm struct {
			name   string
			call   func()
			cpu    func() cpuUse
			before cpuUse
			took   []time.Duration
		}
		var arms []*arm
		for _, bin := range bins {
			for _, v := range variants {
				call, cpu := start(b, bin.path, v.flags, v.name != "static")
				arms = append(arms, &arm{name: bin.name + "/" + v.name, call: call, cpu: cpu})
			}
		}
		for _, a := range arms {
			a.before = a.cpu()
		}
		for b.Loop() {
			for _, a := range arms {
				t := time.Now()
				a.call()
				a.took = append(a.took, time.Since(t))
			}
		}
		var static cost
		for i, a := range arms {
			used := a.cpu().since(a.before)
			slices.Sort(a.took)
			per := cost{a.took[len(a.took)/2], (used.server + used.command) / time.Duration(len(a.took))}
			if i%len(variants) == 0 {
				static = per
			}
			b.ReportMetric(float64(per.wall)/float64(time.Microsecond), a.name+"-p50-us")
			report(b, a.name+"-", per, static, used.ok)
		}
		b.ReportMetric(0, "ns/op")
	})
}

// benchIssuer is an authorization server's metadata and RS256 key,
// served on loopback.
type benchIssuer struct {
	url string
	key *rsa.PrivateKey
}

func newBenchIssuer(b *testing.B) *benchIssuer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	iss := &benchIssuer{url: srv.URL + "/", key: key}
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss.url, "jwks_uri": srv.URL + "/jwks", "authorization_endpoint": srv.URL + "/auth",
			"token_endpoint": srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "bench", Algorithm: "RS256", Use: "sig"}}})
	})
	return iss
}

// token is an access token for audience, of a viewer with the scope
// tools, valid for an hour.
func (iss *benchIssuer) token(b *testing.B, audience string) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: iss.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "bench"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(s).Claims(map[string]any{
		"iss": iss.url, "sub": "a3c1b6e2-viewer", "aud": []string{audience}, "client_id": "a3c1b6e2-viewer",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(), "jti": "4f1e2d3c-0b9a-4c8d-9e7f-6a5b4c3d2e1f",
		"scp": []string{"tools"}, "ext": map[string]any{}, "groups": []string{"viewers"},
	}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return tok
}

// startBenchServer starts bin serving the fixture on a free loopback port
// with the production log settings and the extra flags, and returns its
// endpoint and process ID.
func startBenchServer(b *testing.B, bin string, extra ...string) (string, int) {
	a := append([]string{"serve", "--log-format", "json", "--http", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(bin, append(a, fixtureBin)...)
	cmd.Env = append(os.Environ(), "FISK_MCP_TOKEN=")
	log := &testsupport.LogBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	rec := log.WaitRecords(b, "the endpoint", patience, func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "serving MCP over streamable HTTP" || r["level"] == "ERROR" {
				return r
			}
		}
		return nil
	})
	url, _ := rec["url"].(string)
	if !strings.HasSuffix(url, "/mcp") {
		b.Fatalf("%s announced no endpoint: %v", bin, rec)
	}
	return url, cmd.Process.Pid
}

// connectBench opens an SDK client session to url, sending token.
func connectBench(b *testing.B, url, token string) *mcp.ClientSession {
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil).
		Connect(b.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}
