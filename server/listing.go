package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/gob"
	"encoding/json"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listing is what tools/list answers for one published set, in list order.
// A full list is every served tool's descriptor, by name, in pages as the
// SDK pages its own list; a deferred one is the fixed list, one page.
type listing struct {
	deferred bool
	tools    []*mcp.Tool
	// encoded is the wire encoding of each listed descriptor that has
	// one (see registration.wire).
	encoded map[*mcp.Tool]json.RawMessage
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
		for _, d := range discoveryTools {
			add(want[d.name])
		}
	}
	for _, name := range sortedNames(want) {
		if r := want[name]; r.listed != nil && !(deferred && isDiscovery(name)) {
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
		res, err := l.page(cursor, listPageSize)
		if err != nil {
			return nil, err
		}
		return onTheWire(res, l.encoded)
	}
}

// listPageSize is the most tools one page of a full list holds: the SDK's
// page size, which New leaves at its default.
const listPageSize = mcp.DefaultPageSize

// page is the tools/list result for cursor. A full list is paged exactly
// as the SDK pages its own tools: from the first name after the cursor's,
// at most size tools, with a next cursor, in the SDK's own encoding, when
// more follow; a cursor that does not decode is invalid params. The
// deferred list is one page and issues no cursor, so it takes none.
func (l *listing) page(cursor string, size int) (*mcp.ListToolsResult, error) {
	res := &mcp.ListToolsResult{Tools: l.tools, Cacheable: mcp.Cacheable{CacheScope: "public"}}
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
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: the cursor is not one this server issued; list the tools again from the start"}
		}
		res.Tools = l.tools[sort.Search(len(l.tools), func(i int) bool { return l.tools[i].Name > last }):]
	}
	if len(res.Tools) > size {
		res.Tools = res.Tools[:size]
		next, err := encodeCursor(res.Tools[size-1].Name)
		if err != nil {
			return nil, err
		}
		res.NextCursor = next
	}
	return res, nil
}

// pageToken is the SDK's cursor: the name of the last tool of a page,
// gob-encoded, then base64url. A cursor the SDK issued therefore resumes
// here, and one issued here resumes with the SDK (gob numbers types per
// process, so the bytes for one place can differ, as the SDK's own do
// between processes).
type pageToken struct {
	LastUID string
}

func encodeCursor(name string) (string, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(pageToken{LastUID: name}); err != nil {
		return "", err
	}
	return base64.URLEncoding.EncodeToString(buf.Bytes()), nil
}

func decodeCursor(cursor string) (string, error) {
	raw, err := base64.URLEncoding.DecodeString(cursor)
	if err != nil {
		return "", err
	}
	var token pageToken
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&token); err != nil {
		return "", err
	}
	return token.LastUID, nil
}
