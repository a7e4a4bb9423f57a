package main

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestConnectAddrIsDialableLocally(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080": "127.0.0.1:8080",
		"0.0.0.0:8080":   "127.0.0.1:8080",
		"[::]:9000":      "127.0.0.1:9000",
		":7000":          "127.0.0.1:7000",
		"[::1]:7000":     "[::1]:7000",
		"10.1.2.3:80":    "10.1.2.3:80",
	} {
		if got := connectAddr(in); got != want {
			t.Errorf("connectAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBehaviourWordsReadWell(t *testing.T) {
	cases := []struct {
		b    exposure.Behavior
		want string
	}{
		{exposure.Behavior{ReadOnly: true, Idempotent: true, OpenWorld: true}, "read-only, idempotent"},
		{exposure.ConservativeBehavior, "destructive"},
		{exposure.Behavior{OpenWorld: false}, "additive, closed-world"},
	}
	for _, tc := range cases {
		if got := behaviourWords(tc.b); got != tc.want {
			t.Errorf("behaviourWords(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestOneLineKeepsTheFirstLineWithinWidth(t *testing.T) {
	if got := oneLine("  first line\nsecond", 72); got != "first line" {
		t.Errorf("got %q", got)
	}
	if got := oneLine("ééééééééé", 5); got != "éééé…" {
		t.Errorf("got %q", got)
	}
}
