package canonical_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/canonical"
)

func fromJSON(t *testing.T, doc string) string {
	t.Helper()
	var e canonical.Encoder
	if err := e.JSON([]byte(doc)); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return string(e.Bytes())
}

func fromValue(t *testing.T, v any) string {
	t.Helper()
	var e canonical.Encoder
	if err := e.Value(v); err != nil {
		t.Fatalf("%v: %v", v, err)
	}
	return string(e.Bytes())
}

// A document and the value encoding/json decodes it into are written alike:
// the raw-document path and the in-memory path are one encoder.
func TestADocumentIsWrittenLikeTheValueItDecodesTo(t *testing.T) {
	for _, doc := range []string{
		`{"b":[1,2.5,-0,1e3,"x"],"a":{"z":null,"y":true,"x":false},"c":"\u00e9\n\"<>&"}`,
		`[]`, `{}`, `"plain"`, `12345678901234567890`, `[{"":{}}]`,
	} {
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if got, want := fromJSON(t, doc), fromValue(t, v); got != want {
			t.Errorf("%s:\n JSON  %s\n Value %s", doc, got, want)
		}
	}
}

func TestOnlyOrderWhiteSpaceAndEscapesAreIgnored(t *testing.T) {
	base := fromJSON(t, `{"name":"orders","force":true,"n":[1,2]}`)
	for _, doc := range []string{
		`{"force":true,"n":[1,2],"name":"orders"}`,
		" {\n\t\"n\" : [ 1 , 2 ],\"name\":\"orders\", \"force\":true } ",
		`{"name":"\u006frders","force":true,"n":[1,2]}`,
	} {
		if got := fromJSON(t, doc); got != base {
			t.Errorf("%s: %s, want %s", doc, got, base)
		}
	}
	for _, doc := range []string{
		`{"name":"orders","force":true,"n":[2,1]}`,
		`{"name":"orders","force":true,"n":[1,2.0]}`,
		`{"name":"orders","force":true,"n":[1,"2"]}`,
		`{"name":"orders","force":true,"n":[1,2],"extra":null}`,
		`{"name":["orders"],"force":true,"n":[1,2]}`,
	} {
		if got := fromJSON(t, doc); got == base {
			t.Errorf("%s is written like the original", doc)
		}
	}
}

func TestADocumentWithoutOneMeaningIsRefused(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want error
	}{
		{`{"name":"a","name":"b"}`, canonical.ErrDuplicateKey},
		{`{"x":{"k":1,"k":1}}`, canonical.ErrDuplicateKey},
		{`{"name":"a"} {"name":"b"}`, canonical.ErrTrailingData},
		{`{} x`, canonical.ErrTrailingData},
		{strings.Repeat("[", canonical.MaxDepth+2) + strings.Repeat("]", canonical.MaxDepth+2), canonical.ErrTooDeep},
		{`{"name":`, nil},
		{``, nil},
	} {
		var e canonical.Encoder
		err := e.JSON([]byte(tt.doc))
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%.40s: %v, want %v", tt.doc, err, tt.want)
		}
		if len(e.Bytes()) != 0 {
			t.Errorf("%.40s: wrote %q on error", tt.doc, e.Bytes())
		}
	}
	deep := strings.Repeat("[", canonical.MaxDepth+1) + strings.Repeat("]", canonical.MaxDepth+1)
	if got := fromJSON(t, deep); got != deep {
		t.Errorf("a document at the depth bound: %s", got)
	}
}

// Strings that JSON would write alike (invalid UTF-8 becomes U+FFFD) stay
// apart, so a hash over a path or a description tells them apart.
func TestStringsThatAreNotUTF8StayDistinct(t *testing.T) {
	a, b := fromValue(t, "a\xff"), fromValue(t, "a\xfe")
	if a == b || a == fromValue(t, "a\uFFFD") {
		t.Errorf("%s %s", a, b)
	}
}

func TestNumbersAreWrittenAsJSONWritesThem(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{1.0, "1"}, {1.5, "1.5"}, {1e20, "100000000000000000000"}, {1e21, "1e+21"}, {1e-7, "1e-7"},
		{-0.000001, "-0.000001"}, {7, "7"}, {json.Number("1.0"), "1.0"}, {json.Number("-2e-3"), "-2e-3"},
	} {
		if got := fromValue(t, tt.v); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.v, got, tt.want)
		}
		if f, ok := tt.v.(float64); ok {
			if doc, _ := json.Marshal(f); string(doc) != tt.want {
				t.Errorf("encoding/json writes %v as %s", f, doc)
			}
		}
	}
}

func TestValuesThatAreNotJSONAreRefusedUnlessAnyType(t *testing.T) {
	for _, v := range []any{map[string]string{"a": "b"}, int64(1), json.Number("1,2"), json.Number(""), math.NaN(), math.Inf(1), struct{}{}} {
		var e canonical.Encoder
		var te *canonical.TypeError
		if err := e.Value(map[string]any{"k": v}); !errors.As(err, &te) {
			t.Errorf("%#v: %v, want a *TypeError", v, err)
		}
	}
	written := func(v any) string {
		e := canonical.Encoder{AnyType: true}
		if err := e.Value(v); err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		return string(e.Bytes())
	}
	if got, want := written(map[string]any{"m": map[string]string{"b": "2", "a": "1"}, "n": []int{1}}), fromJSON(t, `{"m":{"a":"1","b":"2"},"n":[1]}`); got != want {
		t.Errorf("AnyType writes %s, want it written like its JSON %s", got, want)
	}
	if nan, inf := written(math.NaN()), written(math.Inf(1)); nan == inf || strings.HasPrefix(nan, "n") {
		t.Errorf("NaN %s and +Inf %s must be distinct markers", nan, inf)
	}
}

func TestObjectLeavesOutOnlyTheTopLevelMembersOmitted(t *testing.T) {
	var e canonical.Encoder
	m := map[string]any{"type": "string", "description": "top", "items": map[string]any{"description": "kept"}}
	if err := e.Object(m, func(k string) bool { return k == "description" }); err != nil {
		t.Fatal(err)
	}
	if got, want := string(e.Bytes()), `{"items":{"description":"kept"},"type":"string"}`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// An Encoder with a writer passes on exactly what it would have kept.
func TestStreamingWritesWhatBytesHolds(t *testing.T) {
	big := map[string]any{}
	for i := range 2000 {
		big[strings.Repeat("k", i%50)+string(rune('a'+i%26))+strings.Repeat("x", i/26)] = []any{float64(i), "v", nil}
	}
	var whole canonical.Encoder
	whole.Value(big)
	whole.RawString("\nend=")
	whole.String("done")

	var pieces bytes.Buffer
	e := canonical.NewEncoder(&pieces)
	e.Value(big)
	e.RawString("\nend=")
	e.String("done")
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pieces.Bytes(), whole.Bytes()) || len(whole.Bytes()) < 4*4096 {
		t.Fatalf("streamed %d bytes, kept %d", pieces.Len(), len(whole.Bytes()))
	}
}
