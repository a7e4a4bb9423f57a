package discovery

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// maxSummary bounds the bytes the summary of a deferred set adds to
// search_tools's description, which every session's model reads up front;
// maxGroupHelp bounds one group's help in it.
const (
	maxSummary   = 1200
	maxGroupHelp = 48
)

// servedSummary says what a set serves, for search_tools's description:
// each application's name, its number of tools and its command groups
// with their one-line help ("nats, 230 tools: account (Account
// information and status), ..."). A model that reads it knows which of its
// servers to search, and can search in the application's own words ("kv"
// for what the person called a bucket) rather than the person's.
//
// It depends on nothing but the served tools, so the deferred list stays
// the same for every session. It is at most maxSummary bytes: the groups'
// help goes first when the whole would be longer, then the groups past
// what fits ("and 12 more"). The help is the application's text, reduced
// to printable characters on one line.
func servedSummary(set *exposure.ToolSet, visible func(exposure.Tool) bool) string {
	apps, custom := summaries(set, visible)
	return summarize(apps, custom)
}

// appSummary is what servedSummary says of one application.
type appSummary struct {
	name   string // see appName
	tools  int
	groups []string          // the first words of its tools' titles, sorted
	help   map[string]string // by group: its one-line help, or ""
}

// appKey tells the applications of a set apart: one binary may be served
// twice, under two prefixes.
type appKey struct{ path, prefix string }

// summaries gathers the summaries of set's applications, by name, and counts
// its tools of no application; only the tools visible reports (all, for
// nil).
func summaries(set *exposure.ToolSet, visible func(exposure.Tool) bool) (apps []*appSummary, custom int) {
	byApp := map[appKey]*appSummary{}
	keys := map[*appSummary]appKey{}
	for _, t := range set.Tools() {
		if !t.MCPExposable() || (visible != nil && !visible(t)) {
			continue
		}
		src, ok := t.(exposure.Sourced)
		if !ok || src.Source() == "custom" || src.Title() == "" {
			custom++
			continue
		}
		k := appKey{path: src.Source()}
		if p, ok := t.(exposure.Prefixed); ok {
			k.prefix = p.Prefix()
		}
		a := byApp[k]
		if a == nil {
			a = &appSummary{help: map[string]string{}}
			byApp[k] = a
			keys[a] = k
			apps = append(apps, a)
		}
		a.tools++
		title := strings.Fields(src.Title())
		group := title[0]
		if _, seen := a.help[group]; !seen {
			a.groups = append(a.groups, group)
		}
		if a.help[group] == "" {
			if g, ok := t.(exposure.Grouped); ok && len(title) > 1 {
				if h := g.GroupHelp(); len(h) > 0 {
					a.help[group] = summaryLine(h[0], maxGroupHelp)
				}
			} else if len(title) == 1 {
				a.help[group] = summaryLine(t.Description(), maxGroupHelp)
			}
		}
	}
	bases := map[string]int{}
	for _, k := range keys {
		bases[filepath.Base(k.path)]++
	}
	for _, a := range apps {
		slices.Sort(a.groups)
		a.name = appName(keys[a], bases[filepath.Base(keys[a].path)] > 1)
	}
	slices.SortFunc(apps, func(x, y *appSummary) int { return strings.Compare(x.name, y.name) })
	return apps, custom
}

// appName names an application for the summary: by its binary's base
// name, or, when another application of the set has the same (shared),
// by that name and what tells them apart, its tools' prefix ("nats
// (prod_…)") or, without one, its binary's path.
func appName(k appKey, shared bool) string {
	base := filepath.Base(k.path)
	switch {
	case !shared:
		return summaryLine(base, maxGroupHelp)
	case k.prefix != "":
		return summaryLine(base+" ("+k.prefix+"_…)", maxGroupHelp)
	default:
		return pathTail(summaryLine(k.path, len(k.path)), maxGroupHelp)
	}
}

// pathTail is the end of path in at most max bytes, from a separator on,
// after "…" when it is cut: where two binaries' paths differ is nearer
// their names than the root.
func pathTail(path string, max int) string {
	if len(path) <= max {
		return path
	}
	const cut = "…"
	tail := path[len(path)-(max-len(cut)):]
	if i := strings.IndexByte(tail, filepath.Separator); i >= 0 {
		tail = tail[i:]
	}
	for !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return cut + tail
}

// summarize says what apps and custom tools of no application are served,
// in at most maxSummary bytes (see servedSummary).
func summarize(apps []*appSummary, custom int) string {
	if len(apps) == 0 {
		return ""
	}
	render := func(withHelp bool, most int) string {
		var b strings.Builder
		b.WriteString("It serves ")
		for i, a := range apps {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s, %d tools: ", a.name, a.tools)
			for j, g := range a.groups {
				if j == most {
					fmt.Fprintf(&b, " and %d more", len(a.groups)-most)
					break
				}
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(g)
				if h := a.help[g]; withHelp && h != "" {
					fmt.Fprintf(&b, " (%s)", h)
				}
			}
		}
		if custom > 0 {
			fmt.Fprintf(&b, "; and %d tools of its own", custom)
		}
		b.WriteString(".")
		return b.String()
	}
	if s := render(true, -1); len(s) <= maxSummary {
		return s
	}
	s := render(false, -1)
	for most := 64; len(s) > maxSummary && most > 0; most /= 2 {
		s = render(false, most)
	}
	if len(s) > maxSummary {
		// So many applications that their names alone do not fit.
		const more = ", and more."
		s = s[:strings.LastIndex(s[:maxSummary-len(more)], ",")] + more
	}
	return s
}

// summaryLine is the first line of s, without control or format characters
// (an escape sequence, a bidirectional override), cut at a word to at
// most max bytes.
func summaryLine(s string, max int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, line)
	line = strings.TrimRight(strings.TrimSpace(line), ".")
	if len(line) <= max {
		return line
	}
	cut := line[:max]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
