package e2e

import (
	"context"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A reload that flips deferral, both ways, while several stateful HTTP
// sessions are open and others open and close: every open session is
// told the list changed, and afterwards every session, old or new, lists
// the same tools, byte for byte.
func TestDeferralFlipOnReloadTellsEveryHTTPSessionAndListsAlike(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(2))
	h := startHTTPCommand(t, exec.Command(fiskMCP, serveArgs("--http", "127.0.0.1:0", "--insecure-no-auth",
		"--watch", "--defer-threshold", "2", app)...), "")
	h.log.waitRecord(t, "for the watcher", func(r map[string]any) bool {
		return r["msg"] == "watching the apps for changes; SIGHUP reloads at once"
	})

	type watched struct {
		changed chan struct{}
		list    func() ([]string, string)
	}
	var sessions []watched
	// Legacy sessions only: a 2026-07-28 client over HTTP gives no sign
	// that its subscription has been taken, so a test could not tell a
	// lost notification from one sent before it listened.
	for range 3 {
		changed := make(chan struct{}, 16)
		cs := h.connect(t, client{protocol: legacyProtocol, listChanged: func() { changed <- struct{}{} }})
		sessions = append(sessions, watched{changed, func() ([]string, string) { return listJSON(t, cs) }})
	}

	// Sessions open, list and close throughout the reloads.
	ctx, stop := context.WithCancel(context.Background())
	var churn sync.WaitGroup
	churn.Go(func() {
		for ctx.Err() == nil {
			transport := &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}
			cs, err := client{protocol: legacyProtocol}.newClient("churn").Connect(ctx, transport, nil)
			if err == nil {
				_, err = cs.ListTools(ctx, nil)
				_ = cs.Close()
			}
			if err != nil && ctx.Err() == nil {
				t.Errorf("a session opened while reloading: %v", err)
				return
			}
		}
	})
	defer churn.Wait()
	defer stop()

	steps := []struct {
		tools int
		want  []string
	}{
		{3, discovery[:4]},
		{1, []string{"group0000_cmd0000"}},
		{3, discovery[:4]},
	}
	for i, step := range steps {
		installApp(t, dir, "tool", syntheticApp(step.tools))
		h.log.waitRecords(t, "for the reload", func(recs []map[string]any) map[string]any {
			var seen []map[string]any
			for _, r := range recs {
				if r["msg"] == "tool set published" {
					seen = append(seen, r)
				}
			}
			if len(seen) == i+1 {
				return seen[i]
			}
			return nil
		})
		for _, s := range sessions {
			await(t, s.changed, "list_changed")
		}
		_, first := listJSON(t, h.connect(t, client{protocol: legacyProtocol}))
		for j, s := range sessions {
			names, raw := s.list()
			if !slices.Equal(names, step.want) {
				t.Fatalf("step %d, session %d lists %v, want %v", i, j, names, step.want)
			}
			if raw != first {
				t.Errorf("step %d, session %d lists differently from a new session:\n%s\n%s", i, j, raw, first)
			}
		}
	}
}
