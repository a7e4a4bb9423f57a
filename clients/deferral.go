package clients

import (
	"fmt"
	"slices"
	"strings"
)

// Client is what a configuration must know of a client to start the server
// so that the client can take its tools.
type Client struct {
	// Label names the client to people.
	Label string
	// ToolCap is the most tools the client sends the model in one request,
	// counted over all its servers and its own; 0 when it sets none known.
	ToolCap int
	// OwnTools is how many of ToolCap the client's own tools take in
	// every request, leaving the rest to its MCP servers (see budget).
	OwnTools int
	// DefersTools says that the client defers every MCP tool behind a tool
	// search of its own and loads up front those marked alwaysLoad.
	DefersTools bool
	// Elicitation is what the client does when the server asks its person
	// to approve a gated call (see AdviseApproval).
	Elicitation Elicitation
	// Headless says, for a note, what the client's non-interactive mode
	// does otherwise with gated calls; "" when nothing.
	Headless string
}

// Known holds, by name, the clients of Names. The caps are those the
// clients document or were measured at (late 2026): VS Code with Copilot
// sends at most 128 tools per request, its own agent tools among them
// (some 40: files, search, terminal, notebooks, tests), and past the cap
// hides servers' tools behind activate_* stubs the model must call first;
// Cursor takes 80 and Windsurf 50. Claude Code defers every MCP tool
// behind its ToolSearch. Claude Desktop, Codex, Copilot CLI (1.0.102),
// Gemini CLI (0.61.0: 238 declarations went out in one request) and
// opencode (1.18.33) set no cap of their own; a model API may (OpenAI's
// chat API refuses more than 128 tools), which the server's default
// deferral (auto, past 40 tools) stays under.
//
// Claude Code, VS Code and Copilot CLI ask through elicitation (Copilot's
// -p mode declines every question). Claude Desktop declares none; a
// current Cursor declares it but drops elicitation/create from stdio
// servers; Codex advertises it and declines every question. Windsurf
// documents tools, resources and prompts of MCP, not elicitation, and no
// source or report has it ask, so it is taken to declare none. Gemini
// CLI's MCP client declares roots only (packages/core/src/tools/
// mcp-client.ts), and servers that elicit get "Method not found" from it;
// opencode declares roots only. Either way asking in the browser works,
// whatever the client declares.
var Known = map[string]Client{
	"claude-desktop": {Label: "Claude Desktop", Elicitation: ElicitationUndeclared},
	"claude-code":    {Label: "Claude Code", DefersTools: true},
	"vscode":         {Label: "VS Code", ToolCap: 128, OwnTools: 40},
	"copilot":        {Label: "Copilot CLI", Headless: "in -p (prompt) mode Copilot CLI declines every question, so gated calls are refused there: for copilot -p, pass --approval browser"},
	"cursor":         {Label: "Cursor", ToolCap: 80, Elicitation: ElicitationDropped},
	"windsurf":       {Label: "Windsurf", ToolCap: 50, Elicitation: ElicitationUndeclared},
	"codex":          {Label: "Codex", Elicitation: ElicitationDeclined},
	"gemini":         {Label: "Gemini CLI", Elicitation: ElicitationUndeclared},
	"opencode":       {Label: "opencode", Elicitation: ElicitationUndeclared},
}

// The values of the server's --defer flag.
const (
	DeferAuto   = "auto"
	DeferAlways = "always"
	DeferNever  = "never"
)

// Deferral is the server's deferral settings as the configuration would
// start it: the values in force, from a flag, the configuration file or the
// defaults.
type Deferral struct {
	Mode      string // auto, always or never
	Threshold int    // the threshold of auto
	// Chosen says that the person set Mode (a flag or the file), which a
	// preference of the client's does not override.
	Chosen bool
}

// String names d as the server's flags say it.
func (d Deferral) String() string {
	if d.Mode == DeferAuto {
		return fmt.Sprintf("--defer auto with --defer-threshold %d", d.Threshold)
	}
	return "--defer " + d.Mode
}

// defersAbove reports whether d defers every set of more than n tools.
func (d Deferral) defersAbove(n int) bool {
	return d.Mode == DeferAlways || d.Mode == DeferAuto && d.Threshold <= n
}

// Advice is how a client's configuration sets one of the server's
// settings (deferral: Advise; approval: AdviseApproval): the arguments it
// adds to the server's command line, and a note saying why, for the person.
type Advice struct {
	Args []string // "--NAME=VALUE" or nothing
	Note string   // "" when there is nothing to say
}

// Apply returns args with a's arguments added; an argument of args that
// sets a flag a sets (--defer=...) gives way to the one a adds, so that the
// flag is not repeated.
func (a Advice) Apply(args []string) []string {
	if len(a.Args) == 0 {
		return args
	}
	out := slices.DeleteFunc(slices.Clone(args), func(s string) bool {
		return slices.ContainsFunc(a.Args, func(set string) bool {
			flag, _, _ := strings.Cut(set, "=")
			return strings.HasPrefix(s, flag+"=")
		})
	})
	return append(out, a.Args...)
}

// Advise decides how client's configuration sets deferral for a server
// serving served tools (negative when they could not be counted) under d.
//
// A client with a tool cap gets a set larger than what the cap leaves its
// servers (budget) deferred: d is kept when it defers such a set (--defer
// always, or auto with a threshold at most that, as by default), otherwise
// --defer=always is passed, in place of the person's choice, which the
// client could not honour. Claude Code's own tool search is left in
// charge (--defer=never) unless the person chose a mode; the note says how
// to turn deferral on where that search is off.
func Advise(client string, served int, d Deferral) Advice {
	c := Known[client]
	count := "every tool"
	if served >= 0 {
		count = fmt.Sprintf("all %d tools", served)
	}
	budget := c.budget()
	switch {
	case c.DefersTools:
		a := Advice{Note: fmt.Sprintf("%s defers MCP tools behind its own tool search and loads the ai:no_defer ones up front, so the server lists %s (--defer=never). "+
			"Where that search is off (ENABLE_TOOL_SEARCH=false, or an API endpoint other than Anthropic's), every definition reaches the model: "+
			"replace --defer=never with --defer=auto in the command, and past %d tools (--defer-threshold) the server lists only its discovery tools", c.Label, count, d.Threshold)}
		if d.Chosen {
			a.Note = fmt.Sprintf("%s defers MCP tools behind its own tool search; the server keeps your --defer %s", c.Label, d.Mode)
			return a
		}
		a.Args = []string{"--defer=" + DeferNever}
		return a
	case c.ToolCap == 0:
		return Advice{}
	case served < 0:
		if d.defersAbove(budget) {
			return Advice{}
		}
		return Advice{Note: fmt.Sprintf("the tools could not be counted; %s takes at most %d tools%s, and under --defer %s a larger set is listed in full: pass --defer always if the app serves more", c.Label, budget, c.why(), d.Mode)}
	case served <= budget:
		return Advice{}
	case d.defersAbove(budget):
		how := "--defer always"
		if d.Mode == DeferAuto {
			how = fmt.Sprintf("--defer auto, past %d tools", d.Threshold)
		}
		return Advice{Note: fmt.Sprintf("the server serves %d tools, more than the %d %s takes%s: it defers them (%s), listing only its discovery tools and the ai:no_defer tools; every tool stays callable through them",
			served, budget, c.Label, c.why(), how)}
	default:
		return Advice{Args: []string{"--defer=" + DeferAlways},
			Note: fmt.Sprintf("the server serves %d tools, more than the %d %s takes%s: the configuration passes --defer=always, replacing %s, so tools/list holds only the discovery tools and the ai:no_defer tools; every tool stays callable through them",
				served, budget, c.Label, c.why(), d)}
	}
}

// budget is how many tools the client takes from its MCP servers in one
// request: its cap, less what its own tools take of it.
func (c Client) budget() int { return c.ToolCap - c.OwnTools }

// why says why the client takes fewer tools from its servers than its
// cap, for a note: " (128 less its own 40)", or nothing.
func (c Client) why() string {
	if c.OwnTools == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d less its own %d)", c.ToolCap, c.OwnTools)
}
