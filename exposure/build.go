package exposure

import (
	"bytes"
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

	"github.com/fisk-mcp/fisk-mcp/internal/ident"
	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// appContext is what every command of one application shares.
type appContext struct {
	app         *LoadedApp
	globals     []*fisk.FlagModel
	globalsHash digest               // identifies globals in every command's descriptor hash
	groups      groupTags            // the tags commands inherit from their groups
	envars      []string             // declared by the application (declaredEnvars), shared
	examples    map[string][]Example // by full command; see indexExamples
	groupHelp   groupHelpIndex       // see groupHelp
	binary      *loadedBinary        // the file every command runs; see LoadedApp
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

// Build turns loaded applications and caller-supplied tools into the tool
// set a server starts with. A name collision fails it, naming both sources
// (see Rebuild for a live reload, which must keep serving instead).
//
// Names are claimed in a fixed order: applications in the configured order,
// each application's commands sorted by command path, then custom tools in
// the order given. Collisions are found by counting final names (after
// prefix and shortening). Because the order is fixed and not the order of
// discovery, the same inputs always give the same set, the same warnings
// and the same errors.
func Build(apps []LoadedApp, custom []Tool, p Policy) (*ToolSet, error) {
	return build(apps, custom, p, false, nil)
}

// Rebuild builds the set that replaces previous, the set in force, in a
// live reload: a collision never fails it, and a tool previous serves
// keeps its name.
//
// A name previous serves is held by the tool that served it, when that tool
// is still a candidate: the same command path of the same application
// binary, or the custom tool of the same name. A newcomer claiming the name,
// even one earlier in the fixed order, is left out and recorded in Skipped,
// so a client never finds that a name it knows now runs another program.
// A holder gone from its application (removed, hidden, denied or filtered
// out) frees its name, which is then claimed in the fixed order. Every other
// name is claimed as Build claims it, except that the later claimant of a
// colliding name is left out and recorded in Skipped rather than failing
// the reload, so a live set keeps serving. Which names previous holds does
// not depend on the order of discovery, so neither does the outcome. A nil
// previous holds no names: the fixed order decides them all.
func Rebuild(apps []LoadedApp, custom []Tool, p Policy, previous *ToolSet) (*ToolSet, error) {
	return build(apps, custom, p, true, previous)
}

// build is Build (reload false, previous nil) and Rebuild (reload true).
func build(apps []LoadedApp, custom []Tool, p Policy, reload bool, previous *ToolSet) (*ToolSet, error) {
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
		// LLM APIs accept at most 64 characters, and clients add their
		// own prefix.
		if !ident.Valid(t.Name(), schema.MaxToolName) {
			return nil, fmt.Errorf("custom tool %q: name must match ^[A-Za-z0-9_-]{1,%d}$", t.Name(), schema.MaxToolName)
		}
		cands = append(cands, candidate{name: t.Name(), source: fmt.Sprintf("custom tool %q", t.Name()), custom: t})
	}

	winners, skipped, err := claimNames(cands, reload, previous)
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
	slices.SortFunc(leaves, compareLeaves)

	ctx := &appContext{app: a, globals: globals, groups: indexGroupTags(a.Model), envars: declaredEnvars(a.Model), examples: indexExamples(a.Model), groupHelp: indexGroupHelp(a.Model), binary: a.loadedBinary()}
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

// compareLeaves orders leaves by command path. An application may declare
// two sibling commands of the same name; those are ordered by their
// serialised models, so which one comes first, and wins the name on a
// reload, does not depend on the order of discovery. Two identical models
// make identical tools, so their order does not matter.
func compareLeaves(x, y introspect.Leaf) int {
	if c := slices.Compare(x.Path, y.Path); c != 0 {
		return c
	}
	dx, errx := json.Marshal(x.Command)
	dy, erry := json.Marshal(y.Command)
	if errx != nil || erry != nil {
		return 0
	}
	return bytes.Compare(dx, dy)
}

// claimNames gives each final name to its holder in previous (see
// Rebuild), else to its first claimant in the fixed order.
func claimNames(cands []candidate, reload bool, previous *ToolSet) ([]candidate, []Skip, error) {
	taken := holders(cands, previous)
	incumbent := make(map[*candidate]bool, len(taken))
	for _, c := range taken {
		incumbent[c] = true
	}
	winners := make([]candidate, 0, len(cands))
	var skipped []Skip
	var errs []error
	for i := range cands {
		c := &cands[i]
		first, ok := taken[c.name]
		if !ok || first == c {
			taken[c.name] = c
			winners = append(winners, *c)
			continue
		}
		if reload {
			reason := "name already taken by " + first.source
			if incumbent[first] {
				reason += ", which was serving it before this reload"
			}
			skipped = append(skipped, Skip{Name: c.name, Source: c.source, Reason: reason})
			continue
		}
		errs = append(errs, collisionError(first, c))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return winners, skipped, nil
}

// holders maps each name previous serves to the candidate that is the same
// tool, when there is one: the first in the fixed order, so an application
// listed twice cannot make the choice depend on anything else.
func holders(cands []candidate, previous *ToolSet) map[string]*candidate {
	taken := make(map[string]*candidate, len(cands))
	if previous.Len() == 0 {
		return taken
	}
	for i := range cands {
		c := &cands[i]
		if _, held := taken[c.name]; held {
			continue
		}
		if old, ok := previous.Lookup(c.name); ok && c.continues(old) {
			taken[c.name] = c
		}
	}
	return taken
}

// continues reports whether c is the tool old was built from: the same
// command path of the same application binary, or a custom tool of the same
// name (the caller names custom tools, so a name is the identity).
func (c *candidate) continues(old Tool) bool {
	if _, wasCommand := old.(*commandTool); !wasCommand {
		return c.custom != nil
	}
	src, ok := old.(Sourced)
	return ok && c.custom == nil && src.Source() == c.app.app.Path && src.Title() == c.leaf.FullCommand()
}

// collisionError says which two candidates claim one name at startup, and
// what the operator can do about it: a prefix separates two applications,
// but not two commands of one application.
func collisionError(first, c *candidate) error {
	if first.app == nil || first.app != c.app {
		return fmt.Errorf("tool name %q is claimed by both %s and %s; give one application a prefix (PREFIX=PATH) or exclude one of them", c.name, first.source, c.source)
	}
	fix := fmt.Sprintf("a prefix cannot separate them: rename one in the application, or leave the name out with --exclude '^%s$' (this leaves out both)", regexp.QuoteMeta(c.name))
	if first.leaf.FullCommand() == c.leaf.FullCommand() {
		return fmt.Errorf("application %q itself declares two commands %q, both becoming tool %q; %s", c.app.app.label(), c.leaf.FullCommand(), c.name, fix)
	}
	return fmt.Errorf("tool name %q is claimed by both %s and %s, two commands of one application; %s", c.name, first.source, c.source, fix)
}

// compileAll builds the tools of the winning candidates, compiling command
// schemas on all CPUs. Results keep the candidates' order, and every error
// is reported in that order, so neither depends on scheduling.
func compileAll(cands []candidate, p Policy) ([]Tool, error) {
	tools := make([]Tool, len(cands))
	errs := make([]error, len(cands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cands)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(cands); j = int(next.Add(1) - 1) {
				tools[j], errs[j] = cands[j].tool(p)
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
		// schema names the command; add only the application.
		return nil, fmt.Errorf("application %q: %w", c.app.app.label(), err)
	}
	source := c.leaf.Command.RestrictedSchema
	if mode == schema.Full {
		source = c.leaf.Command.Schema
	}
	tags := c.tags.effective()
	title := c.leaf.FullCommand()
	desc, model := describeCommand(c.leaf.Path, c.leaf.Command.Help, c.leaf.Command.HelpLong, tags)
	t := &commandTool{
		name:        c.name,
		title:       title,
		source:      c.app.app.Path,
		application: c.app.app.Model.Name,
		prefix:      c.app.app.Prefix,
		binary:      c.app.app.Path,
		tags:        tags,
		description: desc,
		modelDesc:   model,
		behavior:    p.commandBehavior(c.tags),
		trigger:     p.trigger(c.tags),
		cmd:         cmd,
		inputs:      commandSchemaInputs{mode: mode, source: source, globals: c.app.globalsHash},
		envars:      c.app.envars,
		secretFlags: p.SecretFlags,
		aliases:     c.leaf.Aliases,
		examples:    c.app.examples[title],
		groupHelp:   c.app.groupHelp.of(c.leaf.Path),
		loaded:      c.app.binary,
	}
	return t, nil
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
