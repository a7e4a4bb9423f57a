package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
)

func model(flags ...*fisk.FlagModel) *fisk.ApplicationModel {
	return &fisk.ApplicationModel{Name: "app", FlagGroupModel: &fisk.FlagGroupModel{Flags: flags}}
}

func TestVariablesAskForWhatTheAppReadsFromItsEnvironment(t *testing.T) {
	m := model(
		&fisk.FlagModel{Name: "server", Envar: "APP_URL", Default: []string{"nats://localhost"}, Help: "Server"},
		&fisk.FlagModel{Name: "password", Envar: "APP_PASSWORD", Default: []string{"changeme"}},
		&fisk.FlagModel{Name: "auth", Envar: "APP_TOKEN"},
		&fisk.FlagModel{Name: "tlscert", Envar: "APP_CERT", PlaceHolder: "FILE"},
		&fisk.FlagModel{Name: "state", Envar: "APP_STATE", PlaceHolder: "DIR"},
		&fisk.FlagModel{Name: "color", Envar: "APP_COLOR", Boolean: true, Default: []string{"true"}},
		&fisk.FlagModel{Name: "region", Envar: "APP_REGION"},
		&fisk.FlagModel{Name: "trace", Envar: "APP_TRACE", Hidden: true},
		&fisk.FlagModel{Name: "context"},
		&fisk.FlagModel{Name: "help", Envar: "APP_HELP"},
	)
	got := Variables("app", m, []string{"region"})
	want := []Variable{
		{Name: "APP_URL", App: "app", Flag: "server", Help: "Server", Type: "string", Default: "nats://localhost"},
		{Name: "APP_PASSWORD", App: "app", Flag: "password", Type: "string", Sensitive: true},
		{Name: "APP_TOKEN", App: "app", Flag: "auth", Type: "string", Sensitive: true},
		{Name: "APP_CERT", App: "app", Flag: "tlscert", Type: "file"},
		{Name: "APP_STATE", App: "app", Flag: "state", Type: "directory"},
		{Name: "APP_COLOR", App: "app", Flag: "color", Type: "boolean", Default: "true"},
		{Name: "APP_REGION", App: "app", Flag: "region", Type: "string", Sensitive: true},
	}
	if !slices.EqualFunc(got, want, func(a, b Variable) bool { return a == b }) {
		t.Fatalf("Variables =\n%+v\nwant\n%+v", got, want)
	}
}

func TestMergeAsksForAVariableOnceAndKeepsItSensitive(t *testing.T) {
	a := []Variable{{Name: "SHARED", App: "a", Flag: "url", Type: "string", Default: "x"}}
	b := []Variable{{Name: "SHARED", App: "b", Flag: "secret", Type: "string", Sensitive: true}, {Name: "B_ONLY", App: "b", Type: "string"}}
	got := Merge(a, b)
	if len(got) != 2 || got[0].App != "a" || !got[0].Sensitive || got[0].Default != "" || got[1].Name != "B_ONLY" {
		t.Fatalf("Merge = %+v", got)
	}
}

// spec returns a valid spec of two copied apps of the same name and one
// installed app, over small files.
func spec(t *testing.T) Spec {
	t.Helper()
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return Spec{
		Name: "demo", Version: "1.2.3", Description: "Demo", Platform: Platform{"darwin", "arm64"},
		Server: file("fisk-mcp", "server"), ServerVersion: "v9.9.9",
		ServeArgs: []string{"--confirm-tag=ops:prod"},
		Apps: []App{
			{Path: file("one/tool", "first")},
			{Prefix: "b", Path: file("two/tool", "second")},
			{Path: "/opt/bin/installed", Installed: true},
		},
		Tools: []Tool{{Name: "status", Description: "Status"}, {Name: "deploy", Description: "Deploy", Gated: true}},
		Env: []Variable{
			{Name: "APP_PASSWORD", App: "tool", Flag: "password", Type: "string", Sensitive: true},
			{Name: "APP_URL", App: "tool", Flag: "server", Type: "string", Default: "nats://localhost"},
			{Name: "APP_COLOR", App: "tool", Flag: "color", Type: "boolean", Default: "true"},
		},
	}
}

func TestWriteIsReproducibleAndPacksTheServerAndTheCopiedApps(t *testing.T) {
	s := spec(t)
	var first, second bytes.Buffer
	if err := Write(&first, s); err != nil {
		t.Fatal(err)
	}
	if err := Write(&second, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatal("two writes of one spec differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(first.Bytes()), int64(first.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		wantMode := os.FileMode(0o755)
		if f.Name == ManifestName {
			wantMode = 0o644
		}
		if f.Mode().Perm() != wantMode || !f.Modified.Equal(epoch) {
			t.Errorf("%s: mode %v, time %v", f.Name, f.Mode(), f.Modified)
		}
	}
	if want := []string{ManifestName, ServerPath, "apps/tool", "apps/2/tool"}; !slices.Equal(names, want) {
		t.Fatalf("entries = %q, want %q", names, want)
	}
	r, err := zr.Open(ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(r)
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"serve", "--confirm-tag=ops:prod", "${__dirname}/apps/tool", "b=${__dirname}/apps/2/tool", "/opt/bin/installed"}
	if m.Server.MCPConfig.Command != "${__dirname}/server/fisk-mcp" || !slices.Equal(m.Server.MCPConfig.Args, wantArgs) {
		t.Errorf("mcp_config = %+v, want args %q", m.Server.MCPConfig, wantArgs)
	}
	if m.Server.MCPConfig.Env["APP_PASSWORD"] != "${user_config.APP_PASSWORD}" || !m.UserConfig["APP_PASSWORD"].Sensitive || m.UserConfig["APP_PASSWORD"].Default != "" {
		t.Errorf("the secret is not a sensitive user_config entry in env: %+v %+v", m.Server.MCPConfig.Env, m.UserConfig)
	}
	if !slices.Equal(m.Compatibility.Platforms, []string{"darwin"}) || m.Author.Name != "demo" {
		t.Errorf("manifest = %+v", m)
	}
	// The app's default is shown, not preset: the app computes it where
	// it runs; a checkbox starts as the app's default.
	if c := m.UserConfig["APP_URL"]; c.Default != "" || !strings.Contains(c.Description, "nats://localhost") {
		t.Errorf("APP_URL = %+v", c)
	}
	if c := m.UserConfig["APP_COLOR"]; c.Type != "boolean" || c.Default != true {
		t.Errorf("APP_COLOR = %+v", c)
	}
}

func TestValidateRefusesAPlatformFiskMCPDoesNotRunOn(t *testing.T) {
	s := spec(t)
	s.Platform = Platform{"windows", "amd64"}
	if err := s.Validate(); !errors.Is(err, ErrUnsupportedPlatform) {
		t.Fatalf("Validate = %v, want ErrUnsupportedPlatform", err)
	}
	s = spec(t)
	s.Version = "latest"
	if err := Write(io.Discard, s); err == nil {
		t.Fatal("a bundle without a semantic version was written")
	}
}

func TestCheckBinaryJudgesTheExecutableFormat(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := Platform{runtime.GOOS, runtime.GOARCH}
	if err := CheckBinary(exe, host); err != nil {
		t.Errorf("this test binary: %v", err)
	}
	other := Platform{runtime.GOOS, "riscv64"}
	if runtime.GOARCH == "riscv64" {
		other.Arch = "amd64"
	}
	if err := CheckBinary(exe, other); !errors.Is(err, ErrPlatformMismatch) {
		t.Errorf("for %s: %v, want ErrPlatformMismatch", other, err)
	}
	script := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckBinary(script, host); err != nil {
		t.Errorf("a script: %v", err)
	}
}

func TestTheLongDescriptionSaysHowGatedToolsAreApproved(t *testing.T) {
	s := Spec{Tools: []Tool{{Name: "rm", Gated: true}, {Name: "ls"}}}
	if d := s.longDescription(); !strings.Contains(d, "1 of them need a person's approval") || !strings.Contains(d, "refused") {
		t.Errorf("without browser approval: %q", d)
	}
	for _, args := range [][]string{{"--approval=browser"}, {"--approval", "elicit-or-browser"}} {
		s.ServeArgs = args
		if d := s.longDescription(); !strings.Contains(d, "asks in your browser") || strings.Contains(d, "refused") {
			t.Errorf("with %q: %q", args, d)
		}
	}
	s.Tools = s.Tools[1:]
	if d := s.longDescription(); strings.Contains(d, "approval") {
		t.Errorf("without gated tools: %q", d)
	}
}

func TestWriteRefusesWhatClaudeDesktopWouldSubstituteInTheCommandLine(t *testing.T) {
	copied := filepath.Join(t.TempDir(), "x${DESKTOP}")
	if err := os.WriteFile(copied, []byte("app"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Spec)
		named string // the value the error must name
	}{
		{"a flag naming a secret setting", func(s *Spec) { s.ServeArgs = append(s.ServeArgs, "--name=a${user_config.APP_PASSWORD}") }, "--name=a${user_config.APP_PASSWORD}"},
		{"instructions naming the home directory", func(s *Spec) { s.ServeArgs = append(s.ServeArgs, "--instructions=see ${HOME}") }, "--instructions=see ${HOME}"},
		{"an installed app's path", func(s *Spec) { s.Apps[2].Path = "/opt/${user_config.APP_PASSWORD}/tool" }, "/opt/${user_config.APP_PASSWORD}/tool"},
		{"a copied app's file name", func(s *Spec) { s.Apps[0].Path = copied }, copied},
		{"an app's prefix", func(s *Spec) { s.Apps[1].Prefix = "${__dirname}" }, "${__dirname}"},
		{"a variable's name", func(s *Spec) { s.Env[0].Name = "X${HOME}" }, "X${HOME}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t)
			tc.edit(&s)
			var out bytes.Buffer
			err := Write(&out, s)
			if !errors.Is(err, ErrSubstituted) || !strings.Contains(err.Error(), strconv.Quote(tc.named)) {
				t.Fatalf("Write = %v, want ErrSubstituted naming %q", err, tc.named)
			}
			if out.Len() != 0 {
				t.Errorf("%d bytes of a refused bundle were written", out.Len())
			}
		})
	}
}

func TestTheManifestSubstitutesOnlyTheBundleDirectoryAndTheSettings(t *testing.T) {
	s := spec(t)
	// A dollar or a brace alone is not a substitution.
	s.ServeArgs = append(s.ServeArgs, "--instructions=costs $5 {per call}")
	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := zr.Open(ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		t.Fatal(err)
	}
	for _, a := range append([]string{m.Server.MCPConfig.Command}, m.Server.MCPConfig.Args...) {
		if strings.Contains(strings.Replace(a, Dirname+"/", "", 1), "${") {
			t.Errorf("argument %q is substituted beyond the bundle's directory", a)
		}
	}
	for k, v := range m.Server.MCPConfig.Env {
		if v != "${user_config."+k+"}" {
			t.Errorf("env %s = %q, want only its setting", k, v)
		}
	}
}
