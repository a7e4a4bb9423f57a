package main

import (
	"fmt"

	"github.com/choria-io/fisk"
	fiskversion "github.com/fisk-mcp/fisk-mcp/internal/version"
)

// version is set at link time with -ldflags "-X main.version=v1.2.3" (the
// Makefile does); otherwise what the toolchain recorded is used.
var version = ""

// buildVersion is the short version clients, bundles and --version see.
func buildVersion() string { return fiskversion.Read(version).Version }

func (c *cli) registerVersion(app *fisk.Application) {
	app.Command("version", "Print the version of fisk-mcp, its commit and the Go toolchain that built it").Action(func(*fisk.ParseContext) error {
		_, err := fmt.Fprintf(c.stdout, "fisk-mcp %s\n", fiskversion.Read(version))
		return err
	})
}
