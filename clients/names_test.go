package clients_test

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestServerKeyNamesTheServer(t *testing.T) {
	cases := []struct {
		name string
		apps []exposure.App
		want string
	}{
		{"", []exposure.App{{Path: "/usr/bin/nats"}}, "nats"},
		{"", []exposure.App{{Path: "/usr/bin/nats", Prefix: "js"}}, "js"},
		{"", []exposure.App{{Path: "/a"}, {Path: "/b"}}, "fisk-mcp"},
		{"ops tools!", nil, "ops-tools"},
	}
	for _, tc := range cases {
		if got := clients.ServerKey(tc.name, tc.apps); got != tc.want {
			t.Errorf("ServerKey(%q, %v) = %q, want %q", tc.name, tc.apps, got, tc.want)
		}
	}
}
