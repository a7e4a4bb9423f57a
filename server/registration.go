package server

import (
	"encoding/json"
	"runtime"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Registering a large set is CPU work that sits on the start-up path before
// the first tools/list: each listed descriptor encodes its input schema,
// and the SDK's AddTool would decode a full descriptor's twice more to
// check it (nats: 230 tools, a sixth of the CPU of start → first
// tools/list). Every tool is therefore registered with the SDK for
// dispatch only (see dispatchDescriptor), and tools/list is answered from
// the server's own listing (see listMiddleware). Every tool's work is independent of the
// others', so it is spread over the CPUs. The SDK's Server guards its tool
// list with its own lock; the order of AddTool calls does not matter.

// registrations returns the registration of every MCP-exposable tool of
// set, by name: what the SDK holds to route its calls and, for a tool the
// list shows (all of them unless the set is deferred), its descriptor.
func (s *Server) registrations(set *exposure.ToolSet, deferred bool) map[string]registration {
	var tools []exposure.Tool
	for _, t := range set.Tools() {
		if t.MCPExposable() {
			tools = append(tools, t)
		}
	}
	regs := make([]registration, len(tools))
	concurrently(len(tools), func(i int) {
		t := tools[i]
		r := registration{noDefer: exposure.NoDefer(t)}
		if !deferred || r.noDefer {
			r.listed = descriptor(t, s.cfg.OutputSchema)
			r.wire, _ = encodeListed(r.listed) // nil: tools/list reports it
		}
		switch {
		case !dispatchable(t):
			r.tool = r.listed
			if r.tool == nil {
				r.tool = descriptor(t, s.cfg.OutputSchema)
			}
		case r.listed != nil && !encoded(r.listed):
			r.tool = r.listed // AddTool reports what does not encode
		default:
			r.tool = dispatchDescriptor(t)
		}
		regs[i] = r
	})
	want := make(map[string]registration, len(tools))
	for i, t := range tools {
		regs[i].handler = s.handler(t.Name())
		want[t.Name()] = regs[i]
	}
	return want
}

// The SDK uses a registered descriptor for three things only: it lists it,
// it routes calls by its name, and over HTTP it checks a call's headers
// against the x-mcp-header names of its input schema. It validates no
// arguments (the low-level AddTool leaves that to the handler, and
// Tool.Prepare does it) and no results. Since the server answers
// tools/list itself, a tool is registered with the least AddTool accepts,
// which spares the start-up path the encoding of each schema for the SDK
// and the SDK's decodes of it. What tools/list and describe_tools show is
// built from the tool itself.
//
// dispatchDescriptor is that registration.
func dispatchDescriptor(t exposure.Tool) *mcp.Tool {
	return &mcp.Tool{Name: t.Name(), InputSchema: dispatchSchema}
}

// dispatchSchema is the input schema of every dispatch registration;
// nothing modifies it. It is a *jsonschema.Schema of type object because
// AddTool accepts that type without encoding it, and it sets Types too, so
// that it refuses to encode: AddTool's check of the schema's x-mcp-header
// names, and the same check of every tools/call over HTTP, then decode
// nothing (each decode costs a fresh 32 KiB buffer: on nats, 230 of them
// at start-up, about a fifth of the CPU from start to the first
// tools/list), and were the SDK ever to list a dispatch registration, the
// list would fail rather than tell a client that a tool takes any object.
var dispatchSchema = &jsonschema.Schema{Type: "object", Types: []string{"object"}}

// forDispatch reports whether d is a dispatch registration.
func forDispatch(d *mcp.Tool) bool {
	s, ok := d.InputSchema.(*jsonschema.Schema)
	return ok && s == dispatchSchema
}

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

// encoded reports whether d's input schema is already in its JSON
// encoding, as descriptor leaves one that encodes.
func encoded(d *mcp.Tool) bool {
	_, ok := d.InputSchema.(json.RawMessage)
	return ok
}

// changed returns the registrations of want, in name order, that are not
// registered as they are: new names, and names registered or listed with
// another descriptor (see registrationKey). Re-registering a tool whose
// listed descriptor alone changed is what has the SDK send list_changed
// for it, since the SDK sends it for every AddTool. Only a name registered
// before is encoded to be compared, so the first registration of a set, on
// the start-up path, encodes nothing.
func (s *Server) changed(want map[string]registration) []registration {
	names := sortedNames(want)
	same := make([]bool, len(names))
	concurrently(len(names), func(i int) {
		if old, ok := s.added[names[i]]; ok {
			same[i] = old.same(want[names[i]])
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

// same reports whether r and o register and list the same descriptors.
func (r registration) same(o registration) bool {
	return sameDescriptor(r.tool, o.tool) && sameDescriptor(r.listed, o.listed)
}

// sameDescriptor reports whether a and b are the same descriptor: both
// absent, dispatch registrations of one name, or equal in their encoding
// (see registrationKey).
func sameDescriptor(a, b *mcp.Tool) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case forDispatch(a) || forDispatch(b):
		return forDispatch(a) && forDispatch(b) && a.Name == b.Name
	}
	key := registrationKey(a)
	return key != "" && key == registrationKey(b)
}

// addTools registers each of regs with the SDK.
func (s *Server) addTools(regs []registration) {
	if s.onAddTools != nil && len(regs) > 0 {
		names := make([]string, len(regs))
		for i, r := range regs {
			names[i] = r.tool.Name
		}
		s.onAddTools(names)
	}
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
