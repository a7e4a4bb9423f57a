package httpguard

import (
	"net/http"
	"strings"
	"testing"
)

func TestOriginCheck(t *testing.T) {
	h := guarded(t, Config{Addr: "127.0.0.1:8080", AllowOrigins: []string{"https://ide.example"}})
	cases := []struct {
		name    string
		method  string
		headers map[string]string
		want    int
	}{
		{"foreign origin", http.MethodPost, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", http.MethodPost, map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"cross-site fetch", http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"foreign origin on a GET", http.MethodGet, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"allowed origin", http.MethodPost, map[string]string{"Origin": "https://ide.example"}, http.StatusOK},
		{"same origin", http.MethodPost, map[string]string{"Origin": "http://localhost:8080"}, http.StatusOK},
		{"no origin", http.MethodPost, nil, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if resp := serveOn(t, h, loopbackAddr, c.method, "localhost:8080", c.headers); resp.StatusCode != c.want {
				t.Errorf("status %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
}

func TestNewRefusesMalformedAllowedOrigins(t *testing.T) {
	for _, origin := range []string{"ide.example", "https://ide.example/path"} {
		if _, err := New(Config{AllowOrigins: []string{origin}}); err == nil || !strings.Contains(err.Error(), "scheme://host") {
			t.Errorf("allowed origin %q: error %v, want one saying how to write it", origin, err)
		}
	}
}
