package introspect

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/choria-io/fisk"
	"github.com/fisk-mcp/fisk-mcp/integration/fixture"
)

// fixtureBin is the fixture fisk application, built once for the package;
// fixtureModel is its model, introspected once.
var (
	fixtureBin   string
	fixtureModel *fisk.ApplicationModel
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	bin, cleanup, err := fixture.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	fixtureBin = bin
	fixtureModel, err = Load(context.Background(), bin, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
