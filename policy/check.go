package policy

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// ReadCaller reads who to check as: LocalID or StaticID, or a file
// holding a token's claims as a JSON object (iss and sub name the caller,
// the claims p reads give its attributes and groups).
func (p *Policy) ReadCaller(as string) (*Caller, error) {
	switch as {
	case LocalID:
		return Local(), nil
	case StaticID:
		return Static(), nil
	}
	data, err := os.ReadFile(as)
	if err != nil {
		return nil, fmt.Errorf("--as: %w; give a JSON file of a token's claims, or %s or %s", err, LocalID, StaticID)
	}
	var claims map[string]any
	if err := json.Unmarshal(data, &claims); err != nil {
		return nil, fmt.Errorf("--as %s: %w; give a JSON object of a token's claims, such as {\"iss\": \"https://auth.example.com/\", \"sub\": \"alice\", \"groups\": [\"viewers\"]}", as, err)
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return nil, fmt.Errorf("--as %s: the claims have no sub (the caller's subject); add one", as)
	}
	iss, _ := claims["iss"].(string)
	return p.User(iss+"#"+sub, claims), nil
}

// Rights are what one caller may do with each tool of a set.
type Rights struct {
	Caller string  `json:"caller"`
	Tools  []Right `json:"tools"`
}

// Right is one tool's: whether the caller sees it, may run it (a tool it
// does not see, it may not run), and may approve another caller's gated
// call of it on the approvals page.
type Right struct {
	Name    string `json:"name"`
	List    bool   `json:"list"`
	Call    bool   `json:"call"`
	Approve bool   `json:"approve"`
}

// anotherCaller is the caller of the call Check asks about approving:
// a user who is not the one checked.
const anotherCaller = "(another issuer)#(another user)"

// Check is what caller may list and call of tools, the tools MCP clients
// are served, and which of their gated calls by another user it may
// approve.
func (p *Policy) Check(caller *Caller, tools []exposure.Tool) Rights {
	r := Rights{Caller: caller.ID(), Tools: []Right{}}
	for _, t := range tools {
		if !t.MCPExposable() {
			continue
		}
		list := p.Allowed(caller, List, t)
		c, ok := t.(exposure.Confirmable)
		gated := !ok || c.NeedsConfirm()
		r.Tools = append(r.Tools, Right{Name: t.Name(), List: list, Call: list && p.Allowed(caller, Call, t),
			Approve: gated && p.Approves(caller, anotherCaller, t)})
	}
	return r
}

// Write prints r for a person: the tools the caller may call, those it
// may only see, how many it may not see, and the gated tools whose calls
// by others it may approve.
func (r Rights) Write(w io.Writer) error {
	var call, list, approve []string
	hidden := 0
	for _, t := range r.Tools {
		if t.Approve {
			approve = append(approve, t.Name)
		}
		switch {
		case t.Call:
			call = append(call, t.Name)
		case t.List:
			list = append(list, t.Name)
		default:
			hidden++
		}
	}
	_, err := fmt.Fprintf(w, "caller %s\ncalls (%d): %s\nlists only (%d): %s\ndenied (%d of %d tools)\napproves others' calls (%d): %s\n",
		r.Caller, len(call), strings.Join(call, " "), len(list), strings.Join(list, " "), hidden, len(r.Tools), len(approve), strings.Join(approve, " "))
	return err
}
