package main

import (
	"encoding/json"
	"fmt"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/listing"
	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/server"
)

func (c *cli) runTools(*fisk.ParseContext) error {
	p := c.tools
	if err := p.Load(); err != nil {
		return err
	}
	c.planned = p
	if c.dryRun {
		return nil
	}
	l := plan.NewLoader(p)
	set, err := l.Load(c.ctx)
	if err != nil {
		return err
	}
	for _, w := range set.Warnings() {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	listings := listing.Tools(set, l.Apps)
	safety := listing.Assess(set, l.Policy)
	env := listing.Environment(set, l.Apps, l.Env)
	deferral, err := listing.Weigh(c.ctx, server.Config{Defer: p.Defer, DeferThreshold: p.DeferThreshold}, set)
	if err != nil {
		return err
	}
	if c.toolsJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tools": listings, "deferral": deferral, "environment": env, "safety": safety})
	}
	if err := listing.WriteTable(c.stdout, listings); err != nil {
		return err
	}
	if err := safety.Write(c.stdout); err != nil {
		return err
	}
	if err := deferral.Write(c.stdout); err != nil {
		return err
	}
	return env.Write(c.stdout)
}
