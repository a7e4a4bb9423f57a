package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// secretRedactor is the redactor the CLI builds when the scrubbed variable
// ANTHROPIC_API_KEY holds secret.
func secretRedactor(secret string) *execrunner.Redactor {
	return execrunner.NewRedactor(execrunner.SecretValues([]string{"ANTHROPIC_API_KEY=" + secret}, nil)...)
}

// promptCommand extracts the command line from an approval question.
func promptCommand(t *testing.T, question string) string {
	t.Helper()
	_, rest, ok := strings.Cut(question, "Command:\n    ")
	if !ok {
		t.Fatalf("question %q has no command", question)
	}
	line, _, ok := strings.Cut(rest, "\n\n")
	if !ok {
		t.Fatalf("question %q does not end its command line", question)
	}
	return line
}

// Quoting rewrites a quote, a backslash or a non-printing character, so a
// secret holding one is only recognised before quoting. The prompt, the log
// and the result must all hide it, and all show the same command text.
func TestSecretsThatQuotingRewritesAreRedactedInPromptLogAndResult(t *testing.T) {
	cases := []struct {
		name, secret, file string
	}{
		{"single quote", "sk'ant-SECRETVALUE1", "x-sk'ant-SECRETVALUE1"},
		{"backslash in an escaped word", `sk\ant-SECRETVALUE1`, "x\t-sk\\ant-SECRETVALUE1"},
		{"control character", "sk\x1bant-SECRETVALUE1", "x-sk\x1bant-SECRETVALUE1"},
		{"newline", "sk\nant-SECRETVALUE1", "x-sk\nant-SECRETVALUE1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, logs := newServer(t, Config{Redactor: secretRedactor(c.secret)}, fixtureSet(t, exposure.Policy{}))
			for _, version := range protocolVersions {
				t.Run(version, func(t *testing.T) {
					asked := make(chan string, 10)
					cs := connect(t, s, version, answering("accept", true, asked))
					path := filepath.Join(t.TempDir(), c.file)
					res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})
					if res.IsError {
						t.Fatalf("approved call failed: %s", text(res))
					}
					if !exists(t, path) {
						t.Fatal("the command did not run with the real, unredacted argument")
					}
					question := wait(t, asked, "the approval question")
					env := envelope(t, res)
					for what, s := range map[string]string{"question": question, "result": text(res)} {
						if strings.Contains(s, "SECRETVALUE1") {
							t.Errorf("the %s reveals the secret: %q", what, s)
						}
					}
					if !strings.Contains(env.Command, execrunner.Redacted) {
						t.Errorf("result command %q does not show the redaction", env.Command)
					}
					if got := promptCommand(t, question); got != env.Command {
						t.Errorf("prompt shows %q, result reports %q: the person must approve the command that is reported", got, env.Command)
					}
				})
			}
			records := logs.records("tool call")
			if len(records) == 0 {
				t.Fatal("no call was logged")
			}
			for _, rec := range records {
				argv, _ := rec["argv"].(string)
				if strings.Contains(argv, "SECRETVALUE1") || !strings.Contains(argv, execrunner.Redacted) {
					t.Errorf("logged argv %q, want the secret redacted", argv)
				}
			}
			if strings.Contains(logs.String(), "SECRETVALUE1") {
				t.Errorf("the log reveals the secret:\n%s", logs)
			}
		})
	}
}

// The log line of a call that ran is the command its result reports.
func TestLoggedArgvIsTheResultCommand(t *testing.T) {
	s, logs := newServer(t, Config{Redactor: secretRedactor("sk'ant-SECRETVALUE1")}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, modernVersion, nil)
	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "it's sk'ant-SECRETVALUE1 and\tmore"})
	if res.IsError {
		t.Fatalf("echo failed: %s", text(res))
	}
	env := envelope(t, res)
	records := logs.records("tool call")
	if len(records) != 1 || records[0]["argv"] != env.Command {
		t.Errorf("logged %v, want one record whose argv is %q", records, env.Command)
	}
	if strings.Contains(env.Command, "SECRETVALUE1") {
		t.Errorf("command %q reveals the secret", env.Command)
	}
}

// A call whose arguments fail validation logs only the tool name.
func TestInvalidCallLogsTheToolNameOnly(t *testing.T) {
	s, logs := newServer(t, Config{Redactor: secretRedactor("sk'ant-SECRETVALUE1")}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, modernVersion, nil)
	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "sk'ant-SECRETVALUE1", "bogus": 1})
	if !res.IsError {
		t.Fatalf("an invalid call succeeded: %s", text(res))
	}
	records := logs.records("tool call")
	if len(records) != 1 || records[0]["argv"] != "echo" || records[0]["result"] != "invalid_arguments" {
		t.Errorf("logged %v, want one invalid_arguments record with argv \"echo\"", records)
	}
}
