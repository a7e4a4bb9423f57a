package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A finding at or under a place already reported is dropped, and only
// those: a sibling, a longer key with the same start, or the root, is not
// under it.
func TestAViolationCoversItsPlaceAndWhatIsUnderIt(t *testing.T) {
	v := &violations{}
	v.add("/meta", "first")
	v.add("", "root")
	for ptr, want := range map[string]bool{
		"/meta": true, "/meta/a": true, "/meta/a/b": true, "": true,
		"/metadata": false, "/met": false, "/label": false, "/label/0": false,
	} {
		if got := v.covered(ptr); got != want {
			t.Errorf("covered(%q) = %v, want %v", ptr, got, want)
		}
	}
	v.add("/meta/a", "dropped")
	v.add("/label/0", "kept")
	if len(v.list) != 3 {
		t.Errorf("violations = %v, want first, root and kept", v.list)
	}
}

// manyViolations is a call to echo with n wrong keys, list items or map
// keys, each a violation of its own.
func manyViolations(shape string, n int) json.RawMessage {
	items := make([]string, n)
	open, shut := "", ""
	for i := range items {
		switch shape {
		case "keys":
			items[i] = fmt.Sprintf(`"k%d":1`, i)
		case "items":
			items[i], open, shut = `1`, `"label":[`, `]`
		case "map":
			items[i], open, shut = fmt.Sprintf(`"k=%d":"v"`, i), `"meta":{`, `}`
		}
	}
	return json.RawMessage(`{"context":"c","subject":"s",` + open + strings.Join(items, ",") + shut + `}`)
}

// BenchmarkValidateManyViolations validates calls holding 300 and 3,000
// violations of each shape: the time per op must grow about tenfold, not a
// hundredfold (a scan of every finding per finding made 50,000 wrong keys
// take 20 seconds).
func BenchmarkValidateManyViolations(b *testing.B) {
	c := command(b, "echo", Restricted)
	for _, shape := range []string{"keys", "items", "map"} {
		for _, n := range []int{300, 3000} {
			in := manyViolations(shape, n)
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					if c.Validate(in) == nil {
						b.Fatal("no violation")
					}
				}
			})
		}
	}
}
