package execrunner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEnvironScrubsCredentialsAndAddsLLMFORMAT(t *testing.T) {
	base := []string{
		"HOME=/home/u", "ANTHROPIC_API_KEY=sk-ant-aaaaaaaa", "OPENAI_API_KEY=sk-bbbbbbbb",
		"GEMINI_API_KEY=g", "GOOGLE_API_KEY=g", "AWS_SECRET_ACCESS_KEY=x", "AWS_SESSION_TOKEN=x",
		"GITHUB_TOKEN=x", "GH_TOKEN=x", "FISK_MCP_TOKEN=x", "github_token=lower",
		"NATS_PASSWORD=app-secret", "NATS_URL=nats://h", "LLMFORMAT=0", "BROKEN",
	}
	got := Environ(base, []string{"NATS_PASSWORD"})
	want := []string{"HOME=/home/u", "NATS_URL=nats://h", "BROKEN", "LLMFORMAT=1"}
	if !slices.Equal(got, want) {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

func TestCredentialVarsCoverTheRequiredNames(t *testing.T) {
	for _, name := range []string{
		"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", TokenEnvVar,
	} {
		if !slices.Contains(CredentialVars, name) {
			t.Errorf("CredentialVars lacks %s", name)
		}
	}
}

func TestSecretValuesAreTheScrubbedValuesOfEightCharactersOrMore(t *testing.T) {
	base := []string{"OPENAI_API_KEY=sk-12345678", "GH_TOKEN=short", "MY_PASS=hunter2-hunter2", "HOME=/home/someone"}
	got := SecretValues(base, []string{"MY_PASS"})
	if want := []string{"sk-12345678", "hunter2-hunter2"}; !slices.Equal(got, want) {
		t.Fatalf("SecretValues = %q, want %q", got, want)
	}
}

// The child sees the scrubbed environment, LLMFORMAT=1 and a PWD naming the
// directory it runs in; what it prints of a secret it came to know anyway
// is redacted.
func TestRunGivesTheChildTheScrubbedEnvironment(t *testing.T) {
	dir := t.TempDir()
	base := append(os.Environ(),
		helperEnv+"=env", "PWD=/stale/from/the/server",
		"ANTHROPIC_API_KEY=sk-ant-secret-0001", "APP_PASSWORD=app-password-0002", "KEEP_ME=yes")
	scrub := []string{"APP_PASSWORD"}
	c := Command{
		Path:     os.Args[0],
		Env:      Environ(base, scrub),
		Dir:      dir,
		Redactor: NewRedactor(SecretValues(base, scrub)...),
	}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(res.Output), "\n")
	for _, absent := range []string{"ANTHROPIC_API_KEY=", "APP_PASSWORD="} {
		if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, absent) }) {
			t.Errorf("%s reached the child", absent)
		}
	}
	wd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, present := range []string{"LLMFORMAT=1", "KEEP_ME=yes", "PWD=" + dir, "cwd:" + wd} {
		if !slices.Contains(lines, present) {
			t.Errorf("%s missing from the child's view:\n%s", present, res.Output)
		}
	}
	if n := len(slices.DeleteFunc(lines, func(l string) bool { return !strings.HasPrefix(l, "PWD=") })); n != 1 {
		t.Errorf("%d PWD entries, want 1", n)
	}
}

func TestRunRedactsSecretsInOutputLongestFirst(t *testing.T) {
	c := helperCmd("echo", "short=abcdefgh", "long=abcdefgh-ijklmnop", "other=zzzzzzzz!")
	c.Redactor = NewRedactor("abcdefgh", "abcdefgh-ijklmnop", "zzzzzzzz")
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := "short=[redacted]\nlong=[redacted]\nother=[redacted]!\n"
	if res.Output != want {
		t.Fatalf("Output %q, want %q", res.Output, want)
	}
}

// serverDir takes a shorter way than os.Getwd but must give its answer,
// whatever $PWD holds.
func TestServerDirAgreesWithGetwd(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tt := range []struct{ name, pwd string }{
		{"PWD is the directory", dir},
		{"PWD unset", ""},
		{"PWD relative", "relative/path"},
		{"PWD through a symbolic link", link},
		{"PWD stale", t.TempDir()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PWD", tt.pwd)
			want, wantErr := os.Getwd()
			got, err := serverDir()
			if got != want || (err == nil) != (wantErr == nil) {
				t.Fatalf("serverDir() = %q, %v; os.Getwd() = %q, %v", got, err, want, wantErr)
			}
		})
	}
}
