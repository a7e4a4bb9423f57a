package nats

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// The nats CLI's document, decoded the way every start decodes it (split
// by top-level command and read by the SDK's faster decoder), is exactly
// the model one encoding/json decode of it gives.
func TestNATSDocumentDecodesAsEncodingJSONDecodesIt(t *testing.T) {
	_, nats := requireBinaries(t)
	cmd := exec.CommandContext(t.Context(), nats, "--fisk-introspect")
	cmd.Env = newSandbox(t).env()
	doc, err := cmd.Output()
	if err != nil {
		t.Fatalf("nats --fisk-introspect: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var want fisk.ApplicationModel
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	got, err := introspect.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Error("introspect.Decode differs from encoding/json on the nats document")
	}
	leaves, err := introspect.Walk(got)
	if err != nil || len(leaves) != natsVisibleLeaves {
		t.Errorf("Walk: %d leaves, %v; want %d", len(leaves), err, natsVisibleLeaves)
	}
}
