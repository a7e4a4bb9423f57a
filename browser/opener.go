package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// maxOpenerStderr bounds how much of a failed opener's stderr an error
// quotes.
const maxOpenerStderr = 1 << 10

// CommandOpener returns an opener that runs argv with the page's URL as
// its last argument, without a shell, and waits for it. The command must
// return once the page is on its way (xdg-open and open do; a browser run
// directly may not, and then holds the approval until its deadline).
//
// Its stdin and stdout are the null device, never fisk-mcp's: over stdio
// fisk-mcp's stdout is the protocol stream. Its stderr goes to a private
// temporary file (not a pipe, so a browser it starts can keep writing
// without holding the opener up); a failure quotes the first KiB of it
// with the URL redacted.
func CommandOpener(argv []string) func(ctx context.Context, url string) error {
	argv = slices.Clone(argv)
	return func(ctx context.Context, u string) error {
		if len(argv) == 0 || argv[0] == "" {
			return errors.New("no approval opener command: set --approval-opener to a command that opens a URL (given as its last argument) in the browser")
		}
		errf, err := os.CreateTemp("", "fisk-mcp-opener-*")
		if err != nil {
			return fmt.Errorf("running the approval opener %s: %w; check that the temporary directory is writable, or set --approval-opener", quoteArgv(argv), err)
		}
		os.Remove(errf.Name())
		defer errf.Close()
		cmd := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], u)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, errf
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("the approval opener %s failed: %v%s; set --approval-opener to a command that opens a URL (given as its last argument) in your browser",
				quoteArgv(argv), redact(err.Error(), u), stderrNote(errf, u))
		}
		return nil
	}
}

// DefaultOpener returns the opener of the platform: xdg-open on Linux and
// the BSDs, open on macOS. Elsewhere it returns an opener that fails,
// saying to set --approval-opener.
func DefaultOpener() func(ctx context.Context, url string) error {
	switch runtime.GOOS {
	case "darwin":
		return CommandOpener([]string{"open"})
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return CommandOpener([]string{"xdg-open"})
	}
	return func(context.Context, string) error {
		return fmt.Errorf("fisk-mcp knows no command that opens a browser on %s: set --approval-opener to one (it gets the URL as its last argument)", runtime.GOOS)
	}
}

// stderrNote quotes the start of what the opener wrote to stderr.
func stderrNote(f *os.File, u string) string {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxOpenerStderr))
	s := redact(string(b), u)
	if len(b) == maxOpenerStderr {
		// The cut may fall inside the URL, where redact cannot see it.
		s = trimPartial(s, u)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return " (stderr: " + strconv.Quote(s) + ")"
}

// redact removes the page's URL, and its ticket on its own, from text an
// opener produced: the ticket must never reach a log line or an error.
func redact(s, u string) string {
	s = strings.ReplaceAll(s, u, "[approval page URL]")
	if t := ticketOf(u); t != "" {
		s = strings.ReplaceAll(s, t, "[ticket]")
	}
	return s
}

// trimPartial removes from the end of s, text cut short, the start of the
// page's URL or of its ticket: even part of the ticket narrows a guess.
func trimPartial(s, u string) string {
	for _, secret := range []string{u, ticketOf(u)} {
		for k := min(len(s), len(secret)-1); k > 0; k-- {
			if strings.HasSuffix(s, secret[:k]) {
				s = s[:len(s)-k]
				break
			}
		}
	}
	return s
}

// ticketOf is the ticket in page URL u, or "".
func ticketOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Query().Get("t")
}

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(q, " ") + "]"
}
