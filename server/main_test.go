package server

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// fixtureBin is the fixture fisk application, built once for the package.
var fixtureBin string

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		fixtureBin, err = s.Fixture()
		return err
	})
}
