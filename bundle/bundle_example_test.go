package bundle_test

import (
	"fmt"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/bundle"
)

// The application-level flags with an environment variable become the
// settings Claude Desktop asks for: a secret masked, a file with a picker.
func ExampleVariables() {
	nats := &fisk.ApplicationModel{Name: "nats", FlagGroupModel: &fisk.FlagGroupModel{Flags: []*fisk.FlagModel{
		{Name: "server", Envar: "NATS_URL", PlaceHolder: "URL", Help: "NATS server urls"},
		{Name: "password", Envar: "NATS_PASSWORD", Help: "Password"},
		{Name: "tlscert", Envar: "NATS_CERT", PlaceHolder: "FILE", Help: "TLS public certificate"},
	}}}
	for _, v := range bundle.Variables("nats", nats, nil) {
		fmt.Println(v.Name, v.Type, v.Sensitive)
	}
	// Output:
	// NATS_URL string false
	// NATS_PASSWORD string true
	// NATS_CERT file false
}
