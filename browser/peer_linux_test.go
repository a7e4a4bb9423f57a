package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// thiefEnv makes the test binary the thief (see thief) instead of
// running tests.
const thiefEnv = "FISK_MCP_TEST_THIEF"

func init() {
	if os.Getenv(thiefEnv) != "" {
		os.Exit(thief())
	}
}

// Thief exit codes.
const (
	thiefApproved = 0
	thiefRefused  = 3
	thiefNoTicket = 4
)

// pageAddress finds an approval page's address with its ticket on a
// command line.
var pageAddress = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/a/[A-Za-z0-9_-]+\?t=[A-Za-z0-9_-]+`)

// thief does what a process of another user can: it polls every process's
// command line for an approval page's address, every 5 ms for up to 20 s,
// and then does what the page does to approve, as fast as it can. It
// exits thiefApproved when it approved.
func thief() int {
	var u string
	for deadline := time.Now().Add(20 * time.Second); u == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		lines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, f := range lines {
			if b, err := os.ReadFile(f); err == nil {
				if m := pageAddress.Find(b); m != nil {
					u = string(m)
					break
				}
			}
		}
	}
	if u == "" {
		return thiefNoTicket
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(u)
	if err != nil {
		fmt.Fprintln(os.Stderr, "thief:", err)
		return thiefRefused
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		fmt.Fprintf(os.Stderr, "thief: the page answered %d\n", resp.StatusCode)
		return thiefRefused
	}
	page, _ := url.Parse(u)
	origin := "http://" + page.Host
	req, _ := http.NewRequest(http.MethodPost, origin+page.Path+"/decide", strings.NewReader(url.Values{"csrf": {string(m[1])}, "decision": {"approve"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = c.Do(req)
	if err != nil {
		return thiefRefused
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), `data-outcome="approved"`) {
		return thiefApproved
	}
	return thiefRefused
}

// A process of another user that reads the page's address, ticket and
// all, from the opener's command line, and races a browser that takes
// its time, approves nothing; the person's browser then approves as
// ever.
func TestAnotherUsersProcessCannotApproveWhateverTheBrowsersSpeed(t *testing.T) {
	var err error
	if os.Geteuid() != 0 {
		err = errors.New("needs root, to run the thief as another user (nobody), as CI does")
	}
	testsupport.RequireTool(t, "approval from another user's process (root)", err)
	// The thief is this test binary, run as nobody: it must be able to
	// read and run it.
	dir, err := os.MkdirTemp("", "fisk-mcp-thief-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "thief")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The "browser" is slow: it shows the address on its command line,
	// as xdg-open and a browser do, and never requests the page itself.
	var browser *exec.Cmd
	l := NewLocal(LocalOptions{Hold: time.Millisecond, Open: func(_ context.Context, u string) error {
		browser = exec.Command("/bin/sh", "-c", "sleep 600", "slow-browser", u)
		return browser.Start()
	}})
	t.Cleanup(func() {
		if browser != nil && browser.Process != nil {
			browser.Process.Kill()
			browser.Wait()
		}
		l.Close()
	})

	th := exec.Command(bin, "-test.run=^$")
	th.Env = append(os.Environ(), thiefEnv+"=1")
	th.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var thErr strings.Builder
	th.Stderr = &thErr
	if err := th.Start(); err != nil {
		t.Fatal(err)
	}
	out := make(chan askResult, 1)
	go func() {
		o, err := l.Ask(context.Background(), Request{ID: "n1", Tool: "touch", CommandLine: "fisk-fixture touch /tmp/x", Deadline: time.Now().Add(time.Minute)})
		out <- askResult{o, err}
	}()
	err = th.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	switch code {
	case thiefApproved:
		t.Fatalf("a process of another user approved the call:\n%s", thErr.String())
	case thiefNoTicket:
		t.Fatalf("the thief never saw the address on a command line; the test proves nothing:\n%s", thErr.String())
	case thiefRefused:
	default:
		t.Fatalf("the thief failed (exit %d):\n%s", code, thErr.String())
	}
	pending(t, out)

	// The person's browser, of the server's own user, arrives last and
	// approves.
	c := browserClient(t)
	p, origin, path := open(t, c, browser.Args[len(browser.Args)-1])
	res := post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"approve"}}, nil)
	if !strings.Contains(res.body, `data-outcome="approved"`) {
		t.Fatalf("the person's approval: %d\n%s", res.status, res.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q, want approved", o)
	}
}
