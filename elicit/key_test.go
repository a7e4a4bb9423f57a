package elicit

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeKeyFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadKeyAcceptsHexAndRawRandomBytes(t *testing.T) {
	key := testKey()
	tests := map[string][]byte{
		"hex with newline":     []byte(hex.EncodeToString(key) + "\n"),
		"upper-case hex":       []byte("  " + strings.ToUpper(hex.EncodeToString(key)) + "\r\n"),
		"raw bytes":            key,
		"longer hex (64 byte)": []byte(hex.EncodeToString(append(testKey(), key...))),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := LoadKey(writeKeyFile(t, data))
			if err != nil {
				t.Fatalf("LoadKey: %v", err)
			}
			if !bytes.HasPrefix(got, key) || len(got) < MinKeyLen {
				t.Errorf("key = %x, want %x...", got, key)
			}
		})
	}
}

func TestLoadKeyRejectsWeakOrWrongKeysWithAdvice(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", []byte("\n"), "empty"},
		{"short hex", []byte(hex.EncodeToString(testKey()[:16])), "need at least 32"},
		{"short raw", testKey()[:31], "need at least 32"},
		{"odd hex", []byte(hex.EncodeToString(testKey()) + "a"), "odd number"},
		{"all zeros", []byte(strings.Repeat("00", 32)), "distinct byte values"},
		{"repeated pattern", []byte(strings.Repeat("abcd", 32)), "distinct byte values"},
		{"passphrase", []byte("correct horse battery staple, but longer\n"), "not hexadecimal"},
		{"base64", []byte("q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k=\n"), "not hexadecimal"},
		{"huge file", bytes.Repeat([]byte{1, 2, 3}, 4096), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadKey(writeKeyFile(t, tt.data))
			if err == nil {
				t.Fatal("LoadKey accepted a weak key")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "state.key") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadKeyReportsAMissingFile(t *testing.T) {
	_, err := LoadKey(filepath.Join(t.TempDir(), "absent.key"))
	if err == nil || !strings.Contains(err.Error(), "absent.key") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

func TestNewGateRejectsAWeakKeyAndBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"short key":         {Key: []byte("too short")},
		"pattern key":       {Key: bytes.Repeat([]byte{7}, 64)},
		"negative timeout":  {Timeout: -1},
		"negative capacity": {ReplayCapacity: -1},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewGate(o); err == nil {
				t.Error("NewGate accepted it")
			}
		})
	}
}

func TestNewGateDefaults(t *testing.T) {
	g, err := NewGate(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := g.replay.(*MemoryStore)
	if g.timeout != DefaultTimeout || g.server != DefaultServerName || !ok || m.capacity != DefaultReplayCapacity || m.perClient != DefaultReplayPerClient {
		t.Errorf("defaults = %s %q %#v", g.timeout, g.server, g.replay)
	}
	if err := checkKey(g.signer.key); err != nil {
		t.Errorf("random key fails its own check: %v", err)
	}
	other, _ := NewGate(Options{})
	if bytes.Equal(g.signer.key, other.signer.key) {
		t.Error("two gates drew the same random key")
	}
}
