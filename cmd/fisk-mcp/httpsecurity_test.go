package main

import (
	"github.com/fisk-mcp/fisk-mcp/execrunner"

	"slices"
	"strings"
	"testing"
)

func TestShortTokensAreRefusedSayingHowToMakeOne(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	cases := []struct {
		name, file, env string
		want            []string
	}{
		{"three-character file", "abc\n", "", []string{"--token-file", "3 characters", "at least 16", "openssl rand -hex 32"}},
		{"fifteen-character file", strings.Repeat("x", 15), "", []string{"15 characters", "at least 16"}},
		{"three-character environment", "", "abc", []string{execrunner.TokenEnvVar, "3 characters", "at least 16", "openssl rand -hex 32"}},
		{"fifteen characters padded to sixteen in the environment", "", " " + strings.Repeat("y", 15) + "\n", []string{execrunner.TokenEnvVar, "15 characters"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(execrunner.TokenEnvVar, c.env)
			args := []string{"serve", "--http", "0.0.0.0:0"}
			if c.file != "" {
				args = append(args, "--token-file", writeFile(t, t.TempDir(), "token", c.file, 0o600))
			}
			_, _, err := parse(t, append(args, app)...)
			if err == nil {
				t.Fatal("a short token was accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestTokensOfSixteenCharactersAreAcceptedWithoutTheirLineEnd(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	const token = "0123456789abcdef"
	cases := []struct{ name, file, env string }{
		{"file with a trailing newline", token + "\n", ""},
		{"file with a CRLF line end", token + "\r\n", ""},
		{"file without a line end", token, ""},
		{"environment with a trailing newline", "", token + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(execrunner.TokenEnvVar, c.env)
			args := []string{"serve", "--http", "0.0.0.0:0"}
			if c.file != "" {
				args = append(args, "--token-file", writeFile(t, t.TempDir(), "token", c.file, 0o600))
			}
			c, _, err := parse(t, append(args, app)...)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.planned.Serving.HTTP.Token; got != token {
				t.Errorf("token = %q, want %q", got, token)
			}
		})
	}
}

func TestAllowHostComesFromFlagsAndTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	for _, key := range []string{"allow_host: [file.example]", "allow_hosts: file.example"} {
		t.Run(key, func(t *testing.T) {
			cfg := writeFile(t, t.TempDir(), "c.yaml", "http: 127.0.0.1:0\n"+key+"\n", 0o600)
			c, _, err := parse(t, "serve", "--config", cfg, "--allow-host", "a.example", "--allow-host", "b.example:8443", app)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.planned.Serving.HTTP.AllowHosts, []string{"file.example", "a.example", "b.example:8443"}; !slices.Equal(got, want) {
				t.Errorf("allowed hosts = %v, want %v (the file's, then the flags')", got, want)
			}
		})
	}
}

func TestBadAllowHostIsRefusedSayingWhatToGive(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"a URL", []string{"serve", "--http", "127.0.0.1:0", "--allow-host", "https://mcp.example.com", app}, []string{`--allow-host "https://mcp.example.com"`, "host name", "without scheme"}},
		{"a path", []string{"serve", "--http", "127.0.0.1:0", "--allow-host", "mcp.example.com/mcp", app}, []string{"--allow-host", "host name"}},
		{"without http", []string{"serve", "--allow-host", "mcp.example.com", app}, []string{"--allow-host only applies to streamable HTTP"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parse(t, c.args...)
			if err == nil {
				t.Fatalf("accepted %v", c.args)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
