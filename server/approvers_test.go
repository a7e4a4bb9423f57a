package server

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/policy"
)

// fourEyesPolicy is docs/teams.md's four-eyes example.
const fourEyesPolicy = `
@id("ops-approve")
permit (principal in Group::"ops", action == Action::"approve", resource);

@id("not-your-own")
forbid (principal, action == Action::"approve", resource)
when { context.caller == principal };
`

func TestWhoMayApproveOnTheSignedInPage(t *testing.T) {
	const iss = "https://auth.example.com/"
	alice := &identity.Caller{Issuer: iss, Subject: "alice", Claims: map[string]any{"groups": []any{"dev"}}}
	bob := &identity.Caller{Issuer: iss, Subject: "bob", Claims: map[string]any{"groups": []any{"ops"}}}
	p, err := policy.Parse("four-eyes.cedar", []byte(fourEyesPolicy), policy.Claims{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		pol      *policy.Current
		approver *identity.Caller
		callerID string
		tool     string
		want     bool
	}{
		{"without a policy, anyone signed in approves another's call", nil, alice, iss + "#bob", "touch", true},
		{"without a policy, nobody approves their own call", nil, alice, iss + "#alice", "touch", false},
		{"without a policy, a call without a caller is approved by no one", nil, alice, "", "touch", false},
		{"the policy lets ops approve another's call", policy.NewCurrent(p), bob, iss + "#alice", "touch", true},
		{"the policy forbids ops its own call", policy.NewCurrent(p), bob, iss + "#bob", "touch", false},
		{"the policy gives others nothing", policy.NewCurrent(p), alice, iss + "#bob", "touch", false},
		{"a tool no longer served is approved by no one", policy.NewCurrent(p), bob, iss + "#alice", "gone", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newServer(t, Config{Policy: c.pol}, fixtureSet(t, exposure.Policy{}))
			if got := s.mayApprove(c.approver, c.callerID, c.tool); got != c.want {
				t.Errorf("mayApprove(%s, %q, %s) = %v, want %v", c.approver.Subject, c.callerID, c.tool, got, c.want)
			}
		})
	}
}
