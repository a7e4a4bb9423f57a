package catalog

import (
	"maps"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// notesDoc has a command with a parameter of every kind the schema adds a
// note to (a counter, a map, a bounded integer, a switch on by default, a
// negatable flag next to its no- flag, an argument renamed for a flag of
// its name, a global with a default), one without help and one whose own
// help ends in parentheses.
const notesDoc = `{"name":"app",
 "flags":[{"name":"server","help":"The server to connect to","default":["nats://localhost"]}],
 "commands":[{"name":"run",
  "flags":[{"name":"verbose","help":"Say more","boolean":true,"cumulative":true},{"name":"quiet","boolean":true,"cumulative":true},
   {"name":"header","help":"Headers to send"},{"name":"count","help":"How many to send"},
   {"name":"ack","help":"Acknowledge messages","boolean":true,"default":["true"]},
   {"name":"color","help":"Colour the output","boolean":true,"negatable":true,"default":["true"]},{"name":"no-color","help":"Never colour"},
   {"name":"source","help":"Read from this file"},{"name":"sort","help":"Sort order (asc or desc)"},
   {"name":"subject","help":"Subjects to watch","cumulative":true}],
  "args":[{"name":"source","help":"The stream to copy"}],
  "schema":{"type":"object","properties":{"verbose":{"type":"boolean","description":"Say more"},"quiet":{"type":"boolean"},
   "header":{"type":"object","description":"Headers to send"},"count":{"type":"integer","minimum":0,"maximum":10,"description":"How many to send"},
   "ack":{"type":"boolean","description":"Acknowledge messages"},"color":{"type":"boolean","description":"Colour the output"},
   "no-color":{"type":"string","description":"Never colour"},"source":{"type":"string","description":"Read from this file"},
   "sort":{"type":"string","description":"Sort order (asc or desc)"},
   "subject":{"type":"array","items":{"type":"string","description":"A subject"},"description":"Subjects to watch"}}},
  "restricted_schema":{"type":"object","properties":{"verbose":{"type":"boolean","description":"Say more"},"quiet":{"type":"boolean"},
   "header":{"type":"object","description":"Headers to send"},"count":{"type":"integer","description":"How many to send"},
   "ack":{"type":"boolean","description":"Acknowledge messages"},"color":{"type":"boolean","description":"Colour the output"},
   "no-color":{"type":"string","description":"Never colour"},"source":{"type":"string","description":"Read from this file"},
   "sort":{"type":"string","description":"Sort order (asc or desc)"},
   "subject":{"type":"array","items":{"type":"string","description":"A subject"},"description":"Subjects to watch"}}}}]}`

func TestParamHelpLeavesOutExactlyTheNotesTheSchemaAppends(t *testing.T) {
	app, err := introspect.Decode([]byte(notesDoc))
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := introspect.Walk(app)
	if err != nil {
		t.Fatal(err)
	}
	globals, err := schema.Globals(app, []string{"server"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.NewCommand(leaves[0].Path, leaves[0].Command, globals, schema.Restricted)
	if err != nil {
		t.Fatal(err)
	}
	props := c.InputSchema()["properties"].(map[string]any)
	names := slices.Sorted(maps.Keys(props))
	want := []string{"Acknowledge messages", "Colour the output", "How many to send", "Headers to send", "Never colour",
		"The server to connect to", "Sort order (asc or desc)", "Read from this file", "The stream to copy", "Subjects to watch", "Say more"}
	if got := paramHelp(props, names); !slices.Equal(got, want) {
		t.Errorf("help of %q =\n%q\nwant\n%q", names, got, want)
	}
}

func TestParamHelpKeepsASharedHelpOnceAndSkipsParametersWithout(t *testing.T) {
	props := map[string]any{
		"a": map[string]any{"description": "Show all"},
		"b": map[string]any{"description": " Show all "},
		"c": map[string]any{"type": "string"},
		"d": map[string]any{"description": "at least 0"}, // a note on no help
	}
	if got := paramHelp(props, []string{"a", "b", "c", "d"}); !slices.Equal(got, []string{"Show all"}) {
		t.Errorf("got %q", got)
	}
}
