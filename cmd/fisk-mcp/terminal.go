package main

// terminalNotice is what serve says when a person, not a client, is at
// the other end of stdin: typed text would only get JSON-RPC parse errors.
const terminalNotice = "stdin is a terminal: fisk-mcp serve is an MCP server speaking JSON-RPC on stdin and stdout, meant to be started by an MCP client, not typed at; " +
	"to see the tools run fisk-mcp tools APP..., to connect a client run fisk-mcp config CLIENT APP... or serve --http 127.0.0.1:8080 (make run in the source tree); Ctrl-C stops it"
