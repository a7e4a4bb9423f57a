package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUsageErrorsSayWhatWasMeantInFourLines: a command line that does not
// parse gets the error, a guess at what was meant, one line of usage and
// where the help is, never the whole help, and exit code 1.
func TestUsageErrorsSayWhatWasMeantInFourLines(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"mistyped flag", []string{"serve", "--read-only-tags", "impact:ro", app},
			"fisk-mcp: error: unknown flag --read-only-tags (did you mean --read-only-tag?)\nusage: fisk-mcp serve [flags] APP...\nsee fisk-mcp serve --help\n"},
		{"unknown flag, nothing near", []string{"tools", "--bogus", app},
			"fisk-mcp: error: unknown flag --bogus\nusage: fisk-mcp tools [flags] APP...\nsee fisk-mcp tools --help\n"},
		{"another command's flag", []string{"config", "claude-code", "--stateless", app},
			"fisk-mcp: error: fisk-mcp config does not take --stateless (the clients it configures start fisk-mcp serve over stdio); it is a flag of fisk-mcp serve\nusage: fisk-mcp config [flags] CLIENT APP...\nsee fisk-mcp config --help\n"},
		{"mistyped command", []string{"sevre", app},
			"fisk-mcp: error: unknown command \"sevre\" (did you mean serve?)\nusage: fisk-mcp COMMAND [flags] ...\nsee fisk-mcp --help\n"},
		{"duration without a unit", []string{"serve", "--timeout", "10", app},
			"fisk-mcp: error: --timeout 10: give a duration with its unit, such as 10s or 2m\nusage: fisk-mcp serve [flags] APP...\nsee fisk-mcp serve --help\n"},
		{"number that is not one", []string{"serve", "--concurrency", "many", app},
			"fisk-mcp: error: --concurrency many: give a whole number, such as 4\nusage: fisk-mcp serve [flags] APP...\nsee fisk-mcp serve --help\n"},
		{"missing client", []string{"config"},
			"fisk-mcp: error: required argument 'client' not provided\nusage: fisk-mcp config [flags] CLIENT APP...\nsee fisk-mcp config --help\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := newCLI(context.Background(), &stdout, &stderr)
			c.dryRun = true
			if code := c.run(tc.args); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if stderr.String() != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q", stdout.String())
			}
		})
	}
}

// TestACommandsErrorIsNotAUsageError: what a command finds when it runs is
// reported alone, without usage.
func TestACommandsErrorIsNotAUsageError(t *testing.T) {
	var stderr bytes.Buffer
	c := newCLI(context.Background(), &bytes.Buffer{}, &stderr)
	c.dryRun = true
	if code := c.run([]string{"serve", "--include", "(", "/no/such/app"}); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "fisk-mcp: error: ") || strings.Contains(got, "usage:") {
		t.Errorf("stderr = %q", got)
	}
}
