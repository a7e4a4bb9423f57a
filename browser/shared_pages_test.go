package browser

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"
)

var sectionID = regexp.MustCompile(`<section id="p-([^"]+)">`)

func TestSharedListShowsAPageAtATimeWithLinksAndTheCount(t *testing.T) {
	store := NewMemoryStore()
	const total = 2*ListPage + 20
	start := time.Now()
	for i := range total {
		p := Pending{Request: sharedRequest(fmt.Sprintf("r%03d", i)), Created: start.Add(time.Duration(i) * time.Millisecond)}
		if err := store.Put(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	rig := newSharedRig(t, store)
	c := browserClient(t)
	rig.signIn(t, c)
	cases := []struct {
		query      string
		first, n   int
		count      string
		prev, next string
	}{
		{"", 0, ListPage, "120 waiting; page 1 of 3, 50 a page, oldest first.", "", "/approvals?page=2"},
		{"?page=2", ListPage, ListPage, "page 2 of 3", "/approvals?page=1", "/approvals?page=3"},
		{"?page=3", 2 * ListPage, 20, "page 3 of 3", "/approvals?page=2", ""},
		{"?page=99", 2 * ListPage, 20, "page 3 of 3", "/approvals?page=2", ""},
		{"?page=x", 0, ListPage, "page 1 of 3", "", "/approvals?page=2"},
	}
	for _, cs := range cases {
		t.Run(cs.query, func(t *testing.T) {
			p := get(t, c, rig.url()+cs.query)
			ids := sectionID.FindAllStringSubmatch(p.body, -1)
			if len(ids) != cs.n || ids[0][1] != fmt.Sprintf("r%03d", cs.first) || ids[len(ids)-1][1] != fmt.Sprintf("r%03d", cs.first+cs.n-1) {
				t.Fatalf("page shows %d approvals from %v, want %d from r%03d", len(ids), ids[0], cs.n, cs.first)
			}
			if !strings.Contains(p.body, cs.count) {
				t.Errorf("page does not say %q", cs.count)
			}
			for id, want := range map[string]string{"prev": cs.prev, "next": cs.next} {
				m := regexp.MustCompile(`id="` + id + `" href="([^"]+)"`).FindStringSubmatch(p.body)
				got := ""
				if m != nil {
					got = html.UnescapeString(m[1])
				}
				if got != want {
					t.Errorf("%s link %q, want %q", id, got, want)
				}
			}
		})
	}
}

func TestSharedListSizeIsBoundedWhateverTheStoreHolds(t *testing.T) {
	store := NewMemoryStore()
	for i := range 3000 {
		r := sharedRequest(fmt.Sprintf("r%04d", i))
		r.CommandLine = strings.Repeat("x", 1000)
		if err := store.Put(t.Context(), Pending{Request: r, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	rig := newSharedRig(t, store)
	c := browserClient(t)
	rig.signIn(t, c)
	p := get(t, c, rig.url())
	if n := len(p.body); n > 200<<10 {
		t.Errorf("the list of 3000 approvals is %d bytes, want a page of at most 200 KiB", n)
	}
	if !strings.Contains(p.body, "3000 waiting") {
		t.Errorf("the list does not say how many are waiting")
	}
}
