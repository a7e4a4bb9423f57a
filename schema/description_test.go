package schema

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// A flag's help reaches the model in the input schema, as a command's
// output reaches it: without escape sequences or invisible characters.
func TestPropertyDescriptionsCarryNoEscapeOrInvisibleCharacter(t *testing.T) {
	doc, err := exec.Command(fixtureBin, "--fisk-introspect").Output()
	if err != nil {
		t.Fatal(err)
	}
	doc = bytes.ReplaceAll(doc, []byte("Processing mode"), []byte(`Processing \u001b[31mmode\u200b\u202e`))
	doc = bytes.ReplaceAll(doc, []byte("Password used to authenticate"), []byte(`Password \u0007used`))
	model, leaves := decodeLeaves(t, string(doc))
	globals, err := Globals(model, []string{"password"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.FullCommand() != "echo" {
			continue
		}
		c, err := NewCommand(l.Path, l.Command, globals, Restricted)
		if err != nil {
			t.Fatal(err)
		}
		props := c.InputSchema()["properties"].(map[string]any)
		mode, _ := props["mode"].(map[string]any)["description"].(string)
		password, _ := props["password"].(map[string]any)["description"].(string)
		if !strings.HasPrefix(mode, "Processing mode\ufffd") || password != "Password used" {
			t.Errorf("descriptions %q and %q, want the help without its controls", mode, password)
		}
		return
	}
	t.Fatal("no echo leaf")
}
