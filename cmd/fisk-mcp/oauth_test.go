package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

func TestOAuthFlagsBecomeTheHTTPConfig(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	t.Setenv(execrunner.TokenEnvVar, "")
	c, _, err := parse(t, "serve", "--http", "0.0.0.0:0", "--oauth-issuer", "https://auth.example.com/",
		"--oauth-resource", "https://mcp.example.com/mcp", "--oauth-scope", "tools", "--oauth-scope", "admin", app)
	if err != nil {
		t.Fatal(err)
	}
	o := c.planned.Serving.HTTP.OAuth
	if o.Issuer != "https://auth.example.com/" || o.Resource != "https://mcp.example.com/mcp" || !slices.Equal(o.Scopes, []string{"tools", "admin"}) || c.planned.Serving.HTTP.Token != "" {
		t.Errorf("OAuth %+v, token %q", o, c.planned.Serving.HTTP.Token)
	}
}

func TestOAuthSettingsThatCannotWorkAreRefusedSayingWhatToDo(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	token := writeFile(t, dir, "token", strings.Repeat("t", 32), 0o600)
	issuer := []string{"--oauth-issuer", "https://auth.example.com/"}
	cases := []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"issuer without http", "", append([]string{"serve"}, issuer...), []string{"--oauth-issuer only applies to streamable HTTP"}},
		{"resource without issuer", "", []string{"serve", "--http", ":0", "--oauth-resource", "https://mcp.example.com/mcp"}, []string{"--oauth-resource", "add --oauth-issuer"}},
		{"issuer with a token file", "", append([]string{"serve", "--http", ":0", "--token-file", token}, issuer...), []string{"--oauth-issuer and --token-file", "remove one"}},
		{"issuer with the token variable", strings.Repeat("e", 32), append([]string{"serve", "--http", ":0"}, issuer...), []string{execrunner.TokenEnvVar, "unset"}},
		{"plain http issuer off loopback", "", []string{"serve", "--http", ":0", "--oauth-issuer", "http://auth.example.com/"}, []string{"--oauth-issuer", "use https"}},
		{"resource with a fragment", "", append([]string{"serve", "--http", ":0", "--oauth-resource", "https://mcp.example.com/mcp#x"}, issuer...), []string{"resource", "without query or fragment"}},
		{"scope with a quote", "", append([]string{"serve", "--http", ":0", "--oauth-scope", `a"b`}, issuer...), []string{"scope", "without quotes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(execrunner.TokenEnvVar, tc.env)
			_, _, err := parse(t, append(tc.args, filepath.Clean(app))...)
			if err == nil {
				t.Fatalf("accepted %v", tc.args)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
