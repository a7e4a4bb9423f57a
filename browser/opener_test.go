package browser

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

const pageURL = "http://127.0.0.1:1234/a/n1?t=SECRET-TICKET-VALUE"

func TestCommandOpenerPassesTheURLLastWithoutAShell(t *testing.T) {
	got := filepath.Join(t.TempDir(), "args")
	open := CommandOpener([]string{"sh", "-c", `printf '%s\n' "$@" > "$0"; echo to-stdout`, got})
	if err := open(t.Context(), pageURL); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != pageURL+"\n" {
		t.Errorf("opener got %q", b)
	}
}

func TestCommandOpenerFailureSaysWhatToDoAndHidesTheTicket(t *testing.T) {
	open := CommandOpener([]string{"sh", "-c", `echo "out-$((6*7))"; echo "gio: $1: not supported, ticket ${1#*t=}" >&2; exit 3`, "sh"})
	err := open(t.Context(), pageURL)
	if err == nil {
		t.Fatal("a failing opener succeeded")
	}
	msg := err.Error()
	for _, want := range []string{`"sh"`, "exit status 3", "--approval-opener", "gio: [approval page URL]: not supported", "[ticket]"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "SECRET-TICKET") || strings.Contains(msg, "out-42") {
		t.Errorf("error shows the ticket or the opener's stdout: %s", msg)
	}
	if err := CommandOpener(nil)(t.Context(), pageURL); err == nil || !strings.Contains(err.Error(), "--approval-opener") {
		t.Errorf("no command: %v", err)
	}
	if err := CommandOpener([]string{"/nonexistent/opener"})(t.Context(), pageURL); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("missing command: %v", err)
	}
}

// The quoted stderr is cut at maxOpenerStderr bytes; a cut through the
// URL leaves no start of the ticket behind, wherever it falls.
func TestCommandOpenerStderrCutThroughTheURLHidesTheTicket(t *testing.T) {
	for pad := maxOpenerStderr - len(pageURL) - 1; pad <= maxOpenerStderr; pad++ {
		open := CommandOpener([]string{"sh", "-c", `head -c "$0" /dev/zero | tr '\0' x >&2; printf '%s' "$1" >&2; exit 3`, strconv.Itoa(pad)})
		err := open(t.Context(), pageURL)
		if err == nil {
			t.Fatal("a failing opener succeeded")
		}
		if msg := err.Error(); strings.Contains(msg, "SEC") || !strings.Contains(msg, "xxxx") {
			t.Errorf("%d bytes before the URL: the error shows part of the ticket, or no stderr: ...%s", pad, msg[max(0, len(msg)-160):])
		}
	}
}

func TestLocalOpenerFailureIsAnErrorAndClosesTheListener(t *testing.T) {
	var seen string
	l := NewLocal(LocalOptions{Open: func(ctx context.Context, u string) error {
		seen = u
		return CommandOpener([]string{"false"})(ctx, u)
	}})
	t.Cleanup(func() { l.Close() })
	_, err := l.Ask(t.Context(), Request{ID: "n1", Tool: "stream_rm"})
	if err == nil || !strings.Contains(err.Error(), "stream_rm") || !strings.Contains(err.Error(), "--approval-opener") {
		t.Fatalf("Ask: %v", err)
	}
	origin, _, ticket := pageParts(t, seen)
	if strings.Contains(err.Error(), ticket) {
		t.Errorf("error shows the ticket: %v", err)
	}
	dial(t, strings.TrimPrefix(origin, "http://"), false)
}

func TestLocalRefusesAnIDThatCannotNameAPath(t *testing.T) {
	l := NewLocal(LocalOptions{Open: func(context.Context, string) error { return nil }})
	t.Cleanup(func() { l.Close() })
	for _, id := range []string{"", "a/b", "a?b", strings.Repeat("x", 129)} {
		if _, err := l.Ask(t.Context(), Request{ID: id}); err == nil {
			t.Errorf("ID %q accepted", id)
		}
	}
	l.Close()
	if _, err := l.Ask(t.Context(), Request{ID: "n1"}); err != ErrLocalClosed {
		t.Errorf("Ask after Close: %v", err)
	}
}

func TestLocalOpenerStoppedByTheCallIsCancelledNotAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	l := NewLocal(LocalOptions{Open: func(ctx context.Context, u string) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}})
	t.Cleanup(func() { l.Close() })
	if o, err := l.Ask(ctx, Request{ID: "n1"}); o != Cancelled || err != nil {
		t.Errorf("Ask: %q %v", o, err)
	}
}

// An opener that fails is a warning for the operator, with its error, and
// the gate is told the page could not be shown (so the model is not told
// to retry what would fail again).
func TestLocalOpenerFailureIsAWarningAndNotShown(t *testing.T) {
	var logs bytes.Buffer
	l := NewLocal(LocalOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Open: CommandOpener([]string{"false"})})
	t.Cleanup(func() { l.Close() })
	_, err := l.Ask(t.Context(), Request{ID: "n1", Tool: "stream_rm"})
	if !errors.Is(err, elicit.ErrNotShown) {
		t.Fatalf("Ask: %v, want elicit.ErrNotShown", err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "could not be opened") || !strings.Contains(logs.String(), "exit status 1") {
		t.Errorf("log:\n%s\nwant a warning with the opener's error", logs.String())
	}
}
