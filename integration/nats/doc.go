// Package nats is the end-to-end test of fisk-mcp against a real, large fisk
// application: the nats CLI (natscli v0.5.0, built with fisk v0.9.1). The
// test installs the CLI through the Go module proxy into a user cache
// directory, serves it with the fisk-mcp binary over stdio and drives it
// with the MCP SDK's own client.
//
// The package has no code of its own; see the _test.go files.
package nats
