package identity

import (
	"strings"
	"testing"
)

func TestServerMetadataIsTheIssuersOwn(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	meta, err := res.ServerMetadata(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if meta.Issuer != iss.url || !strings.HasSuffix(meta.AuthorizationEndpoint, "/auth") || !strings.HasSuffix(meta.TokenEndpoint, "/token") {
		t.Errorf("metadata = %+v", meta)
	}
	if cfg := res.Config(); cfg.Issuer != iss.url || cfg.Resource != resource || cfg.Leeway != DefaultLeeway {
		t.Errorf("config = %+v", cfg)
	}
	other, err := New(Config{Issuer: "http://127.0.0.1:9/", Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ServerMetadata(t.Context()); err == nil {
		t.Error("an issuer that serves no metadata gave some")
	}
}
