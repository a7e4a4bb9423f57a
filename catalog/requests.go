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

// Add adds request under application's command title, once.
func (r Requests) Add(application, title, request string) {
	cmds := r[application]
	if cmds == nil {
		cmds = map[string][]string{}
		r[application] = cmds
	}
	if !slices.Contains(cmds[title], request) {
		cmds[title] = append(cmds[title], request)
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
	for _, q := range r[application][title] {
		if !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}
