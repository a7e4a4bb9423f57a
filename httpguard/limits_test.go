package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Headers are bounded far below net/http's 1 MiB: a request with 100 KiB
// of them is refused (431), one with 8 KiB is served.
func TestLimitsBoundRequestHeaders(t *testing.T) {
	srv := httptest.NewUnstartedServer(served)
	Limits{ReadTimeout: time.Minute, IdleTimeout: time.Minute}.Apply(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	for size, want := range map[int]int{100 << 10: http.StatusRequestHeaderFieldsTooLarge, 8 << 10: http.StatusOK} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Padding", strings.Repeat("p", size))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%d KiB of headers: status %d, want %d", size>>10, resp.StatusCode, want)
		}
	}
}
