package browser

import (
	"strings"
	"testing"
	"time"
)

// A Request that reaches a page unescaped (a store's entry written by
// another program) cannot reorder or hide text there, nor fill the page
// with one field; the command line is shown whole.
func TestPagesNeutraliseAndBoundWhatTheCallerLeft(t *testing.T) {
	longCmd := "nats pub x " + strings.Repeat("y", 5000)
	r := Request{ID: "h1", Server: "ops\x1b[2J", Tool: "rm\u202eelif", CommandLine: longCmd + "\u200b\xff",
		Trigger: "ai:confirm\x00", Client: strings.Repeat("C", 5000), Deadline: time.Now().Add(time.Hour)}
	wants := []string{`ops\x1b[2J`, `rm\u{202e}elif`, `ai:confirm\x00`, longCmd + `\u{200b}\xff`, strings.Repeat("C", maxShownField-1) + "…<"}
	store := newNotifyStore()
	rig := newSharedRig(t, store)
	if err := store.Put(t.Context(), Pending{Request: r, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	<-store.put
	lr := newLocalRig(t, time.Hour)
	r.Deadline = lr.clk.Now().Add(time.Hour)
	u, _ := lr.ask(t, t.Context(), r)
	local, _, _ := open(t, browserClient(t), u)
	for name, body := range map[string]string{"shared list": rig.signIn(t, browserClient(t)).body, "local page": local.body} {
		for _, want := range wants {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %.80q", name, want)
			}
		}
		for _, raw := range []string{"\x1b", "\u202e", "\u200b", "\x00", "\xff", strings.Repeat("C", maxShownField+1)} {
			if strings.Contains(body, raw) {
				t.Errorf("%s shows %.20q as is", name, raw)
			}
		}
	}
}

func TestNeutralLeavesTheGatesEscapingAsItIs(t *testing.T) {
	for _, s := range []string{`nats pub 'a b' \u{202e} \x1b`, "two\nlines\tand tabs", "ü ß 東京 …", ""} {
		if got := neutral(s); got != s {
			t.Errorf("neutral(%q) = %q, want it unchanged", s, got)
		}
	}
}
