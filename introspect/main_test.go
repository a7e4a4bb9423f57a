package introspect

import (
	"context"
	"testing"

	"github.com/choria-io/fisk"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// fixtureBin is the fixture fisk application, built once for the package;
// fixtureModel is its model, introspected once.
var (
	fixtureBin   string
	fixtureModel *fisk.ApplicationModel
)

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		if fixtureBin, err = s.Fixture(); err != nil {
			return err
		}
		fixtureModel, err = Load(context.Background(), fixtureBin, Options{})
		return err
	})
}
