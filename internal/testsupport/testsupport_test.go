package testsupport

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLogBufferRecordsOnlyCompleteLinesWithTheMessage(t *testing.T) {
	var b LogBuffer
	fmt.Fprint(&b, `{"msg":"a","n":1}`+"\n"+"not json\n"+`{"msg":"b"}`+"\n"+`{"msg":"a","n":2}`+"\n"+`{"msg":"a","n":3}`)
	var ns []any
	for _, r := range b.Records("a") {
		ns = append(ns, r["n"])
	}
	if !slices.Equal(ns, []any{1.0, 2.0}) {
		t.Errorf(`Records("a") holds n = %v, want 1 and 2 (3 is not a complete line yet)`, ns)
	}
	if n := len(b.Records("")); n != 3 {
		t.Errorf(`Records("") holds %d records, want every complete one, 3`, n)
	}
}

func TestLogBufferWaitRecordsSeesAConcurrentWrite(t *testing.T) {
	var b LogBuffer
	go fmt.Fprintln(&b, `{"msg":"ready"}`)
	rec := b.WaitRecords(t, "ready", patience, func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "ready" {
				return r
			}
		}
		return nil
	})
	if rec["msg"] != "ready" {
		t.Errorf("WaitRecords returned %v", rec)
	}
}

func TestTempCopyIsAnIndependentExecutableCopy(t *testing.T) {
	src := t.TempDir() + "/prog"
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := TempCopy(t, src)
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dst)
	if err != nil || fi.Mode().Perm()&0o100 == 0 || fi.Size() != int64(len("#!/bin/sh\n")) {
		t.Fatalf("copy %s: %v %v", dst, fi, err)
	}
}

func TestClientHelpersSpeakToAnInMemoryServerAtEitherVersion(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "run", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}},
				StructuredContent: map[string]any{"command": "run", "exit_code": 3},
			}, nil
		})
	for _, version := range []string{LegacyProtocol, ModernProtocol} {
		t.Run(version, func(t *testing.T) {
			cs := Connect(t, srv, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil), version)
			if tools := ListTools(t, cs); tools["run"] == nil || len(tools) != 1 {
				t.Errorf("ListTools = %v", tools)
			}
			res := Call(t, cs, "run", map[string]any{})
			if got := Text(res); got != "one\ntwo" {
				t.Errorf("Text = %q", got)
			}
			if env := Envelope(t, res); env.Command != "run" || env.ExitCode != 3 {
				t.Errorf("Envelope = %+v", env)
			}
		})
	}
}

// patience bounds the waits of these tests; it only turns a hang into a
// failure.
const patience = time.Minute

func TestRawPeerSpeaksToAStdioServer(t *testing.T) {
	toServer, fromPeer := io.Pipe()
	toPeer, fromServer := io.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	ss, err := srv.Connect(t.Context(), &mcp.IOTransport{Reader: toServer, Writer: fromServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	peer := NewRawPeer(t, fromPeer, toPeer, patience)
	peer.Initialize(1, LegacyProtocol)
	// A notification the server answers nothing to, then a request whose
	// response Call must pick out.
	peer.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	if resp := peer.Call(2, "ping", nil); resp["error"] != nil || resp["result"] == nil {
		t.Errorf("ping answered %v, want a result", resp)
	}
}
