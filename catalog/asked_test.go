package catalog

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var updateAsked = flag.Bool("update-asked", false, "rewrite asked/nats.json from the tune part of the labelled tasks")

const natsAsked = "asked/nats.json"

// measuredParts are the parts of the labelled tasks the ranking is
// measured on and never given.
var measuredParts = []string{heldoutTasks, heldout2Tasks, heldout3Tasks, heldout4Tasks, heldout5Tasks, modelTasks}

// sameRequest is a request as compared for repeats: in lower case, its
// spaces collapsed.
func sameRequest(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// natsAskedFromTune is what asked/nats.json must hold: every request of
// the tune part, under the command path of each tool labelled for it, in
// the order of the part and each once per command; but a request a
// measured part also has (two tune tasks repeat held-out ones) is left
// out, so that it is not given what it is measured on.
func natsAskedFromTune(t *testing.T) askedPack {
	titles := map[string]string{}
	for _, e := range natsSnapshot(t) {
		titles[e.Name] = e.Title
	}
	measured := map[string]bool{}
	for _, part := range measuredParts {
		for _, tk := range loadJSON[[]task](t, part) {
			measured[sameRequest(tk.Query)] = true
		}
	}
	p := askedPack{Application: "nats", WrittenFor: "natscli v0.5.0", Commands: map[string][]string{}}
	for _, tk := range loadJSON[[]task](t, tuneTasks) {
		if measured[sameRequest(tk.Query)] {
			continue
		}
		for _, name := range tk.Tools {
			title, ok := titles[name]
			if !ok {
				t.Fatalf("tune task %q names %s, which nats does not serve", tk.Query, name)
			}
			if !slices.Contains(p.Commands[title], tk.Query) {
				p.Commands[title] = append(p.Commands[title], tk.Query)
			}
		}
	}
	return p
}

// encodeAsked writes one command a line, so that a change reads as a diff
// of the commands it touched.
func encodeAsked(t *testing.T, p askedPack) []byte {
	var b bytes.Buffer
	head, err := json.Marshal(map[string]string{"application": p.Application, "written_for": p.WrittenFor})
	if err != nil {
		t.Fatal(err)
	}
	b.Write(head[:len(head)-1])
	b.WriteString(",\n\"commands\": {\n")
	for i, title := range slices.Sorted(maps.Keys(p.Commands)) {
		k, _ := json.Marshal(title)
		v, err := json.Marshal(p.Commands[title])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
		if i < len(p.Commands)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}}\n")
	return b.Bytes()
}

func TestAskedOfNATSIsTheTunePartAndNothingElse(t *testing.T) {
	want := natsAskedFromTune(t)
	if *updateAsked {
		if err := os.WriteFile(natsAsked, encodeAsked(t, want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, ok := askedPacks()["nats"]
	if !ok {
		t.Fatal("no requests are embedded for nats")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s is not the tune part's requests by command (rewrite it with -update-asked)", natsAsked)
	}
	raw, err := os.ReadFile(natsAsked)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, encodeAsked(t, want)) {
		t.Errorf("%s is not written one command a line (rewrite it with -update-asked)", natsAsked)
	}
}

// What the ranking is measured on must never be what it was given: no
// request of a held-out part, nor any a model wrote for them, is among
// the embedded ones, even in other case or spacing.
func TestAskedHoldsNoMeasuredRequest(t *testing.T) {
	embedded := map[string]string{}
	for app, p := range askedPacks() {
		for title, qs := range p.Commands {
			for _, q := range qs {
				embedded[sameRequest(q)] = app + " " + title
			}
		}
	}
	if len(embedded) < 1000 {
		t.Fatalf("only %d requests are embedded", len(embedded))
	}
	for _, part := range measuredParts {
		for _, tk := range loadJSON[[]task](t, part) {
			if at, ok := embedded[sameRequest(tk.Query)]; ok {
				t.Errorf("%s's %q is embedded, under %s", part, tk.Query, at)
			}
		}
	}
}

func TestAskedIsAFreshCopyAndNilForTheUnknown(t *testing.T) {
	a := Asked("nats", "stream ls")
	if len(a) == 0 {
		t.Fatal("nothing is known of nats stream ls")
	}
	a[0] = "changed"
	if Asked("nats", "stream ls")[0] == "changed" {
		t.Error("Asked shares its result with the embedded requests")
	}
	for _, c := range [][2]string{{"nats", "no such command"}, {"other", "stream ls"}, {"", ""}} {
		if got := Asked(c[0], c[1]); got != nil {
			t.Errorf("Asked(%q, %q) = %v, want nil", c[0], c[1], got)
		}
	}
}
