package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessOnlyVersion is the first protocol version the SDK's streamable
// HTTP transport serves only without sessions.
const statelessOnlyVersion = "2026-07-28"

// statefulVersions are the protocol versions stateful streamable HTTP
// serves: the SDK's, less those it serves only statelessly. server/discover
// on such a server lists exactly these.
func statefulVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= statelessOnlyVersion })
}

// discoverVersions makes stateful HTTP name one list of versions. The SDK
// answers server/discover on a stateful server with the versions its
// transport serves (statefulVersions), but a discover for a version it does
// not know at all with an UnsupportedProtocolVersion error (-32022) listing
// every version of the server, 2026-07-28 included, which this transport
// then rejects. The error is made before any receiving middleware runs, so
// it is answered here instead, with the versions discover lists.
//
// Only requests whose Mcp-Protocol-Version header names a version this
// transport does not serve are read ahead, and only a discover whose body
// asks for that same, unknown, version is answered here; every other
// request passes untouched, body and all.
func discoverVersions(maxBody int64, next http.Handler) http.Handler {
	served := statefulVersions()
	known := mcp.SupportedProtocolVersions()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Mcp-Protocol-Version")
		if r.Method != http.MethodPost || header == "" || slices.Contains(served, header) || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		if err != nil || int64(len(body)) > maxBody {
			next.ServeHTTP(w, r) // the SDK reports what is wrong with it
			return
		}
		id, requested, ok := discoverRequest(body)
		if !ok || requested != header || slices.Contains(known, requested) {
			// A header that disagrees with the body is the SDK's to report.
			next.ServeHTTP(w, r)
			return
		}
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: served, Requested: requested})
		writeError(w, http.StatusBadRequest, id, &jsonrpc.Error{
			Code:    mcp.CodeUnsupportedProtocolVersion,
			Message: fmt.Sprintf("protocol version %q is not supported by this server; use one of %q", requested, served),
			Data:    data,
		})
	})
}

// discoverRequest reports whether body is one server/discover request, with
// its id and the protocol version its _meta asks for.
func discoverRequest(body []byte) (id jsonrpc.ID, version string, ok bool) {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return id, "", false
	}
	req, isReq := msg.(*jsonrpc.Request)
	if !isReq || req.Method != "server/discover" || !req.IsCall() {
		return id, "", false
	}
	var params struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(req.Params, &params); err != nil {
		return id, "", false
	}
	version, _ = params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return req.ID, version, version != ""
}

// writeError writes a JSON-RPC error response the way the SDK's transport
// does for the errors it answers itself.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// readCloser reads from a reader and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}
