package listing

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

// TestEnvironmentLineIsShortAndLeavesOutWhatIsEmpty: the startup line
// counts and names what is scrubbed and points at where the rule is shown,
// without the rule itself or empty attributes.
func TestEnvironmentLineIsShortAndLeavesOutWhatIsEmpty(t *testing.T) {
	var buf bytes.Buffer
	EnvReport{Rule: "a long rule", Scrubbed: []string{"A_TOKEN", "DB_PASSWORD"}, Kept: []string{}, Apps: map[string][]string{}}.
		Log(slog.New(slog.NewJSONHandler(&buf, nil)))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if want := "environment: 2 variables scrubbed as credentials; fisk-mcp tools --json shows the rule"; rec["msg"] != want {
		t.Errorf("msg = %q, want %q", rec["msg"], want)
	}
	for _, key := range []string{"rule", "kept", "kept_for_apps"} {
		if _, ok := rec[key]; ok {
			t.Errorf("the line has %s: %v", key, rec)
		}
	}
	if s, _ := rec["scrubbed"].([]any); len(s) != 2 {
		t.Errorf("scrubbed = %v", rec["scrubbed"])
	}
}
