package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capabilities is what the server declares: tools, with list-changed even
// while the set is empty, so a later Publish can add tools. Nothing else:
// the server has no prompts, resources, completions or logging of its own.
func capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
}

// capabilityOf names, for each request method the SDK would answer on its
// own, the server capability it belongs to.
var capabilityOf = map[string]string{
	"prompts/list":             "prompts",
	"prompts/get":              "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resources",
	"resources/read":           "resources",
	"resources/subscribe":      "resources",
	"resources/unsubscribe":    "resources",
	"completion/complete":      "completions",
	"logging/setLevel":         "logging",
}

// declares reports whether caps declares the capability called name.
func declares(caps *mcp.ServerCapabilities, name string) bool {
	switch name {
	case "prompts":
		return caps.Prompts != nil
	case "resources":
		return caps.Resources != nil
	case "completions":
		return caps.Completions != nil
	case "logging":
		//lint:ignore SA1019 a client before protocol 2026-07-28 may still call logging/setLevel, which is refused as undeclared
		return caps.Logging != nil
	}
	return false
}

// undeclaredMethods is the receiving middleware that answers a method of a
// capability the server does not declare with "method not found"
// (-32601), as the protocol asks. Without it the SDK answers prompts/list,
// resources/list or logging/setLevel with an empty result, and a client
// (or a conformance check) concludes the server has prompts it forgot to
// declare. It is kept apart from the call middleware: it decides which
// methods exist, not how a call runs.
func undeclaredMethods(caps *mcp.ServerCapabilities) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if capability, ok := capabilityOf[method]; ok && !declares(caps, capability) {
				return nil, &jsonrpc.Error{
					Code:    jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method %q not found: this server declares no %s capability (it serves tools only)", method, capability),
				}
			}
			return next(ctx, method, req)
		}
	}
}
