package catalog

import (
	"slices"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Requests are requests people make of applications' commands in their own
// words, beside those known with the catalog (see Asked): by application,
// by the name it gives itself in its introspection document ("nats"), then
// by command path without the application's name ("stream ls"), as a
// tool's title says it. An operator gives them for the CLI they serve, so
// that search_tools finds its tools in the words its users say.
type Requests map[string]map[string][]string

// Add adds requests under application's command title, each once, in
// time linear in their number and in those the title already holds.
func (r Requests) Add(application, title string, requests ...string) {
	cmds := r[application]
	if cmds == nil {
		cmds = map[string][]string{}
		r[application] = cmds
	}
	held := make(map[string]bool, len(cmds[title])+len(requests))
	for _, q := range cmds[title] {
		held[q] = true
	}
	for _, q := range requests {
		if !held[q] {
			held[q] = true
			cmds[title] = append(cmds[title], q)
		}
	}
}

// Len is the number of requests.
func (r Requests) Len() int {
	n := 0
	for _, cmds := range r {
		for _, reqs := range cmds {
			n += len(reqs)
		}
	}
	return n
}

// Unused are the commands r names that no tool of s runs, as
// "application command", sorted: a misspelt path, a command the
// application no longer has, or one the selection leaves out.
func (r Requests) Unused(s *exposure.ToolSet) []string {
	served := map[[2]string]bool{}
	for _, t := range s.Tools() {
		app, ok := t.(exposure.Applied)
		src, ok2 := t.(exposure.Sourced)
		if ok && ok2 {
			served[[2]string{app.Application(), src.Title()}] = true
		}
	}
	var out []string
	for application, cmds := range r {
		for title := range cmds {
			if !served[[2]string{application, title}] {
				out = append(out, application+" "+title)
			}
		}
	}
	slices.Sort(out)
	return out
}

// of is what is known of application's command title: the catalog's own
// requests, then r's that it does not already hold. A fresh slice.
func (r Requests) of(application, title string) []string {
	out := Asked(application, title)
	known := make(map[string]bool, len(out))
	for _, q := range out {
		known[q] = true
	}
	for _, q := range r[application][title] { // each once already (see Add)
		if !known[q] {
			out = append(out, q)
		}
	}
	return out
}
