package e2e

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A binary replaced, and reloaded, while a person is asked to approve a
// call of it: the approval was for the program described to them, so the
// call refuses rather than run the replacement.
func TestBinaryReplacedWhileItsCallAwaitsApprovalRunsNothing(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			dir := t.TempDir()
			app := installApp(t, dir, "tool", copyOf(fixtureBin))
			asking, proceed := make(chan struct{}), make(chan struct{})
			var once sync.Once
			elicit := func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				first := false
				once.Do(func() { first = true })
				if !first {
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
				close(asking)
				select {
				case <-proceed:
					return yes, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			s := startStdio(t, client{protocol: proto, elicit: elicit}, "--watch", app)
			path := filepath.Join(t.TempDir(), "touched")
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			called := make(chan outcome, 1)
			go func() {
				res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
				called <- outcome{res, err}
			}()
			await(t, asking, "the approval question")
			// The same tools from another program: a wrapper.
			installApp(t, dir, "tool", func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "#!/bin/sh\nexec %s \"$@\"\n", fixtureBin)
				return err
			})
			s.published(t)
			close(proceed)
			got := await(t, called, "the call's result")
			if got.err != nil || !got.res.IsError || !strings.Contains(text(got.res), "tool changed") {
				t.Errorf("the call was not refused as changed: %v %s", got.err, text(got.res))
			}
			if exists(path) {
				t.Errorf("the replaced binary ran on an approval given for the one before it")
			}
			for _, r := range s.log.finalCalls("touch") {
				if r["exit_code"] != nil {
					t.Errorf("a command ran: %v", r)
				}
			}
		})
	}
}
