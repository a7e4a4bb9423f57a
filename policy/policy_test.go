package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/policy"
)

// tool is a served tool with the attributes a policy sees.
type tool struct {
	name, app       string
	tags            []string
	readOnly, destr bool
	gated           bool
}

func (t *tool) Name() string                                    { return t.name }
func (t *tool) Description() string                             { return t.name }
func (t *tool) ModelDescription() string                        { return t.name }
func (t *tool) InputSchema() map[string]any                     { return map[string]any{"type": "object"} }
func (t *tool) Prepare(json.RawMessage) (*exposure.Call, error) { return nil, fmt.Errorf("not run") }
func (t *tool) MCPExposable() bool                              { return true }
func (t *tool) A2AExposable() bool                              { return true }
func (t *tool) Behavior() exposure.Behavior {
	return exposure.Behavior{ReadOnly: t.readOnly, Destructive: t.destr}
}
func (t *tool) Source() string         { return "/bin/" + t.app }
func (t *tool) Title() string          { return t.name }
func (t *tool) Tags() []string         { return t.tags }
func (t *tool) Application() string    { return t.app }
func (t *tool) NeedsConfirm() bool     { return t.gated }
func (t *tool) ConfirmTrigger() string { return "" }

var (
	info   = &tool{name: "nats_stream_info", app: "nats", tags: []string{"stream"}, readOnly: true}
	rm     = &tool{name: "nats_stream_rm", app: "nats", tags: []string{"stream", "ai:confirm"}, destr: true, gated: true}
	add    = &tool{name: "nats_stream_add", app: "nats", tags: []string{"stream"}}
	dbInfo = &tool{name: "dbctl_status", app: "dbctl", readOnly: true}
)

// teams is the example policy of docs/teams.md: viewers list and call
// read-only tools; ops call everything.
const teams = `
@id("viewers-read-only")
permit (principal in Group::"viewers", action in [Action::"list", Action::"call"], resource)
when { resource.read_only };

@id("ops-everything")
permit (principal in Group::"ops", action, resource);

@id("alice-by-email")
permit (principal, action == Action::"list", resource)
when { principal has email && principal.email == "alice@example.com" && resource.application == "dbctl" };

@id("nobody-destroys-nats-locally")
forbid (principal == Caller::"local", action == Action::"call", resource)
when { resource.application == "nats" && resource.destructive };

@id("local-reads")
permit (principal == Caller::"local", action, resource) when { resource.read_only };
`

func mustParse(t *testing.T, src string, c policy.Claims) *policy.Policy {
	t.Helper()
	p, err := policy.Parse("teams.cedar", []byte(src), c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAllowed(t *testing.T) {
	p := mustParse(t, teams, policy.Claims{})
	viewer := p.User("https://auth.example.com#bob", map[string]any{"groups": []any{"viewers"}})
	ops := p.User("https://auth.example.com#carol", map[string]any{"groups": []any{"viewers", "ops"}})
	alice := p.User("https://auth.example.com#alice", map[string]any{"email": "alice@example.com"})
	nobody := p.User("https://auth.example.com#dave", nil)
	for _, c := range []struct {
		name   string
		caller *policy.Caller
		action policy.Action
		tool   *tool
		want   bool
	}{
		{"a caller no policy names is denied everything", nobody, policy.List, info, false},
		{"a viewer lists a read-only tool", viewer, policy.List, info, true},
		{"a viewer calls a read-only tool", viewer, policy.Call, info, true},
		{"a viewer does not list a destructive tool", viewer, policy.List, rm, false},
		{"a viewer does not call a writing tool", viewer, policy.Call, add, false},
		{"a group is a parent: ops calls a destructive tool", ops, policy.Call, rm, true},
		{"approve is never decided without the call's caller", ops, policy.Approve, rm, false},
		{"an email claim is read", alice, policy.List, dbInfo, true},
		{"the email rule gives nothing else", alice, policy.Call, dbInfo, false},
		{"a user without the email claim is not matched by an email rule", nobody, policy.List, dbInfo, false},
		{"the local caller reads", policy.Local(), policy.Call, info, true},
		{"the local caller does not write", policy.Local(), policy.Call, add, false},
		{"the static caller is not the local one", policy.Static(), policy.Call, info, false},
		{"an unknown action is denied", ops, policy.Action("delete"), rm, false},
		{"a nil caller is denied", nil, policy.List, info, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.Allowed(c.caller, c.action, c.tool); got != c.want {
				t.Errorf("Allowed(%v, %s, %s) = %v, want %v", c.caller, c.action, c.tool.name, got, c.want)
			}
		})
	}
}

// fourEyes is the four-eyes example of docs/teams.md.
const fourEyes = `
@id("ops-approve")
permit (principal in Group::"ops", action == Action::"approve", resource);
@id("viewers-approve-reads")
permit (principal in Group::"viewers", action == Action::"approve", resource) when { !resource.destructive };
@id("not-your-own")
forbid (principal, action == Action::"approve", resource) when { context.caller == principal };
`

func TestApprovesReadsTheCallsCaller(t *testing.T) {
	p := mustParse(t, teams+fourEyes, policy.Claims{})
	const aliceID, carolID = "https://auth.example.com#alice", "https://auth.example.com#carol"
	viewer := p.User("https://auth.example.com#bob", map[string]any{"groups": []any{"viewers"}})
	carol := p.User(carolID, map[string]any{"groups": []any{"ops"}})
	for _, c := range []struct {
		name     string
		approver *policy.Caller
		callerID string
		tool     *tool
		want     bool
	}{
		{"ops approves another's destructive call", carol, aliceID, rm, true},
		{"nobody approves their own call, ops included", carol, carolID, rm, false},
		{"a viewer does not approve a destructive call", viewer, aliceID, rm, false},
		{"a viewer approves another's harmless call", viewer, aliceID, add, true},
		{"a call of the static caller is another's", carol, policy.StaticID, rm, true},
		{"a call without a caller is approved by no one", carol, "", rm, false},
		{"a nil approver approves nothing", nil, aliceID, rm, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.Approves(c.approver, c.callerID, c.tool); got != c.want {
				t.Errorf("Approves(%v, %s, %s) = %v, want %v", c.approver, c.callerID, c.tool.name, got, c.want)
			}
		})
	}
	if p := mustParse(t, teams, policy.Claims{}); p.Approves(viewer, aliceID, info) {
		t.Error("approve is permitted although no policy says so")
	}
}

func TestAUserIsNeverTheLocalOrStaticCaller(t *testing.T) {
	p := mustParse(t, `permit (principal == Caller::"local", action, resource);`, policy.Claims{})
	// A subject cannot make itself "local": a user's identifier is issuer#subject.
	if !p.Allowed(policy.Local(), policy.Call, add) {
		t.Fatal("the local caller was denied")
	}
	if got := (p.User("https://auth.example.com#local", nil)).ID(); got == policy.LocalID {
		t.Fatalf("a user's ID is %q", got)
	}
	kindOnly := mustParse(t, `permit (principal, action, resource) when { principal.kind == "local" };`, policy.Claims{})
	if kindOnly.Allowed(kindOnly.User("https://a.example#local", nil), policy.Call, add) {
		t.Error("a user whose subject is \"local\" passed for the local caller")
	}
}

func TestConfiguredGroupsClaim(t *testing.T) {
	p := mustParse(t, teams, policy.Claims{Groups: "roles"})
	if p.Allowed(p.User("i#s", map[string]any{"groups": []any{"ops"}}), policy.Call, rm) {
		t.Error("the groups claim was read although the roles claim is configured")
	}
	if !p.Allowed(p.User("i#s", map[string]any{"roles": "ops"}), policy.Call, rm) {
		t.Error("a single-string roles claim did not make the caller a member of ops")
	}
	if got := strings.Join(p.Claims().Names(), ","); got != "email,preferred_username,roles" {
		t.Errorf("claims read = %s", got)
	}
}

func TestAClaimOfTheWrongTypeIsAbsent(t *testing.T) {
	p := mustParse(t, teams, policy.Claims{})
	if p.Allowed(p.User("i#alice", map[string]any{"email": []any{"alice@example.com"}}), policy.List, dbInfo) {
		t.Error("an email claim that is an array was read as the email")
	}
}

func TestBadPoliciesAreRefusedNamingThePolicy(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"syntax", `permit (principal, action, resource`, "teams.cedar"},
		{"unknown attribute", "@id(\"ok\")\npermit (principal, action, resource);\n@id(\"typo\")\npermit (principal, action, resource) when { resource.readonly };", `policy "typo" (line 3)`},
		{"unknown entity type", "permit (principal in Team::\"ops\", action, resource);", "line 1"},
		{"unknown action", "permit (principal, action == Action::\"delete\", resource);", "line 1"},
		{"optional claim read without has", "permit (principal, action, resource) when { principal.email == \"a@b\" };", "line 1"},
		{"empty", "// nothing\n", "no policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := policy.Parse("teams.cedar", []byte(c.src), policy.Claims{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestReloadKeepsThePolicyInForceWhenTheNewOneIsBad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.cedar")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`permit (principal, action == Action::"list", resource);`)
	p, err := policy.Load(path, policy.Claims{})
	if err != nil {
		t.Fatal(err)
	}
	cur := policy.NewCurrent(p)
	write(`permit (principal, action, resource) when { resource.nope };`)
	if err := cur.Reload(); err == nil {
		t.Fatal("a bad policy was accepted")
	}
	if cur.Load() != p {
		t.Fatal("a bad reload replaced the policy in force")
	}
	write(`permit (principal, action, resource);`)
	if err := cur.Reload(); err != nil {
		t.Fatal(err)
	}
	if !cur.Load().Allowed(policy.Local(), policy.Call, add) {
		t.Error("the reloaded policy is not in force")
	}
}

func TestCheckSaysWhatACallerMayListAndCall(t *testing.T) {
	p := mustParse(t, teams, policy.Claims{})
	claims := filepath.Join(t.TempDir(), "bob.json")
	if err := os.WriteFile(claims, []byte(`{"iss":"https://auth.example.com/","sub":"bob","groups":["viewers"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	bob, err := p.ReadCaller(claims)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := p.Check(bob, []exposure.Tool{info, rm, add}).Write(&out); err != nil {
		t.Fatal(err)
	}
	want := "caller https://auth.example.com/#bob\ncalls (1): nats_stream_info\nlists only (0): \ndenied (2 of 3 tools)\napproves others' calls (0): \n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	ops := mustParse(t, teams+fourEyes, policy.Claims{})
	carol := ops.User("https://auth.example.com#carol", map[string]any{"groups": []any{"ops"}})
	if got := ops.Check(carol, []exposure.Tool{info, rm, add}); !got.Tools[1].Approve || got.Tools[0].Approve || got.Tools[2].Approve {
		t.Errorf("ops's rights %+v: want approve on the gated %s only", got.Tools, rm.name)
	}
	if _, err := p.ReadCaller(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "local") {
		t.Errorf("a missing claims file: %v", err)
	}
	if c, err := p.ReadCaller("local"); err != nil || c.ID() != policy.LocalID {
		t.Errorf("--as local: %v, %v", c, err)
	}
}
