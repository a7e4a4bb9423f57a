package introspect

import (
	"fmt"
	"os/exec"
	"reflect"
	"testing"
)

// The split path must be invisible: for any document, decode gives the
// model and the error decodeWhole gives.

var splitCases = []string{
	``,
	`   `,
	`{}`,
	`{"name":"app"}`,
	`{"name":"app","commands":[]}`,
	`{"name":"app","commands":null}`,
	`{"name":"app","commands":[null,{"name":"a"}]}`,
	`{"name":"app","commands":[{"name":"a","help":"a ] } \" [ {"},{"name":"b"}],"flags":[{"name":"f"}]}`,
	`{"commands":[{"name":"a"}],"name":"app"}`,
	`{"name":"","commands":[{"name":"a"}]}`,
	`{"name":"app","commands":[{"name":"a"}]} trailing`,
	`{"name":"app","commands":[{"name":"a"}]}{"name":"b"}`,
	`{"name":"app","commands":[{"name":"a"}],}`,
	`{"name":"app" "commands":[{"name":"a"}]}`,
	`{"name":"app","commands":[{"name":"a"} {"name":"b"}]}`,
	`{"name":"app","commands":[{"name":"a"},]}`,
	`{"name":"app","commands":[{"name":"a"}`,
	`{"name":"app","commands":[{"name":7}]}`,
	`{"name":"app","commands":[1 2]}`,
	`{"name":"app","commands":[{"name":"a"}],"commands":[{"name":"b"}]}`,
	`{"name":"app","Commands":[{"name":"a"}]}`,
	`{"name":"app","commands":[{"name":"a"}],"COMMANDS":[{"name":"b"}]}`,
	`{"name":"app","comm\u0061nds":[{"name":"a"}]}`,
	`{"name":"app","help":"\"commands\":[1]","commands":[{"name":"a"}]}`,
	`{"name":"app","commands":[{"name":"a","schema":{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}}]}`,
	`{"name":"app","commands":[{"name":"a\u0000"}]}`,
	"{\"name\":\"app\",\"commands\":[{\"name\":\"a\x01\"}]}",
	`{"name":"app","commands":[tru]}`,
	`{"name":"app","commands":[true]}`,
	`{"name":"app","commands":["a"]}`,
	`{"name":"app","commands":[{"name":"a"}]]}`,
	`{"name":"app","flags":[{"name":"f"],"commands":[{"name":"a"}]}`,
	`[{"name":"app"}]`,
	`"app"`,
}

func TestDecodeSplitAgreesWithWholeDecode(t *testing.T) {
	for _, doc := range splitCases {
		checkSplitAgrees(t, []byte(doc))
	}
}

func TestDecodeSplitsTheFixtureDocument(t *testing.T) {
	doc, err := exec.Command(fixtureBin, "--fisk-introspect").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := splitDocument(doc); !ok {
		t.Fatal("the fixture's document does not split; every start would take the slow path")
	}
	checkSplitAgrees(t, doc)
}

func FuzzDecodeSplitAgreesWithWholeDecode(f *testing.F) {
	for _, doc := range splitCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkSplitAgrees(t, doc) })
}

func checkSplitAgrees(t *testing.T, doc []byte) {
	t.Helper()
	got, gotErr := decode(doc)
	want, wantErr := decodeWhole(doc)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
		t.Errorf("decode(%q) = %+v, %v; decodeWhole = %+v, %v", doc, got, gotErr, want, wantErr)
	}
}
