package server

import (
	"runtime"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Registering a large set is CPU work that sits on the start-up path before
// the first tools/list: each descriptor encodes its input schema, and the
// SDK's AddTool decodes it twice more to check it (nats: 230 tools, about
// 20 ms on one CPU). Every tool's work is independent of the others', so it
// is spread over the CPUs. The SDK's Server guards its tool list with its
// own lock; the order of AddTool calls does not matter, since it lists
// tools sorted by name.

// registrations returns the registration of every MCP-exposable tool of
// set, by name.
func (s *Server) registrations(set *exposure.ToolSet) map[string]registration {
	var tools []exposure.Tool
	for _, t := range set.Tools() {
		if t.MCPExposable() {
			tools = append(tools, t)
		}
	}
	descs := make([]*mcp.Tool, len(tools))
	concurrently(len(tools), func(i int) { descs[i] = descriptor(tools[i], s.cfg.OutputSchema) })
	want := make(map[string]registration, len(tools))
	for i, t := range tools {
		want[t.Name()] = registration{tool: descs[i], handler: s.handler(t.Name()), noDefer: exposure.NoDefer(t)}
	}
	return want
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
