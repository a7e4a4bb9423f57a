package clients

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// CodexDesktopEnv are the variables that the opener of the approval page
// needs to reach the person's desktop (X11, Wayland, the session bus),
// which Codex does not pass to MCP servers unless its entry names them in
// env_vars: it passes a short list of its own (PATH, HOME, ...).
var CodexDesktopEnv = []string{"DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"}

// Served is what config counted of the tools the server would serve.
type Served struct {
	// Count is how many tools are served; negative when they could not
	// be counted, and then nothing else is known.
	Count int
	// Gated are the served tools that need a person's approval, by name.
	Gated []string
	// UngatedWrites are the served tools that are neither read-only nor
	// gated, by name.
	UngatedWrites []string
	// Deferred says that tools/list holds the discovery tools, and the
	// others are called through call_tool.
	Deferred bool
}

// ServedOf is what a server with deferral settings d serves of set.
func ServedOf(set *exposure.ToolSet, d server.Config) Served {
	s := Served{Count: server.ServedCount(set), Deferred: server.Defers(d, set)}
	for _, t := range set.Tools() {
		if !t.MCPExposable() {
			continue
		}
		switch g, ok := t.(exposure.Confirmable); {
		case ok && g.NeedsConfirm():
			s.Gated = append(s.Gated, t.Name())
		case !exposure.BehaviorOf(t).ReadOnly:
			s.UngatedWrites = append(s.UngatedWrites, t.Name())
		}
	}
	return s
}

// CodexApprovals decides what Codex's entry adds, for a server serving s
// whose gated calls are asked in the browser or not (browser): the tools
// Codex runs without asking (Launch.Approve), the variables it passes
// (Launch.PassEnv), and a note.
//
// Codex asks its person before an MCP tool that is not read-only runs,
// and codex exec, which runs with approval policy "never", refuses every
// such tool instead. A gated tool is asked of the person by fisk-mcp, in
// the browser, so Codex's own question would only ask twice, and codex
// exec would never let it reach fisk-mcp: the entry approves each gated
// tool in Codex (approval_mode = "approve") and passes the desktop's
// variables for the page's opener.
//
// call_tool, through which a deferred set's tools are called, runs any
// tool: approving it in Codex lets every ungated tool that is not
// read-only run with nobody asked. So it is approved only when every such
// tool is gated, that is, when fisk-mcp asks for whatever it could run
// that writes; otherwise it is left to Codex (asked in its interface,
// refused by codex exec) and the note says so. Ungated tools that are not
// read-only are never approved: nobody would be asked before they run.
func CodexApprovals(name string, s Served, browser bool) (approve, passEnv []string, note string) {
	var notes []string
	if browser {
		passEnv = CodexDesktopEnv
		switch {
		case s.Count < 0:
			notes = append(notes, fmt.Sprintf("the tools could not be counted, so none is approved in Codex, and codex exec refuses the gated ones: add [mcp_servers.%s.tools.TOOL] approval_mode = \"approve\" for each gated TOOL", name))
		case len(s.Gated) > 0:
			approve = slices.Sorted(slices.Values(s.Gated))
			notes = append(notes, fmt.Sprintf("Codex runs the gated tools (%s) without asking (approval_mode = \"approve\"), since fisk-mcp asks you in the browser; it passes %s to the server (env_vars) for the browser to open",
				names(approve), strings.Join(CodexDesktopEnv, ", ")))
		}
		if s.Deferred && len(s.Gated) > 0 {
			if len(s.UngatedWrites) == 0 {
				approve = append(approve, "call_tool")
				notes = append(notes, "the set is deferred and every tool that is not read-only is gated, so call_tool is approved in Codex too")
			} else {
				notes = append(notes, fmt.Sprintf("the set is deferred and call_tool would also run %d ungated tools that are not read-only (%s) with nobody asked, so it is left to Codex: codex exec refuses it, gated tools included; gate those tools (--confirm-tag) and run config again, or approve call_tool in the entry yourself knowing that",
					len(s.UngatedWrites), names(s.UngatedWrites)))
			}
		}
	}
	if len(s.UngatedWrites) > 0 && !s.Deferred {
		notes = append(notes, fmt.Sprintf("codex exec refuses the %d ungated tools that are not read-only (%s): gate them (--confirm-tag) to have them approved in the browser, or add [mcp_servers.%s.tools.TOOL] approval_mode = \"approve\" for each you let run unasked",
			len(s.UngatedWrites), names(s.UngatedWrites), name))
	}
	return approve, passEnv, strings.Join(notes, "; ")
}

// names lists a few names for a note.
func names(list []string) string {
	const most = 5
	if len(list) <= most {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:most], ", ") + fmt.Sprintf(" and %d more", len(list)-most)
}
