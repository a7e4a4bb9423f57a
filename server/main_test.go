package server

import (
	"fmt"
	"os"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/integration/fixture"
)

// fixtureBin is the fixture fisk application, built once for the package.
var fixtureBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin, cleanup, err := fixture.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	fixtureBin = bin
	return m.Run()
}
