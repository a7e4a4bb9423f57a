package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defers reports whether a server built with cfg lists set deferred: always
// with DeferAlways, never with DeferNever, and with DeferAuto (the default)
// when more than cfg.DeferThreshold tools are served. It is the decision
// New and Publish take, for callers that describe a set without serving it.
func Defers(cfg Config, set *exposure.ToolSet) bool {
	switch cfg.Defer {
	case DeferAlways:
		return true
	case DeferNever:
		return false
	}
	threshold := cfg.DeferThreshold
	if threshold <= 0 {
		threshold = DefaultDeferThreshold
	}
	return served(set) > threshold
}

// ServedCount is the number of tools of set a server serves: its
// MCP-exposable tools, listed or, deferred, reached through the discovery
// tools.
func ServedCount(set *exposure.ToolSet) int { return served(set) }

// ListTools returns the tools/list result a client of a server built with
// cfg receives for set, deferred or in full as cfg decides (set cfg.Defer
// to DeferAlways or DeferNever to see one mode). The answer is not
// rebuilt here: ListTools serves set with a server of its own and asks it
// over an in-memory session, so the descriptors, their order and the
// result's fields are exactly those a real client gets. cfg.Logger is
// replaced: the server lives only for the question and logs nothing.
func ListTools(ctx context.Context, cfg Config, set *exposure.ToolSet) (*mcp.ListToolsResult, error) {
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(cfg, exposure.NewCurrent(set))
	if err != nil {
		return nil, err
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("server: listing the tools in memory: %w", err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "fisk-mcp-list", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("server: listing the tools in memory: %w", err)
	}
	defer cs.Close()
	res := &mcp.ListToolsResult{Tools: []*mcp.Tool{}}
	params := &mcp.ListToolsParams{}
	for {
		page, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("server: listing the tools in memory: %w", err)
		}
		res.Tools = append(res.Tools, page.Tools...)
		res.Cacheable = page.Cacheable
		if page.NextCursor == "" {
			return res, nil
		}
		params.Cursor = page.NextCursor
	}
}
