// Package e2e tests the fisk-mcp binary end to end: the real binary serving
// the real fixture fisk application, driven by the MCP SDK's own client over
// stdio and streamable HTTP, under protocol versions 2025-11-25 and
// 2026-07-28.
package e2e

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

const fiskMCPPackage = "github.com/fisk-mcp/fisk-mcp/cmd/fisk-mcp"

// The protocol versions every client-facing behaviour is proven under: the
// last one where the server elicits, and the first where the client does.
const (
	legacyProtocol = testsupport.LegacyProtocol
	modernProtocol = testsupport.ModernProtocol
)

var protocols = testsupport.Protocols

// Binaries built once for the whole package.
var (
	fiskMCP    string // the fisk-mcp binary under test
	fixtureBin string // the fixture fisk application
)

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		if fiskMCP, err = s.Build(fiskMCPPackage, "fisk-mcp"); err != nil {
			return err
		}
		fixtureBin, err = s.Fixture()
		return err
	})
}
