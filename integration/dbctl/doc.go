// Package dbctl keeps the search-quality data of the second fixture
// application, dbctl (internal/testsupport/fixture/cmd/fisk-dbctl), equal to
// its real build: the tools fisk-mcp serves for it, as catalog entries, and
// the help a person reads for it.
//
// The package has no code of its own; see the _test.go files.
package dbctl
