// Command replay is the fastest stdio MCP server that still has to ask a
// fisk binary what it serves: it runs BINARY --fisk-introspect, discards
// what it prints, and then answers initialize and tools/list with results
// recorded beforehand, decoding nothing but each request's id and method.
// BenchmarkStartup starts it as a client would start fisk-mcp: what a
// client waits for it is the floor of any server that introspects at
// start, the client's own reading of the list included.
//
// Usage: replay BINARY RECORDED, where RECORDED holds two lines: the
// result of initialize, then the result of tools/list, each one JSON
// value. It is a measuring instrument, not a server to use: every other
// request is answered "method not found".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: replay BINARY RECORDED")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

func run(binary, recorded string, in io.Reader, out io.Writer) error {
	cmd := exec.Command(binary, "--fisk-introspect")
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("introspecting %s: %w", binary, err)
	}
	raw, err := os.ReadFile(recorded)
	if err != nil {
		return err
	}
	initialize, list, ok := bytes.Cut(bytes.TrimSpace(raw), []byte("\n"))
	if !ok {
		return fmt.Errorf("%s: want two lines, the results of initialize and tools/list", recorded)
	}
	results := map[string][]byte{"initialize": initialize, "tools/list": list}

	r := bufio.NewReader(in)
	w := bufio.NewWriterSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := answer(w, line, results); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// answer writes the response to one request line; a notification gets
// none.
func answer(w *bufio.Writer, line []byte, results map[string][]byte) error {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return fmt.Errorf("reading a request: %w", err)
	}
	if len(req.ID) == 0 {
		return nil
	}
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	w.Write(req.ID)
	if result, ok := results[req.Method]; ok {
		w.WriteString(`,"result":`)
		w.Write(result)
	} else {
		fmt.Fprintf(w, `,"error":{"code":-32601,"message":%q}`, "method not found: "+req.Method)
	}
	w.WriteString("}\n")
	return w.Flush()
}
