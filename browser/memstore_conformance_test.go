package browser_test

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/browser/storetest"
)

func TestMemoryStoreConforms(t *testing.T) {
	storetest.Run(t, func(*testing.T) browser.Store { return browser.NewMemoryStore() })
}
