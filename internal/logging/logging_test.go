package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONLogsAreOneObjectPerLineAtTheChosenLevel(t *testing.T) {
	var buf bytes.Buffer
	log := New(&buf, "warn", "json")
	log.Info("hidden")
	log.Warn("shown", "tool", "echo")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("lines = %q", lines)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["msg"] != "shown" || rec["tool"] != "echo" {
		t.Errorf("record = %v (%v)", rec, err)
	}
}

func TestTextLogsHaveNoColourOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	New(&buf, "info", "text").Info("plain", "k", "v")
	if strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("colour escape written to a buffer: %q", buf.String())
	}
	if !strings.Contains(buf.String(), "plain") || !strings.Contains(buf.String(), "k=v") {
		t.Errorf("log = %q", buf.String())
	}
}
