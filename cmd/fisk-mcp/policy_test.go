package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

const viewersPolicy = "@id(\"viewers-read-only\")\npermit (principal in Group::\"viewers\", action, resource) when { resource.read_only };\n"

func TestPolicyFlagsBecomeTheServersPolicyAndTheClaimsKept(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	file := writeFile(t, dir, "p.cedar", viewersPolicy, 0o600)
	c, _, err := parse(t, "serve", "--http", "127.0.0.1:0", "--oauth-issuer", "https://auth.example.com/", "--policy", file, "--policy-groups-claim", "roles", app)
	if err != nil {
		t.Fatal(err)
	}
	sp := c.planned.Serving
	if p := sp.Server.Policy.Load(); p == nil || p.File() != file {
		t.Fatalf("the server's policy is %v, want %s", p, file)
	}
	if got := sp.HTTP.OAuth.Claims; !slices.Equal(got, []string{"email", "preferred_username", "roles"}) {
		t.Errorf("claims kept = %v", got)
	}
	if c, _, err := parse(t, "serve", app); err != nil || c.planned.Serving.Server.Policy != nil {
		t.Errorf("without --policy: %v, policy %v", err, c.planned.Serving.Server.Policy)
	}
}

func TestPolicySettingsThatCannotWorkAreRefused(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	bad := writeFile(t, dir, "bad.cedar", "@id(\"typo\")\npermit (principal, action, resource) when { resource.readonly };\n", 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"claim without a policy", []string{"serve", "--policy-groups-claim", "roles", app}, "add --policy"},
		{"a policy that does not fit the schema", []string{"serve", "--policy", bad, app}, `"typo" (line 1)`},
		{"a missing policy file", []string{"serve", "--policy", dir + "/none.cedar", app}, "none.cedar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parse(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestPolicyCheckPrintsWhatACallerMayListAndCall(t *testing.T) {
	bin, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	dir := t.TempDir()
	file := writeFile(t, dir, "p.cedar", viewersPolicy, 0o600)
	bob := writeFile(t, dir, "bob.json", `{"iss":"https://auth.example.com/","sub":"bob","groups":["viewers"]}`, 0o600)
	var stdout, stderr bytes.Buffer
	c := newCLI(context.Background(), &stdout, &stderr)
	if _, err := c.app.Parse([]string{"policy", "check", "--policy", file, "--as", bob, bin}); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if got := stdout.String(); !strings.Contains(got, "caller https://auth.example.com/#bob\ncalls (2): echo env\n") {
		t.Errorf("policy check printed:\n%s", got)
	}
}
