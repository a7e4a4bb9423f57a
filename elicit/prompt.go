package elicit

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/visible"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is what a person is asked to approve: one call of one tool.
type Prompt struct {
	// Tool is the tool's flat name; "" means the name in the request.
	Tool string
	// Arguments are the validated arguments that will run; nil means the
	// request's own arguments. The approval is bound to their canonical form.
	Arguments json.RawMessage
	// CommandLine is the exact command that will run, already quoted and
	// escaped for display (execrunner.DisplayCommandLine) and redacted. The
	// gate escapes it again so that no control character, ANSI sequence,
	// bidirectional override or line break can reach the person's screen.
	CommandLine string
	// Trigger is the tag that gated the tool (e.g. "ai:confirm").
	Trigger string
	// Binding identifies the tool's definition and the program behind it
	// (exposure.ToolSet.Binding). It is not shown; the approval is bound to
	// it, so an answer given while the tool was reloaded or its binary
	// replaced does not approve the tool as it is now, even when the command
	// line reads the same. "" binds to "no binding".
	Binding string
	// Client names who made the call (its session; without one, its
	// address and credential) for the replay store, which bounds what one
	// client can make it hold. It is not bound: a retry may come over
	// another connection. "" is one client, as on stdio.
	Client string
	// OthersOnly says that the caller may not approve this call: only
	// someone else may (a policy's approve action refuses the caller their
	// own call). It is never asked through the caller's client, whose
	// person is the caller; only a page that signs people in, and asks
	// who may decide, is asked (see [SignsPeopleIn]). Without one the
	// call is refused unasked.
	OthersOnly bool
}

// SignsPeopleIn is implemented by an [Asker] whose page knows who decides
// and lets only those allowed decide a call, such as the shared approvals
// page signing people in with the authorization server. A gate asks only
// such a page about a call whose caller may not approve it
// ([Prompt.OthersOnly]).
type SignsPeopleIn interface {
	SignsPeopleIn() bool
}

// MaxShownCommandLine bounds, in bytes, the command line a person is asked
// to approve, as the question shows it (escaped). A longer one is refused
// unasked: a question of megabytes is not one anyone reads, and showing
// part of the command would ask the person to approve what they did not
// see.
const MaxShownCommandLine = 16 << 10

// maxCauseShown bounds, in runes, the cause a refusal repeats from an
// error about the caller's own arguments.
const maxCauseShown = 200

// approveField is the one property of the requested form.
const approveField = "approve"

// requestedSchema is a flat form with one required boolean, which every
// form-capable client can render as a checkbox or a yes/no choice.
func requestedSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			approveField: map[string]any{
				"type":        "boolean",
				"title":       "Approve",
				"description": "Run exactly the command shown above",
				"default":     false,
			},
		},
		"required": []any{approveField},
	}
}

// message is the text the person reads. Every caller-supplied piece is
// escaped, so what is shown is exactly what the approval binds.
func message(server, tool string, p Prompt) string {
	trigger := p.Trigger
	if trigger == "" {
		trigger = "(none given)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server \"%s\" wants to run a command that needs your approval.\n\n", escape(server))
	fmt.Fprintf(&b, "Command:\n    %s\n\n", escape(p.CommandLine))
	fmt.Fprintf(&b, "Tool: %s\n", escape(tool))
	fmt.Fprintf(&b, "Approval required by tag: %s\n\n", escape(trigger))
	b.WriteString("Approve running exactly this command?")
	return b.String()
}

// elicitParams is the question sent to the client.
func elicitParams(msg string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: requestedSchema()}
}

// escape makes s safe to show to a person: every byte that is not valid
// UTF-8 becomes \xNN; line breaks and tabs become \n, \r, \t; every other
// rune that is not graphic (C0 and C1 controls including ESC, DEL, format
// characters such as bidirectional overrides and zero-width spaces, line and
// paragraph separators, private-use and unassigned code points) becomes
// \xNN or \u{...}. ASCII space and all graphic runes are kept, and so is the
// backslash: s is usually already escaped once, and doubling its backslashes
// would change what the person reads.
func escape(s string) string { return visible.Escape(s, visible.Graphic) }
