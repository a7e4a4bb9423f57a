package server

import (
	"runtime"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Registering a large set is CPU work that sits on the start-up path before
// the first tools/list: each descriptor encodes its input schema, and the
// SDK's AddTool decodes it twice more to check it (nats: 230 tools, about
// 20 ms on one CPU; a deferred set registers most of its tools without
// their schemas, see dispatchDescriptor). Every tool's work is independent
// of the others', so it is spread over the CPUs. The SDK's Server guards its tool list with its
// own lock; the order of AddTool calls does not matter, since it lists
// tools sorted by name.

// registrations returns the registration of every MCP-exposable tool of
// set, by name. When the set is deferred, a tool the list leaves out is
// registered for dispatch only (see dispatchDescriptor).
func (s *Server) registrations(set *exposure.ToolSet, deferred bool) map[string]registration {
	var tools []exposure.Tool
	for _, t := range set.Tools() {
		if t.MCPExposable() {
			tools = append(tools, t)
		}
	}
	descs := make([]*mcp.Tool, len(tools))
	concurrently(len(tools), func(i int) {
		if t := tools[i]; deferred && !exposure.NoDefer(t) && dispatchable(t) {
			descs[i] = dispatchDescriptor(t)
		} else {
			descs[i] = descriptor(t, s.cfg.OutputSchema)
		}
	})
	want := make(map[string]registration, len(tools))
	for i, t := range tools {
		want[t.Name()] = registration{tool: descs[i], handler: s.handler(t.Name()), noDefer: exposure.NoDefer(t)}
	}
	return want
}

// A deferred set's tools/list is the server's own (see listMiddleware), so
// the SDK never shows a client the descriptor of a tool the list leaves
// out: it only routes the tool's calls by name. Such a tool is registered
// with the least AddTool accepts, which spares the start-up path the
// encoding of its schema and the SDK's decodes of it (nats: 228 of 230
// tools). The schema is a *jsonschema.Schema because AddTool checks that
// type without decoding it; every other type it decodes, with a fresh 32
// KiB buffer each time. What describe_tools returns is built from the tool
// itself.
//
// dispatchDescriptor is that registration.
func dispatchDescriptor(t exposure.Tool) *mcp.Tool {
	return &mcp.Tool{Name: t.Name(), InputSchema: dispatchSchema}
}

// dispatchSchema is shared by every dispatch registration; nothing
// modifies it.
var dispatchSchema = &jsonschema.Schema{Type: "object"}

// dispatchable reports whether the SDK would treat t's own descriptor
// like dispatchDescriptor's: its schema is an object (AddTool refuses any
// other, and must go on refusing it where it did, at registration) and
// names no x-mcp-header anywhere, which the SDK reads from the registered
// schema to check a call's HTTP headers.
func dispatchable(t exposure.Tool) bool {
	ok := false
	check := func(s map[string]any) { ok = s["type"] == "object" && !mentions(s, "x-mcp-header") }
	if r, lends := t.(exposure.SchemaReader); lends {
		r.ReadInputSchema(check)
	} else {
		check(t.InputSchema())
	}
	return ok
}

// mentions reports whether key is a member of any object within v.
func mentions(v any, key string) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == key || mentions(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if mentions(e, key) {
				return true
			}
		}
	}
	return false
}

// changed returns the registrations of want, in name order, that the SDK
// does not hold as they are: new names, and names registered with another
// descriptor (see registrationKey). Only a name registered before is
// encoded to be compared, so the first registration of a set, on the
// start-up path, encodes nothing.
func (s *Server) changed(want map[string]registration) []registration {
	names := sortedNames(want)
	same := make([]bool, len(names))
	concurrently(len(names), func(i int) {
		if old, ok := s.added[names[i]]; ok {
			key := registrationKey(old)
			same[i] = key != "" && key == registrationKey(want[names[i]].tool)
		}
	})
	var add []registration
	for i, name := range names {
		if !same[i] {
			add = append(add, want[name])
		}
	}
	return add
}

// addTools registers each of regs with the SDK.
func (s *Server) addTools(regs []registration) {
	concurrently(len(regs), func(i int) { s.mcp.AddTool(regs[i].tool, regs[i].handler) })
}

// concurrently calls f(0) ... f(n-1) on up to GOMAXPROCS goroutines and
// returns when every call has. A panic in f is raised again in the caller's
// goroutine, as a serial loop would raise it (AddTool panics on a
// descriptor it cannot accept).
func concurrently(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		next    int
		panicky any
	)
	for range workers {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					mu.Lock()
					if panicky == nil {
						panicky = p
					}
					next = n // the other workers stop
					mu.Unlock()
				}
			}()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
	if panicky != nil {
		panic(panicky)
	}
}
