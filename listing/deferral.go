package listing

import (
	"context"
	"fmt"
	"io"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// Deferral is whether a set's tools/list would be deferred under the
// settings given, and what tools/list weighs in each mode, as `fisk-mcp
// tools` prints it: a client pays for the list it gets in context (the
// model reads every definition) and some clients cap how many tools they
// take.
type Deferral struct {
	Mode      server.DeferMode `json:"mode"`      // --defer
	Threshold int              `json:"threshold"` // --defer-threshold, for mode auto
	Served    int              `json:"served"`    // the tools a client can call, listed or not
	Deferred  bool             `json:"deferred"`  // whether the settings defer the set
	// Lists weighs the tools/list result of each mode, whichever the
	// settings choose.
	Lists struct {
		Full     ListWeight `json:"full"`
		Deferred ListWeight `json:"deferred"`
	} `json:"tools_list"`
}

// ListWeight is one tools/list result: how many tools it holds and the
// bytes of their JSON, the "tools" array. The rest of the result differs
// by protocol version and server name (the 2026-07-28 result carries the
// server's name and version) and adds under 200 bytes.
type ListWeight struct {
	Tools int `json:"tools"`
	Bytes int `json:"bytes"`
}

// Weigh judges set under cfg's deferral settings and weighs both modes'
// tools/list from the answers of the server itself (server.ListTools),
// so the bytes are those a client receives, not an estimate.
func Weigh(ctx context.Context, cfg server.Config, set *exposure.ToolSet) (Deferral, error) {
	d := Deferral{Mode: cfg.Defer, Threshold: cfg.DeferThreshold, Served: server.ServedCount(set), Deferred: server.Defers(cfg, set)}
	if d.Mode == "" {
		d.Mode = server.DeferAuto
	}
	if d.Threshold <= 0 {
		d.Threshold = server.DefaultDeferThreshold
	}
	for _, m := range []struct {
		mode server.DeferMode
		into *ListWeight
	}{{server.DeferNever, &d.Lists.Full}, {server.DeferAlways, &d.Lists.Deferred}} {
		c := cfg
		c.Defer = m.mode
		res, err := server.ListTools(ctx, c, set)
		if err != nil {
			return d, err
		}
		b, err := server.EncodeTools(res.Tools)
		if err != nil {
			return d, fmt.Errorf("encoding the %s tools/list: %w", m.mode, err)
		}
		*m.into = ListWeight{Tools: len(res.Tools), Bytes: len(b)}
	}
	return d, nil
}

// Write prints d for people: the decision and why, then both weights.
func (d Deferral) Write(w io.Writer) error {
	why := fmt.Sprintf("--defer %s", d.Mode)
	if d.Mode == server.DeferAuto {
		rel := "at most"
		if d.Served > d.Threshold {
			rel = "more than"
		}
		why = fmt.Sprintf("--defer auto: %d served, %s the threshold of %d", d.Served, rel, d.Threshold)
	}
	state := "listed in full"
	if d.Deferred {
		state = "deferred"
	}
	_, err := fmt.Fprintf(w, "tools/list: %s (%s)\n  full:     %d tools, %d bytes\n  deferred: %d tools, %d bytes\n",
		state, why, d.Lists.Full.Tools, d.Lists.Full.Bytes, d.Lists.Deferred.Tools, d.Lists.Deferred.Bytes)
	return err
}
