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

// nested is a document whose one command's schema nests so that the whole
// is depth levels deep: in an object of objects, or in arrays; with
// whole, under a key the split does not take ("Commands"), so that
// encoding/json decodes it whole.
func nested(depth int, arrays, whole bool) []byte {
	levels := depth - 4 // the document, commands, the command, its schema
	inner := strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels)
	if arrays {
		inner = `{"a":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + "}"
	}
	key := "commands"
	if whole {
		key = "Commands"
	}
	return []byte(`{"name":"app","` + key + `":[{"name":"a","schema":{"s":` + inner + `}}]}`)
}

// A document nested deeper than MaxDepth is refused before anything
// decodes it, however deep: the faster decoder would take seconds per
// thousand levels and end the process with a stack overflow past a few
// million. One exactly MaxDepth deep decodes as encoding/json decodes it.
func TestDecodeRefusesADocumentNestedTooDeeply(t *testing.T) {
	for _, arrays := range []bool{false, true} {
		for _, whole := range []bool{false, true} {
			if got := depth(nested(MaxDepth, arrays, whole)); got != MaxDepth {
				t.Fatalf("the test document nests %d levels, want %d", got, MaxDepth)
			}
			doc := nested(MaxDepth, arrays, whole)
			app, err := Decode(doc)
			if err != nil {
				t.Errorf("arrays %v, whole %v: %d levels: %v", arrays, whole, MaxDepth, err)
			} else if want, err := decodeWhole(doc); err != nil || !reflect.DeepEqual(app, want) {
				t.Errorf("arrays %v, whole %v: %d levels decode unlike encoding/json (%v)", arrays, whole, MaxDepth, err)
			}
			for _, d := range []int{MaxDepth + 1, 8_000_000} {
				_, err := Decode(nested(d, arrays, whole))
				if !errors.Is(err, ErrNotJSON) || !strings.Contains(err.Error(), "levels deep") {
					t.Errorf("arrays %v, whole %v: %d levels: err = %v, want ErrNotJSON saying how deep", arrays, whole, d, err)
				}
			}
		}
	}
}
