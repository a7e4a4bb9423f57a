package server

import "testing"

func TestConnectAddrIsDialableLocally(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080": "127.0.0.1:8080",
		"0.0.0.0:8080":   "127.0.0.1:8080",
		"[::]:9000":      "127.0.0.1:9000",
		":7000":          "127.0.0.1:7000",
		"[::1]:7000":     "[::1]:7000",
		"10.1.2.3:80":    "10.1.2.3:80",
	} {
		if got := ConnectAddr(in); got != want {
			t.Errorf("ConnectAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
