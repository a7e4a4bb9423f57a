package exposure_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestStabiliseMasksTimestampsNearNowAndKeepsTheRest(t *testing.T) {
	now := time.Date(2026, 12, 1, 21, 5, 57, 0, time.UTC)
	cases := map[string]string{
		"until a specific timestamp (eg 2026-12-01 21:05:57)": "until a specific timestamp (eg YYYY-MM-DD hh:mm:ss)",
		"expires 2026-12-02T21:05:57Z by default":             "expires YYYY-MM-DDThh:mm:ssZ by default",
		"at 2026-11-30T08:00:00.250+01:00":                    "at YYYY-MM-DDThh:mm:ss.fff±hh:mm",
		"started 2026-12-01 21:05:57.123456 +0000 UTC":        "started YYYY-MM-DD hh:mm:ss.ffffff ±hhmm TZ",
		"two: 2026-12-01 21:05 and 2026-12-01 21:06":          "two: YYYY-MM-DD hh:mm and YYYY-MM-DD hh:mm",
		// A date far from now is a fixed example, not the time of the run.
		"eg 2021-03-04 10:00:00": "eg 2021-03-04 10:00:00",
		// A date without a time of day is left alone.
		"since 2026-12-01": "since 2026-12-01",
		"no dates: 10:00":  "no dates: 10:00",
	}
	for in, want := range cases {
		if got := exposure.StabiliseText(in, now); got != want {
			t.Errorf("StabiliseText(%q) = %q, want %q", in, got, want)
		}
	}
}

// clockApp writes a stand-in application whose help, like the nats CLI's,
// embeds the time it ran: each run reports a time one second later than
// the run before (a counter, so no test waits for the clock).
func clockApp(t *testing.T) (path string, docs func() []string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "clockapp")
	count, log := filepath.Join(dir, "count"), filepath.Join(dir, "docs")
	doc := `{"name":"clockapp","help":"started $ts","commands":[{"name":"pause","help":"Pause until a time (eg $ts)",` +
		`"flags":[{"name":"until","help":"Until a specific timestamp (eg $ts)"}],` +
		`"schema":{"type":"object","properties":{"until":{"type":"string","description":"Until a specific timestamp (eg $ts)"}}},` +
		`"restricted_schema":{"type":"object","properties":{"until":{"type":"string","description":"Until a specific timestamp (eg $ts)"}},"additionalProperties":false}}]}`
	writeScript(t, path, "n=$(cat '"+count+"' 2>/dev/null || echo 0)\necho $((n+1)) > '"+count+"'\n"+
		"ts=$(date -d \"+$n seconds\" '+%Y-%m-%d %H:%M:%S')\n"+
		"printf '%s\\n' \""+strings.ReplaceAll(doc, `"`, `\"`)+"\" | tee -a '"+log+"'\n")
	return path, func() []string {
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}
}

func TestLoadsOfAnAppWhoseHelpEmbedsTheTimeDescribeTheSameTools(t *testing.T) {
	path, docs := clockApp(t)
	first, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := docs(); len(d) != 2 || d[0] == d[1] {
		t.Fatalf("the stand-in did not report two different times: %q", d)
	}

	if d := exposure.Diff(first, second); !d.Empty() {
		t.Errorf("Diff = %+v, want empty: only the time of the run differs", d)
	}
	a, b := advertised(t, first), advertised(t, second)
	if a != b {
		t.Errorf("the tools differ between two loads:\n%s\n%s", a, b)
	}
	if strings.Contains(a, time.Now().Format("2006-01-02")) || !strings.Contains(a, "(eg YYYY-MM-DD hh:mm:ss)") {
		t.Errorf("the time of the run is still advertised, or its placeholder is missing:\n%s", a)
	}
	fa, _ := first.Binding("pause")
	fb, _ := second.Binding("pause")
	if fa == "" || fa != fb {
		t.Errorf("bindings %q and %q, want one value", fa, fb)
	}
}

// advertised is what a client is shown of every tool in s, as JSON.
func advertised(t *testing.T, s *exposure.ToolSet) string {
	t.Helper()
	var out []map[string]any
	for _, tool := range s.Tools() {
		out = append(out, map[string]any{"name": tool.Name(), "description": tool.Description(), "model": tool.ModelDescription(), "schema": tool.InputSchema()})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Text is only searched for timestamps when it holds a date; the cheap
// check for one must not miss a date anywhere in the text.
func TestStabiliseFindsATimestampWhereverItStands(t *testing.T) {
	now := time.Date(2026, 12, 1, 21, 5, 57, 0, time.UTC)
	for s, want := range map[string]string{
		"2026-12-01 21:05:57":         "YYYY-MM-DD hh:mm:ss",
		"x-2026-12-01T21:05:57Z":      "x-YYYY-MM-DDThh:mm:ssZ",
		"a-b-c (eg 2026-11-30 08:00)": "a-b-c (eg YYYY-MM-DD hh:mm)",
		"2026-1-01 10:00":             "2026-1-01 10:00",
		"01-12-2026 10:00":            "01-12-2026 10:00",
	} {
		if got := exposure.StabiliseText(s, now); got != want {
			t.Errorf("StabiliseText(%q) = %q, want %q", s, got, want)
		}
	}
}
