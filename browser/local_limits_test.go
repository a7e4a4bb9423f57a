package browser

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Any process of the machine reaches the loopback listener: a request
// with a huge header is refused before it is read whole, and the
// approval is as it was.
func TestLocalRefusesAHugeHeader(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("X-Filler", strings.Repeat("a", 256<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if p := readPage(t, resp); p.status != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a 256 KiB header: %d, want 431", p.status)
	}
	pending(t, out)
	// A browser's header, with many cookies of other servers on
	// 127.0.0.1, still gets the page.
	req, _ = http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Cookie", strings.Repeat("other=0123456789abcdef; ", 600))
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if p := readPage(t, resp); p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Set-Cookie"), cookieName) {
		t.Fatalf("a 14 KiB header: %d, want the ticket exchanged", p.status)
	}
}
