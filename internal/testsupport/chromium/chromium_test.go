package chromium

import (
	"errors"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A page whose button posts a form with a fetch(), and shows the answer.
const buttonPage = `<!doctype html><title>press</title>
<button id="press" onclick="fetch('/pressed', {method: 'POST', body: new URLSearchParams({who: 'person'})})
	.then(r => r.text()).then(t => { const o = document.getElementById('answer'); o.textContent = t; o.hidden = false })">Press</button>
<p id="answer" hidden></p>`

func TestClickPostsToTheServer(t *testing.T) {
	ctx := Start(t)
	posts := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, buttonPage)
	})
	mux.HandleFunc("POST /pressed", func(w http.ResponseWriter, r *http.Request) {
		posts <- r.FormValue("who")
		io.WriteString(w, "seen")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	if status := Navigate(t, ctx, srv.URL); status != http.StatusOK {
		t.Fatalf("GET / answered %d", status)
	}
	select {
	case who := <-posts:
		t.Fatalf("a POST (%q) arrived before the click", who)
	default:
	}
	Click(t, ctx, "#press")
	// The page shows the answer only after the server answered the POST,
	// so by then the handler has sent on posts.
	if got := Text(t, ctx, "#answer"); got != "seen" {
		t.Fatalf("#answer reads %q, want %q", got, "seen")
	}
	select {
	case who := <-posts:
		if who != "person" {
			t.Fatalf("the POST carried who=%q, want %q", who, "person")
		}
	default:
		t.Fatal("the page showed the answer, but the server saw no POST")
	}
	if got := Eval[string](t, ctx, `fetch('/').then(r => String(r.status))`); got != "200" {
		t.Fatalf("an awaited fetch gave %q", got)
	}
}

func TestTabsShareTheBrowserAndCloseAlone(t *testing.T) {
	ctx := Start(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<p id="path">`+r.URL.Path+`</p>`)
	}))
	t.Cleanup(srv.Close)

	Navigate(t, ctx, srv.URL+"/first")
	tab, closeTab := NewTab(t, ctx)
	Navigate(t, tab, srv.URL+"/second")
	if got := Text(t, tab, "#path"); got != "/second" {
		t.Fatalf("the second tab shows %q", got)
	}
	closeTab()
	if got := Text(t, ctx, "#path"); got != "/first" {
		t.Fatalf("after closing the second tab, the first shows %q", got)
	}
}

func TestStartLeavesNoProcessBehind(t *testing.T) {
	var profile string
	t.Run("browser", func(t *testing.T) {
		_, profile = start(t)
		pids, err := processesUsing(profile)
		if err != nil {
			t.Fatal(err)
		}
		// The check below would pass vacuously if pgrep could not see the
		// browser at all.
		if len(pids) == 0 {
			t.Fatalf("pgrep finds no process with the profile %s while the browser runs", profile)
		}
	})
	if profile == "" {
		t.Skip("no browser started")
	}
	pids, err := processesUsing(profile)
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) > 0 {
		t.Fatalf("processes %v of the browser outlived its test", pids)
	}
}

func TestFindNamesTheFixWhenNothingIsInstalled(t *testing.T) {
	t.Setenv("CHROMIUM", "/nonexistent/chromium")
	_, err := Find()
	if err == nil {
		t.Fatal("Find accepted a CHROMIUM that does not exist")
	}
	saved := Candidates
	t.Cleanup(func() { Candidates = saved })
	Candidates = []string{"/nonexistent/chromium"}
	t.Setenv("CHROMIUM", "")
	if _, err := Find(); !errors.Is(err, ErrNoChromium) {
		t.Fatalf("Find among no candidates: %v, want ErrNoChromium", err)
	}
}

func TestCountInFrameSeesFramesOfOtherOriginsUnlessTheyRefuse(t *testing.T) {
	ctx := Start(t)
	html := func(csp string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if csp != "" {
				w.Header().Set("Content-Security-Policy", csp)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<button id="inside">inside</button>`)
		}
	}
	open := httptest.NewServer(html(""))
	t.Cleanup(open.Close)
	refusing := httptest.NewServer(html("frame-ancestors 'none'"))
	t.Cleanup(refusing.Close)
	parent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<iframe id="open" src="`+open.URL+`"></iframe><iframe id="refusing" src="`+refusing.URL+`"></iframe>`)
	}))
	t.Cleanup(parent.Close)

	// The load event of the parent waits for both frames.
	Navigate(t, ctx, parent.URL)
	if n := CountInFrame(t, ctx, "#open", "#inside"); n != 1 {
		t.Fatalf("found %d #inside in a frame that allows framing, want 1", n)
	}
	if n := CountInFrame(t, ctx, "#refusing", "#inside"); n != 0 {
		t.Fatalf("found %d #inside in a frame whose CSP refuses framing, want 0", n)
	}
	WaitTrue(t, ctx, `document.querySelectorAll("iframe").length === 2`)
}

func TestFormsLeadToPagesWhoseStatusIsReturned(t *testing.T) {
	ctx := Start(t)
	got := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<form id="f" method="post" action="/post"><input id="word" name="word"><button id="send">Send</button></form>`)
	})
	mux.HandleFunc("POST /post", func(w http.ResponseWriter, r *http.Request) {
		got <- r.FormValue("word")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "<p>short and stout</p>") // without a body, Chromium shows its own error page
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	Navigate(t, ctx, srv.URL)
	SetValue(t, ctx, "#word", "typed")
	sent := Sending(t, ctx, http.MethodPost, srv.URL+"/post")
	if status := ClickThrough(t, ctx, "#send"); status != http.StatusTeapot {
		t.Fatalf("clicking through answered %d, want %d", status, http.StatusTeapot)
	}
	sent()
	if w := <-got; w != "typed" {
		t.Fatalf("the form sent word=%q", w)
	}
	Navigate(t, ctx, srv.URL)
	if status := Submit(t, ctx, "#f"); status != http.StatusTeapot {
		t.Fatalf("submitting answered %d, want %d", status, http.StatusTeapot)
	}
	if w := <-got; w != "" {
		t.Fatalf("the untouched form sent word=%q", w)
	}
}

// TestMissingBrowserSkipsLocallyAndFailsInCI runs this test binary again
// with no browser to find, as a developer's machine and as CI.
func TestMissingBrowserSkipsLocallyAndFailsInCI(t *testing.T) {
	if os.Getenv("CHROMIUM_TEST_CHILD") == "1" {
		Start(t)
		t.Fatal("Start returned without a browser")
	}
	for _, c := range []struct{ ci, want string }{{"", "--- SKIP"}, {"true", "--- FAIL"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingBrowserSkipsLocallyAndFailsInCI$", "-test.v")
		// The child's skip is this test's subject, not a suite that did not run.
		cmd.Env = append(os.Environ(), "CHROMIUM_TEST_CHILD=1", "CHROMIUM=/nonexistent/chromium", "CI="+c.ci, testsupport.OptionalLogEnv+"=")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "/nonexistent/chromium") {
			t.Errorf("with CI=%q and no browser, the test printed:\n%s\nwant %s and the missing path", c.ci, out, c.want)
		}
	}
}
