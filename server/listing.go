package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// listing is what tools/list answers for one published set, in list order.
// A full list is every served tool's descriptor, by name, in pages of the
// SDK's page size; a deferred one is the fixed list, one page.
type listing struct {
	deferred bool
	tools    []*mcp.Tool
	// encoded is the wire encoding of each listed descriptor that has
	// one (see registration.wire).
	encoded map[*mcp.Tool]json.RawMessage
	// set is the set listed; callers are its versions for the callers of
	// a policy (see forCaller), which are private: they vary by who asks.
	set     *exposure.ToolSet
	callers callerListings
	private bool
}

// listingOf is the listing of want, the registrations of a set. A full
// list holds every listed descriptor in name order, the order the SDK
// lists its tools in. A deferred list holds the discovery tools in their
// fixed order, then the ai:no_defer tools by name, each in full. Either
// depends on nothing but the set, so every session and transport gets the
// same list.
func listingOf(want map[string]registration, deferred bool) *listing {
	l := &listing{deferred: deferred, tools: []*mcp.Tool{}, encoded: map[*mcp.Tool]json.RawMessage{}}
	add := func(r registration) {
		l.tools = append(l.tools, r.listed)
		if r.wire != nil {
			l.encoded[r.listed] = r.wire
		}
	}
	if deferred {
		for _, name := range discovery.Names() {
			add(want[name])
		}
	}
	for _, name := range sortedNames(want) {
		if r := want[name]; r.listed != nil && !(deferred && discovery.Is(name)) {
			add(r)
		}
	}
	return l
}

// listMiddleware answers tools/list from the listing of the set in force
// (see register), in the server's own encoding (see wireAnnotations). The
// SDK holds every tool for dispatch only (see dispatchDescriptor), so its
// own answer would show no descriptor; every served tool stays registered
// with it, so a call, of a listed tool or a deferred one, takes the SDK's
// own path (including its elicitation on older protocols).
func (s *Server) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		l := s.listing.Load()
		if method != "tools/list" || l == nil {
			return next(ctx, method, req)
		}
		cursor := ""
		if lr, ok := req.(*mcp.ListToolsRequest); ok && lr.Params != nil {
			cursor = lr.Params.Cursor
		}
		res, err := l.forCaller(s.accessOf(req.GetExtra())).page(cursor, listPageSize)
		if err != nil {
			return nil, err
		}
		return onTheWire(res, l.encoded)
	}
}

// listPageSize is the most tools one page of a full list holds: the SDK's
// page size, which New leaves at its default.
const listPageSize = mcp.DefaultPageSize

// page is the tools/list result for cursor. A full list is paged as the
// SDK pages its own tools: from the first name after the cursor's, at most
// size tools, with a next cursor (see encodeCursor) when more follow; a
// cursor this server did not issue is invalid params. The deferred list is
// one page and issues no cursor, so it takes none.
func (l *listing) page(cursor string, size int) (*mcp.ListToolsResult, error) {
	res := &mcp.ListToolsResult{Tools: l.tools, Cacheable: mcp.Cacheable{CacheScope: "public"}}
	if l.private {
		res.CacheScope = "private"
	}
	if l.deferred {
		if cursor != "" {
			// This one belongs to a list from before the mode changed.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: the tool list changed; list the tools again from the start"}
		}
		return res, nil
	}
	if cursor != "" {
		last, err := decodeCursor(cursor)
		if err != nil {
			return nil, err
		}
		res.Tools = l.tools[sort.Search(len(l.tools), func(i int) bool { return l.tools[i].Name > last }):]
	}
	if len(res.Tools) > size {
		res.Tools = res.Tools[:size]
		res.NextCursor = encodeCursor(res.Tools[size-1].Name)
	}
	return res, nil
}

// A cursor is fisk-mcp's own, opaque to clients: base64url (unpadded) of
// cursorPrefix and the name of the last tool of the page before. It names
// a place in the name order rather than an index, so a cursor still
// resumes at the right name after a republish, and a replica with the same
// set resumes another's. The prefix versions it: a cursor of another
// format, the SDK's included, is refused as invalid params rather than
// misread.
const cursorPrefix = "tools.v1:"

// maxCursorBytes bounds the cursors decoded: a tool name is short, and a
// client's cursor is the client's to choose.
const maxCursorBytes = 1024

// errBadCursor refuses a cursor this server did not issue.
var errBadCursor = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: the cursor is not one this server issued; list the tools again from the start, without a cursor"}

func encodeCursor(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + name))
}

// decodeCursor returns the name a cursor resumes after, or errBadCursor.
func decodeCursor(cursor string) (string, error) {
	if len(cursor) > maxCursorBytes {
		return "", errBadCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", errBadCursor
	}
	name, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok || name == "" || !utf8.ValidString(name) {
		return "", errBadCursor
	}
	return name, nil
}
