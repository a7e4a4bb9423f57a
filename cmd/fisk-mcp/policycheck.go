package main

import (
	"encoding/json"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/policy"
)

// policyCheck is the policy check command's settings.
type policyCheck struct {
	sel      *plan.Plan
	file, as string
	claims   policy.Claims
	json     bool
}

func (c *cli) registerPolicy(app *fisk.Application) {
	pc := &policyCheck{sel: plan.New(false)}
	cmd := app.Command("policy", "Check a --policy file").Command("check", "Print what a caller may list, call and approve of the apps' tools under a Cedar policy").Action(func(*fisk.ParseContext) error { return c.runPolicyCheck(pc) })
	cmd.Flag("policy", "The Cedar policy file (docs/teams.md)").PlaceHolder("FILE").Required().StringVar(&pc.file)
	cmd.Flag("as", "The caller: a JSON file of its token's claims (iss, sub, groups, email, ...), or local or static").PlaceHolder("CLAIMS.json").Required().StringVar(&pc.as)
	cmd.Flag("policy-groups-claim", "The token claim holding the caller's groups (default groups)").PlaceHolder("CLAIM").StringVar(&pc.claims.Groups)
	cmd.Flag("policy-email-claim", "The token claim holding the caller's email (default email)").PlaceHolder("CLAIM").StringVar(&pc.claims.Email)
	cmd.Flag("policy-username-claim", "The token claim holding the caller's user name (default preferred_username)").PlaceHolder("CLAIM").StringVar(&pc.claims.Username)
	cmd.Flag("json", "Print JSON for machines instead of text").UnNegatableBoolVar(&pc.json)
	pc.sel.Register(cmd)
}

func (c *cli) runPolicyCheck(pc *policyCheck) error {
	p, err := policy.Load(pc.file, pc.claims)
	if err != nil {
		return err
	}
	caller, err := p.ReadCaller(pc.as)
	if err != nil {
		return err
	}
	if err := pc.sel.Load(); err != nil {
		return err
	}
	set, err := plan.NewLoader(pc.sel).Load(c.ctx)
	if err != nil {
		return err
	}
	rights := p.Check(caller, set.Tools())
	if pc.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rights)
	}
	return rights.Write(c.stdout)
}
