package clients

import "fmt"

// The values of the server's --approval flag.
const (
	ApprovalElicit          = "elicit"
	ApprovalBrowser         = "browser"
	ApprovalElicitOrBrowser = "elicit-or-browser"
)

// Elicitation is what a client does with the server's elicitation, the
// way the gate asks a person to approve a gated call through the client.
// The zero value is a client that asks.
type Elicitation int

const (
	// ElicitationAsks: the client declares elicitation and shows the
	// question to the person.
	ElicitationAsks Elicitation = iota
	// ElicitationUndeclared: the client declares no elicitation, so the
	// gate cannot ask through it.
	ElicitationUndeclared
	// ElicitationDropped: the client declares elicitation but drops the
	// requests of stdio servers, so the question never reaches the person
	// and the call waits until --elicit-timeout refuses it.
	ElicitationDropped
	// ElicitationDeclined: the client declares elicitation but declines
	// every question without showing it.
	ElicitationDeclined
)

// what says what the client does, after its label.
func (e Elicitation) what() string {
	switch e {
	case ElicitationUndeclared:
		return "cannot ask through MCP (it declares no elicitation)"
	case ElicitationDropped:
		return "declares MCP elicitation but drops its requests from stdio servers"
	case ElicitationDeclined:
		return "advertises MCP elicitation but declines every question"
	}
	return "asks through MCP elicitation"
}

// refusal says what becomes of a gated call asked through the client.
func (e Elicitation) refusal() string {
	switch e {
	case ElicitationUndeclared:
		return "gated tools are refused"
	case ElicitationDropped:
		return "the question never reaches you, and gated calls are refused when --elicit-timeout passes"
	case ElicitationDeclined:
		return "gated calls are refused as declined"
	}
	return ""
}

// Approval is the --approval under which a person can approve gated calls
// made through c: elicit where c asks, browser where it cannot, since
// asking in the browser does not depend on the client.
func (c Client) Approval() string {
	if c.Elicitation == ElicitationAsks {
		return ApprovalElicit
	}
	return ApprovalBrowser
}

// AdviseApproval decides how client's configuration sets --approval for a
// server serving gated tools that need a person's approval (negative when
// they could not be counted) under mode, the --approval in force; chosen
// says that the person set it (a flag or the file).
//
// Without gated tools nothing is added and nothing said. Otherwise, unless
// the person chose, a client that cannot have its person asked gets
// --approval=browser, and one that asks gets nothing (elicit is the
// server's default); the note says which and why. A person's own choice is
// kept, and the note says what it does in that client, and what to pass
// instead where it cannot work there.
func AdviseApproval(client string, gated int, mode string, chosen bool) Advice {
	c, ok := Known[client]
	if !ok || gated == 0 {
		return Advice{}
	}
	a := adviseApproval(c, mode, chosen)
	if gated < 0 {
		a.Note += " (the tools could not be counted, so the app is taken to have gated tools)"
	}
	return a
}

func adviseApproval(c Client, mode string, chosen bool) Advice {
	does := c.Label + " " + c.Elicitation.what()
	if !chosen {
		if c.Approval() == ApprovalElicit {
			a := Advice{Note: fmt.Sprintf("%s, so gated tools are approved in %s itself (--approval elicit, the default)", does, c.Label)}
			if c.Headless != "" {
				a.Note += "; " + c.Headless
			}
			return a
		}
		return Advice{Args: []string{"--approval=" + ApprovalBrowser},
			Note: does + ", so gated tools are approved in your browser (--approval=browser): a page opens on this machine when one is called, and closing it refuses the call"}
	}
	kept := "the server keeps your --approval " + mode + ": "
	switch {
	case mode == ApprovalBrowser:
		return Advice{Note: kept + "gated tools are approved in your browser"}
	case c.Approval() == ApprovalElicit:
		return Advice{Note: kept + does}
	case mode == ApprovalElicitOrBrowser && c.Elicitation == ElicitationUndeclared:
		return Advice{Note: kept + does + ", so gated tools are approved in your browser"}
	default:
		return Advice{Note: kept + does + ", so " + c.Elicitation.refusal() + ": pass --approval browser to approve them in your browser"}
	}
}
