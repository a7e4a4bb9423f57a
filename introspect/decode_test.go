package introspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
	sjson "github.com/segmentio/encoding/json"
)

// TestDecodeEqualsOnePlainDecode proves that decoding the top-level
// commands apart (and concurrently) yields exactly the model one
// encoding/json decode of the whole document yields.
func TestDecodeEqualsOnePlainDecode(t *testing.T) {
	doc, err := exec.Command(fixtureBin, "--fisk-introspect").Output()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var want fisk.ApplicationModel
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want.CmdGroupModel == nil || len(want.Commands) < 2 {
		t.Fatalf("the fixture has %v top-level commands; the test needs several", want.CmdGroupModel)
	}
	if !reflect.DeepEqual(got, &want) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(&want)
		t.Errorf("Decode differs from a plain decode:\n got %s\nwant %s", a, b)
	}
}

func TestDecodeNamesTheCommandThatDoesNotDecode(t *testing.T) {
	_, err := Decode([]byte(`{"name":"app","commands":[{"name":"a"},{"name":7}]}`))
	if !errors.Is(err, ErrNotJSON) || !strings.Contains(err.Error(), "commands[1]") {
		t.Errorf("err = %v, want ErrNotJSON naming commands[1]", err)
	}
}

// A faster decoder that panics cannot end the server or change what a load
// sees: the part is left to encoding/json.
func TestDecodeSurvivesAPanickingFastDecoder(t *testing.T) {
	doc, err := exec.Command(fixtureBin, "--fisk-introspect").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeWhole(doc)
	if err != nil {
		t.Fatal(err)
	}
	real := fastParse
	t.Cleanup(func() { fastParse = real })
	var calls int
	fastParse = func(b []byte, x any, flags sjson.ParseFlags) ([]byte, error) {
		calls++
		panic("decoder bug")
	}
	got, err := Decode(doc)
	if err != nil || !reflect.DeepEqual(got, want) || calls == 0 {
		t.Errorf("Decode with a panicking fast decoder = %v (%d calls), want the model encoding/json reads", err, calls)
	}
}
