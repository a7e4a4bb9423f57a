package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Tool is one served tool as metrics label it: its name and its kind
// (command, in-process, ...), both from the set in force.
type Tool struct {
	Name, Kind string
}

// toolTable holds the per-tool counts behind the per-tool counters. The
// counters are observed from it at each collection, so a tool a reload
// removed is no longer reported: its series end, where a synchronous
// counter would report it for as long as the process lives.
type toolTable struct {
	mu             sync.Mutex
	byName         map[string]*toolCounts
	served, listed int64
}

type toolCounts struct {
	kind        string
	calls       map[string]int64 // by outcome
	bytes       int64
	truncations int64
}

func newToolTable() *toolTable {
	return &toolTable{byName: map[string]*toolCounts{Other: {kind: Other, calls: map[string]int64{}}}}
}

// SetTools makes tools the only names tool labels take (the served set
// and any tools of the server's own), served the number of tools the set
// serves and listed the number tools/list shows. The counts of a tool
// still served carry over; those of a tool no longer served are dropped.
func (t *Telemetry) SetTools(tools []Tool, served, listed int) {
	if t == nil {
		return
	}
	tt := t.tools
	tt.mu.Lock()
	defer tt.mu.Unlock()
	next := make(map[string]*toolCounts, len(tools)+1)
	next[Other] = tt.byName[Other]
	for _, tool := range tools {
		c, ok := tt.byName[tool.Name]
		if !ok || c.kind != tool.Kind {
			c = &toolCounts{kind: tool.Kind, calls: map[string]int64{}}
		}
		next[tool.Name] = c
	}
	tt.byName = next
	tt.served, tt.listed = int64(served), int64(listed)
}

// Call counts one tools/call of tool that ended with outcome (a result
// code of the caller's fixed vocabulary), and the output a command wrote:
// bytes in all, and whether the capture was truncated.
func (t *Telemetry) Call(tool, outcome string, bytes int64, truncated bool) {
	if t == nil {
		return
	}
	tt := t.tools
	tt.mu.Lock()
	c, ok := tt.byName[tool]
	if !ok {
		c = tt.byName[Other]
	}
	c.calls[outcome]++
	c.bytes += bytes
	if truncated {
		c.truncations++
	}
	tt.mu.Unlock()
}

// observe reports the table to the per-tool counters and the gauges.
func (tt *toolTable) observe(in *instruments) metric.Callback {
	return func(_ context.Context, o metric.Observer) error {
		tt.mu.Lock()
		defer tt.mu.Unlock()
		o.ObserveInt64(in.toolsServed, tt.served)
		o.ObserveInt64(in.toolsListed, tt.listed)
		for name, c := range tt.byName {
			tool := attribute.String(attrToolName, name)
			for outcome, n := range c.calls {
				o.ObserveInt64(in.calls, n, metric.WithAttributes(tool, attribute.String(attrKind, c.kind), attribute.String(attrOutcome, outcome)))
			}
			if c.bytes > 0 || len(c.calls) > 0 {
				o.ObserveInt64(in.outputBytes, c.bytes, metric.WithAttributes(tool))
				o.ObserveInt64(in.truncations, c.truncations, metric.WithAttributes(tool))
			}
		}
		return nil
	}
}
