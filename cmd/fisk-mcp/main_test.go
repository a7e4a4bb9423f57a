package main

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// TestMain gives the tests a home of their own: the commands they run
// must never read or write the person's own client configurations or
// cache.
func TestMain(m *testing.M) { testsupport.Main(m, nil) }
