package elicit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A command line a person cannot read whole is refused unasked, in both
// protocol generations; one just within the bound is still asked about.
func TestACommandLineTooLongToShowIsRefusedUnasked(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			a := answering("accept", map[string]any{"approve": true})
			cs := f.connect(v, a.options())

			// Each U+202E is escaped to \u{202e}: the bound is on what is shown.
			res := call(t, cs, "rm", map[string]any{"name": strings.Repeat("\u202e", MaxShownCommandLine/8)})
			f.wantRefused(res, CodeTooLong, "pass less in one call")
			if len(text(res)) > 500 {
				t.Errorf("refusal of %d bytes", len(text(res)))
			}
			if asked := a.asked(); len(asked) != 0 {
				t.Errorf("asked about a command line of %d bytes", len(asked[0]))
			}

			fits := strings.Repeat("n", MaxShownCommandLine-len("fixture rm -- "))
			if res := call(t, cs, "rm", map[string]any{"name": fits}); res.IsError {
				t.Errorf("a command line within the bound was refused: %.200s", text(res))
			}
			if asked := a.asked(); len(asked) != 1 {
				t.Errorf("asked %d times about a command line within the bound, want 1", len(asked))
			}
		})
	}
}

// Arguments with a duplicate key cannot be bound; the refusal names the
// key, cut, however long the caller made it.
func TestARefusalOfUnboundableArgumentsRepeatsAShortCause(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	a := answering("accept", map[string]any{"approve": true})
	cs := f.connect(legacyVersion, a.options())
	key := strings.Repeat("k", 100_000)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: json.RawMessage(`{"` + key + `":1,"` + key + `":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	f.wantRefused(res, CodeError, "duplicate object key")
	if len(text(res)) > 1000 || len(f.last().Detail) > 1000 {
		t.Errorf("refusal of %d bytes, detail of %d", len(text(res)), len(f.last().Detail))
	}
}
