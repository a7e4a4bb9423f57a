package nats

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// BenchmarkToolsList measures one tools/list of nats's full list (230
// tools) on a session already open over stdio pipes, the client reading
// nothing but the line: what every session of a shared server, and every
// client that lists again, costs the server. The baseline, sdk, is the
// SDK's own server listing the same descriptors with its own tools/list;
// fisk-mcp answers from its listing, each tool encoded once per published
// set, in fewer bytes (see server.EncodeTools).
func BenchmarkToolsList(b *testing.B) {
	_, nats := requireBinaries(b)
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"impact:rw"}}
	set, err := exposure.Load(b.Context(), []exposure.App{{Path: nats}}, nil, p,
		exposure.LoadOptions{Introspect: introspect.Options{Env: newSandbox(b).env()}})
	if err != nil {
		b.Fatalf("loading nats: %v", err)
	}
	cfg := server.Config{Defer: server.DeferNever, Logger: slog.New(slog.DiscardHandler)}
	listed, err := server.ListTools(b.Context(), cfg, set)
	if err != nil {
		b.Fatal(err)
	}

	b.Run("sdk", func(b *testing.B) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1"}, &mcp.ServerOptions{PageSize: len(listed.Tools)})
		for _, tool := range listed.Tools {
			srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
		}
		benchmarkList(b, len(listed.Tools), func(ctx context.Context, in io.Reader, out io.Writer) error {
			ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}, nil)
			if err != nil {
				return err
			}
			return ss.Wait()
		})
	})
	b.Run("fisk-mcp", func(b *testing.B) {
		srv, err := server.New(cfg, exposure.NewCurrent(set))
		if err != nil {
			b.Fatal(err)
		}
		benchmarkList(b, len(listed.Tools), srv.ServeStdio)
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// benchmarkList serves over pipes, completes the handshake, then lists
// once per iteration and checks that each answer holds every tool.
func benchmarkList(b *testing.B, tools int, serve func(ctx context.Context, in io.Reader, out io.Writer) error) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(b.Context())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, toServer, fromServer) }()
	defer func() {
		fromClient.Close()
		cancel()
		<-served
		toClient.Close()
	}()
	r := bufio.NewReaderSize(toClient, 1<<20)
	send := func(line string) {
		if _, err := io.WriteString(fromClient, line+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	read := func() []byte {
		line, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatalf("reading the answer: %v", err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var size int
	for i := 0; b.Loop(); i++ {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+2))
		line := read()
		if n := bytes.Count(line, []byte(`"inputSchema":`)); n != tools || bytes.Contains(line, []byte(`"nextCursor"`)) {
			b.Fatalf("the answer holds %d tools, want %d on one page: %.200s", n, tools, line)
		}
		size = len(line)
	}
	b.ReportMetric(float64(size), "bytes/list")
}
