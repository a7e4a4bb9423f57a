package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shortReadTimeout is short enough for a test to outlast it several times.
const shortReadTimeout = 100 * time.Millisecond

// outlast lets d pass several times over. The passing of time is what these
// tests are about, so this wait is the condition under test, not a way to
// synchronise with the server.
func outlast(d time.Duration) { <-time.After(5 * d) }

// A call that runs for longer than ReadTimeout is answered normally: the
// read deadline ends once the request body has been read. Were it still
// armed, net/http would cancel the request's context when it expired, and
// a stateless server would cancel the call with it.
func TestReadTimeoutDoesNotCutALongCall(t *testing.T) {
	b := newBarrier()
	s, _ := newServer(t, Config{}, customSet(t, b.tool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{Stateless: true, ReadTimeout: shortReadTimeout})
	cs := connectHTTP(t, base, "", modernVersion, nil)
	done := background(func() *mcp.CallToolResult {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "hold"})
		if err != nil {
			return errorResult("%v", err)
		}
		return res
	})
	wait(t, b.entered, "the call to start")
	outlast(shortReadTimeout)
	close(b.release)
	if res := wait(t, done, "the call's result"); res.IsError || !strings.Contains(text(res), "released") {
		t.Errorf("a call that outlived the read timeout ended with %q (isError %v)", text(res), res.IsError)
	}
}

// The standalone SSE stream of a session stays open past ReadTimeout and
// still carries the server's notifications.
func TestReadTimeoutDoesNotCutTheSSEStream(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{ReadTimeout: shortReadTimeout})

	resp := post(t, base, initializeBody, nil)
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no session id")
	}
	headers := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": legacyVersion}
	if resp := post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized notification: status %d", resp.StatusCode)
	}

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Body.Close() })
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", stream.StatusCode)
	}
	found := background(func() error {
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/tools/list_changed") {
				return nil
			}
		}
		return fmt.Errorf("the stream ended without the notification: %v", sc.Err())
	})

	outlast(shortReadTimeout)
	s.Publish(customSet(t, echoTool(t), newBarrier().tool(t)))
	if err := wait(t, found, "the list-changed notification on the stream"); err != nil {
		t.Error(err)
	}
}

// dialRaw opens a plain TCP connection to the server at base, bounded by
// guard so a server that never answers fails the test instead of hanging.
func dialRaw(t *testing.T, base string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(guard))
	return conn
}

// A client that sends headers and then trickles (here: stops sending) its
// body loses the connection once ReadTimeout passes.
func TestReadTimeoutEndsAStalledRequestBody(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{ReadTimeout: shortReadTimeout})
	conn := dialRaw(t, base)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", strings.TrimPrefix(base, "http://"))
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("the server did not close a connection whose body stalled: %v", err)
	}
}

// A keep-alive connection with no further request is closed after
// IdleTimeout.
func TestIdleConnectionsAreClosed(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{IdleTimeout: shortReadTimeout})
	conn := dialRaw(t, base)
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(base, "http://"))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: status %d, %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Errorf("the idle connection was not closed: read %q, %v", rest, err)
	}
}

func TestHTTPTimeoutDefaults(t *testing.T) {
	cfg := HTTPConfig{}.withDefaults(time.Second)
	if cfg.ReadTimeout != DefaultReadTimeout || cfg.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("defaults: read %s, idle %s", cfg.ReadTimeout, cfg.IdleTimeout)
	}
	cfg = HTTPConfig{ReadTimeout: -1, IdleTimeout: -1}.withDefaults(time.Second)
	if cfg.ReadTimeout >= 0 || cfg.IdleTimeout >= 0 {
		t.Errorf("negative values (no timeout) were replaced: read %s, idle %s", cfg.ReadTimeout, cfg.IdleTimeout)
	}
}
