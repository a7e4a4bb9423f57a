package main

import "github.com/choria-io/fisk"

func (c *cli) runServe(*fisk.ParseContext) error {
	p, _, err := c.serve.loadPlan(true)
	if err != nil {
		return err
	}
	c.planned = p
	return nil
}

func (c *cli) runTools(*fisk.ParseContext) error {
	p, _, err := c.tools.loadPlan(false)
	if err != nil {
		return err
	}
	c.planned = p
	return nil
}
