package elicit

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestArgumentHashIgnoresKeyOrderAndWhitespaceOnly(t *testing.T) {
	base, err := hashArguments(json.RawMessage(`{"name":"orders","force":true,"n":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	same := []string{
		`{"force":true,"n":[1,2],"name":"orders"}`,
		" {\n\t\"n\" : [ 1 , 2 ],\"name\":\"orders\", \"force\":true } ",
		`{"name":"\u006frders","force":true,"n":[1,2]}`,
	}
	for _, s := range same {
		if h, err := hashArguments(json.RawMessage(s)); err != nil || h != base {
			t.Errorf("%s: hash %s, %v; want the same as the original", s, h, err)
		}
	}
	different := []string{
		`{"name":"orders","force":false,"n":[1,2]}`,
		`{"name":"orders","force":true,"n":[2,1]}`,
		`{"name":"orders","force":true,"n":[1,2.0]}`,
		`{"name":"orders ","force":true,"n":[1,2]}`,
		`{"name":"orders","force":true,"n":[1,2],"extra":null}`,
		`{"name":["orders"],"force":true,"n":[1,2]}`,
	}
	for _, s := range different {
		if h, _ := hashArguments(json.RawMessage(s)); h == base {
			t.Errorf("%s hashes like the original", s)
		}
	}
}

func TestAbsentArgumentsHashAsTheEmptyObject(t *testing.T) {
	empty, _ := hashArguments(json.RawMessage(`{}`))
	for _, raw := range []json.RawMessage{nil, json.RawMessage(""), json.RawMessage("  ")} {
		if h, err := hashArguments(raw); err != nil || h != empty {
			t.Errorf("%q: %s, %v", raw, h, err)
		}
	}
}

func TestArgumentsThatCannotBeBoundAreRejected(t *testing.T) {
	for _, s := range []string{
		`{"name":"a","name":"b"}`,
		`{"name":"a"} {"name":"b"}`,
		`{"name":`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
	} {
		if _, err := hashArguments(json.RawMessage(s)); err == nil {
			t.Errorf("%.40s: accepted", s)
		}
	}
}

func TestSignedStateVerifiesAndTamperingDoesNot(t *testing.T) {
	s := signer{key: testKey()}
	c := claims{binding: binding{Tool: "rm", Args: "a", Prompt: "p", Session: "s"}, Nonce: strings.Repeat("ab", nonceBytes), Expires: 1234}
	state, err := s.sign(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.verify(state)
	if err != nil || got != c {
		t.Fatalf("verify = %+v, %v; want %+v", got, err, c)
	}
	parts := strings.Split(state, ".")
	tampered := map[string]string{
		"other key":      mustSign(t, signer{key: append(testKey(), 1)}, c),
		"version":        "v2." + parts[1] + "." + parts[2],
		"no signature":   parts[0] + "." + parts[1],
		"empty":          "",
		"swapped parts":  parts[0] + "." + parts[2] + "." + parts[1],
		"signature byte": parts[0] + "." + parts[1] + "." + flipFirst(parts[2]),
		"payload byte":   parts[0] + "." + flipFirst(parts[1]) + "." + parts[2],
		"too long":       state + strings.Repeat("A", maxStateLen),
		"unknown field": mustSign(t, s, struct {
			claims
			X int `json:"x"`
		}{c, 1}),
		"bad nonce": mustSign(t, s, claims{binding: c.binding, Nonce: "short", Expires: 1}),
	}
	for name, st := range tampered {
		if _, err := s.verify(st); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestBindingNamesWhatDiffers(t *testing.T) {
	b := binding{Tool: "rm", ToolBinding: hashString("v1"), Args: "a", Prompt: "p", Session: hashString("session-1")}
	tests := map[string]binding{
		"tool":       {Tool: "purge", ToolBinding: b.ToolBinding, Args: "a", Prompt: "p", Session: b.Session},
		"definition": {Tool: "rm", ToolBinding: hashString("v2"), Args: "a", Prompt: "p", Session: b.Session},
		"arguments":  {Tool: "rm", ToolBinding: b.ToolBinding, Args: "b", Prompt: "p", Session: b.Session},
		"shown":      {Tool: "rm", ToolBinding: b.ToolBinding, Args: "a", Prompt: "q", Session: b.Session},
		"session":    {Tool: "rm", ToolBinding: b.ToolBinding, Args: "a", Prompt: "p", Session: hashString("session-2")},
		"caller":     {Tool: "rm", ToolBinding: b.ToolBinding, Args: "a", Prompt: "p", Session: b.Session, Caller: callerHash("https://issuer.example#bob")},
	}
	for want, o := range tests {
		if d := b.diff(o); !strings.Contains(d, want) {
			t.Errorf("diff = %q, want it to mention %q", d, want)
		}
	}
	if d := b.diff(b); d != "" {
		t.Errorf("identical bindings differ: %q", d)
	}
}

func TestEscapeShowsOnlyGraphicText(t *testing.T) {
	tests := map[string]string{
		"rm -- 'orders'":          "rm -- 'orders'",
		"a\nb\rc\td":              `a\nb\rc\td`,
		"\x1b[31mred\x1b[0m":      `\x1b[31mred\x1b[0m`,
		"\x00\x7f\u0085":          `\x00\x7f\u{0085}`,
		"abc\u202eexe.txt":        `abc\u{202e}exe.txt`,
		"zero\u200bwidth\u2028ls": `zero\u{200b}width\u{2028}ls`,
		"bad \xff byte":           `bad \xff byte`,
		`already \x1b escaped`:    `already \x1b escaped`,
		"ünïcödé ✓ 日本":            "ünïcödé ✓ 日本",
	}
	for in, want := range tests {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecisionLogsItsCodeAndDetail(t *testing.T) {
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("call", "decision", mismatch("arguments differ"))
	if !strings.Contains(b.String(), "decision.code=mismatch") || !strings.Contains(b.String(), `decision.detail="arguments differ"`) {
		t.Errorf("log line %q lacks the decision", b.String())
	}
	if d := declined(""); !d.Refused() || d.Approved() || d.Pending() {
		t.Errorf("declined: refused %v approved %v pending %v", d.Refused(), d.Approved(), d.Pending())
	}
}

func mustSign(t *testing.T, s signer, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	payload := b64.EncodeToString(data)
	return stateVersion + "." + payload + "." + b64.EncodeToString(s.mac(payload))
}

func flipFirst(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}
