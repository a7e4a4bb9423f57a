package exposure

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// namePattern is what every tool name must fit: LLM APIs accept at most 64
// characters, and clients add their own prefix.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// appContext is what every command of one application shares.
type appContext struct {
	app         *LoadedApp
	globals     []*fisk.FlagModel
	globalsHash fingerprint // identifies globals in every command's fingerprint
	groups      groupTags   // the tags commands inherit from their groups
}

// candidate is a tool claiming a final name. Application commands are only
// compiled once they have won their name, so a filtered or colliding
// command costs no schema work.
type candidate struct {
	name   string
	source string // for messages: which application and command, or which custom tool
	// application commands
	app  *appContext
	leaf introspect.Leaf
	tags commandTags
	raw  string // the name before shortening
	// caller-supplied tools
	custom Tool
}

// Build turns loaded applications and caller-supplied tools into a tool set.
//
// Names are claimed in a fixed order: applications in the configured order,
// each application's commands sorted by command path, then custom tools in
// the order given. Collisions are found by counting final names (after
// prefix and shortening). When reload is false a collision fails the build,
// naming both sources; when reload is true the later claimant is left out and
// recorded in Skipped, so a live set keeps serving. Because the order is fixed
// and not the order of discovery, the same inputs always give the same set,
// the same warnings and the same errors.
func Build(apps []LoadedApp, custom []Tool, p Policy, reload bool) (*ToolSet, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	p = p.canonical()
	var cands []candidate
	var spelling []string
	for i := range apps {
		c, w, err := appCandidates(&apps[i], p)
		if err != nil {
			return nil, err
		}
		cands = append(cands, c...)
		spelling = append(spelling, w...)
	}
	for i, t := range custom {
		if t == nil {
			return nil, fmt.Errorf("custom tool #%d is nil", i+1)
		}
		if !namePattern.MatchString(t.Name()) {
			return nil, fmt.Errorf("custom tool %q: name must match %s", t.Name(), namePattern)
		}
		cands = append(cands, candidate{name: t.Name(), source: fmt.Sprintf("custom tool %q", t.Name()), custom: t})
	}

	winners, skipped, err := claimNames(cands, reload)
	if err != nil {
		return nil, err
	}
	tools, err := compileAll(winners, p)
	if err != nil {
		return nil, err
	}
	return newToolSet(tools, append(spelling, warnings(winners, p)...), skipped), nil
}

// appCandidates lists the commands of one application that may become tools:
// visible leaves whose effective tags (see groupTags) do not include
// ai:deny, selected by the policy and by the app's own selection, sorted by
// path. It also returns the spelling warnings of the app (see
// spellingWarnings).
func appCandidates(a *LoadedApp, p Policy) ([]candidate, []string, error) {
	if err := a.validate(); err != nil {
		return nil, nil, err
	}
	if a.Model == nil {
		return nil, nil, fmt.Errorf("application %q: no model; introspect it first", a.label())
	}
	globals, err := schema.Globals(a.Model, a.Globals)
	if err != nil {
		return nil, nil, fmt.Errorf("application %q: %w", a.label(), err)
	}
	leaves, err := introspect.Walk(a.Model)
	if err != nil {
		var missing *introspect.MissingSchemaError
		if errors.As(err, &missing) {
			// Walk lists the commands in tree order; sort them so the
			// message does not depend on the order of discovery.
			err = &introspect.MissingSchemaError{Commands: slices.Sorted(slices.Values(missing.Commands))}
		}
		return nil, nil, fmt.Errorf("application %q: %w", a.label(), err)
	}
	slices.SortFunc(leaves, func(x, y introspect.Leaf) int { return slices.Compare(x.Path, y.Path) })

	ctx := &appContext{app: a, globals: globals, groups: indexGroupTags(a.Model)}
	if doc, err := json.Marshal(globals); err == nil {
		ctx.globalsHash = sha256.Sum256(doc)
	} else {
		return nil, nil, fmt.Errorf("application %q: global flags: %w", a.label(), err)
	}
	spelling := spellingWarnings(a, ctx.groups, leaves)
	own := a.selection()
	out := make([]candidate, 0, len(leaves))
	for _, leaf := range leaves {
		tags := ctx.groups.tagsOf(leaf)
		if tags.denied() {
			continue
		}
		raw := leaf.Name()
		if a.Prefix != "" {
			raw = a.Prefix + "_" + raw
		}
		name := schema.ToolName(raw)
		if !p.selected(name, tags) || !own.keeps(name, tags) {
			continue
		}
		out = append(out, candidate{
			name:   name,
			source: fmt.Sprintf("application %q command %q", a.label(), leaf.FullCommand()),
			app:    ctx,
			leaf:   leaf,
			tags:   tags,
			raw:    raw,
		})
	}
	return out, spelling, nil
}

// spellingWarnings names every reserved tag the application wrote other
// than exactly (see canonicalTag), where it wrote it: on a visible command,
// or once on a visible group. Every command counts, denied or filtered out
// too: "AI:deny" is honoured here, but the author should still fix it, and
// any other reader of the application's tags may take it literally. leaves
// are in sorted order, so the warnings do not depend on discovery order.
func spellingWarnings(a *LoadedApp, groups groupTags, leaves []introspect.Leaf) []string {
	var out []string
	report := func(where string, tags []string) {
		for _, t := range tags {
			if canonical, ok := miscased(t); ok {
				out = append(out, fmt.Sprintf("%s: tag %q is read as the reserved tag %q; spell it %q in the application", where, t, canonical, canonical))
			}
		}
	}
	seen := map[string]bool{}
	for _, leaf := range leaves {
		groups.ancestors(leaf, func(path, own []string) {
			if key := groupKey(path); !seen[key] {
				seen[key] = true
				report(fmt.Sprintf("application %q group %q", a.label(), strings.Join(path, " ")), own)
			}
		})
		report(fmt.Sprintf("application %q command %q", a.label(), leaf.FullCommand()), leaf.Command.Tags)
	}
	return out
}

// claimNames gives each final name to its first claimant in the fixed order.
func claimNames(cands []candidate, reload bool) ([]candidate, []Skip, error) {
	taken := make(map[string]*candidate, len(cands))
	winners := make([]candidate, 0, len(cands))
	var skipped []Skip
	var errs []error
	for i := range cands {
		c := &cands[i]
		first, ok := taken[c.name]
		if !ok {
			taken[c.name] = c
			winners = append(winners, *c)
			continue
		}
		if reload {
			skipped = append(skipped, Skip{Name: c.name, Source: c.source, Reason: "name already taken by " + first.source})
			continue
		}
		errs = append(errs, fmt.Errorf("tool name %q is claimed by both %s and %s; give one application a prefix (PREFIX=PATH) or exclude one of them", c.name, first.source, c.source))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return winners, skipped, nil
}

// compileAll builds the tools of the winning candidates, compiling command
// schemas and fingerprints on all CPUs. Results keep the candidates' order,
// and every error is reported in that order, so neither depends on
// scheduling.
func compileAll(cands []candidate, p Policy) ([]builtTool, error) {
	tools := make([]builtTool, len(cands))
	errs := make([]error, len(cands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cands)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(cands); j = int(next.Add(1) - 1) {
				t, err := cands[j].tool(p)
				if err != nil {
					errs[j] = err
					continue
				}
				tools[j] = builtTool{tool: t, print: fingerprintOf(t)}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return tools, nil
}

// tool builds the candidate's tool.
func (c *candidate) tool(p Policy) (Tool, error) {
	if c.custom != nil {
		return c.custom, nil
	}
	mode := p.schemaMode()
	cmd, err := schema.NewCommand(c.leaf.Path, c.leaf.Command, c.app.globals, mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.source, err)
	}
	source := c.leaf.Command.RestrictedSchema
	if mode == schema.Full {
		source = c.leaf.Command.Schema
	}
	tags := c.tags.effective()
	title := c.leaf.FullCommand()
	desc, model := describeCommand(c.leaf.Path, c.leaf.Command.Help, c.leaf.Command.HelpLong, tags)
	return &commandTool{
		name:        c.name,
		title:       title,
		source:      c.app.app.Path,
		binary:      c.app.app.Path,
		tags:        tags,
		description: desc,
		modelDesc:   model,
		behavior:    p.commandBehavior(c.tags),
		trigger:     p.trigger(c.tags),
		cmd:         cmd,
		inputs:      commandSchemaInputs{mode: mode, source: source, globals: c.app.globalsHash},
	}, nil
}

// warnings lists, in the fixed order, what the operator should know about
// the set: shortened names, unknown ai: tags, and confirm tags that gate
// nothing (a typo there would leave tools ungated). An unknown tag is
// reported once where it is written: on the command, or on the group above
// the first exposed command that inherits it.
func warnings(winners []candidate, p Policy) []string {
	var out []string
	used := map[string]bool{}
	warnedGroups := map[*appContext]map[string]bool{}
	unknown := func(a *LoadedApp, where string, tags []string) {
		for _, t := range tags {
			if isAITag(t) && !p.knownTag(t) && !slices.Contains(a.IncludeTags, t) && !slices.Contains(a.ExcludeTags, t) {
				out = append(out, fmt.Sprintf("%s: unknown tag %q has no effect (fisk-mcp reads %s; a private ai: tag is fine, a misspelt one is not)", where, t, reservedTagList))
			}
		}
	}
	for _, c := range winners {
		if c.custom != nil {
			continue
		}
		if c.name != c.raw {
			why := "is longer than 64 characters"
			if len(c.raw) <= 64 {
				why = "has characters outside [A-Za-z0-9_-]"
			}
			out = append(out, fmt.Sprintf("%s: tool name %q %s; shortened to %q (the title keeps the full command path)", c.source, c.raw, why, c.name))
		}
		for _, t := range c.tags.effective() {
			used[t] = true
		}
		c.app.groups.ancestors(c.leaf, func(path, own []string) {
			key := groupKey(path)
			if warnedGroups[c.app][key] {
				return
			}
			if warnedGroups[c.app] == nil {
				warnedGroups[c.app] = map[string]bool{}
			}
			warnedGroups[c.app][key] = true
			unknown(c.app.app, fmt.Sprintf("application %q group %q", c.app.app.label(), strings.Join(path, " ")), own)
		})
		unknown(c.app.app, c.source, c.leaf.Command.Tags)
	}
	warned := map[string]bool{}
	for _, c := range p.ConfirmTags {
		matched := false
		for t := range used {
			if sameConfirmTag(c, t) {
				matched = true
				break
			}
		}
		if !matched && !warned[c] {
			warned[c] = true // warn once per tag
			out = append(out, fmt.Sprintf("confirm tag %q matches no tool; check its spelling, or the tools it was meant to gate will run without approval", c))
		}
	}
	return out
}
