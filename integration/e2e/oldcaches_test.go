package e2e

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A start removes, once its start-up is over, the list an earlier version
// kept under the user cache directory, and leaves a file of another kind
// beside it.
func TestAStartRemovesTheListsAnEarlierVersionKept(t *testing.T) {
	cache := t.TempDir()
	lists := filepath.Join(cache, "fisk-mcp", "lists")
	if err := os.MkdirAll(lists, 0o700); err != nil {
		t.Fatal(err)
	}
	key := make([]byte, sha256.Size)
	rand.Read(key)
	body := append([]byte("fisk-mcp early list v1\n"), key...)
	body = append(body, `{"tools":[]}`...)
	sum := sha256.Sum256(body)
	record := filepath.Join(lists, hex.EncodeToString(key))
	if err := os.WriteFile(record, append(body, sum[:]...), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(lists, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}

	s := startStdio(t, client{protocol: modernProtocol, env: []string{"XDG_CACHE_HOME=" + cache}}, fixtureBin)
	if _, err := s.cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	rec := s.log.waitRecord(t, "the removal of the old cache", func(r map[string]any) bool {
		return strings.Contains(r["msg"].(string), "earlier version kept")
	})
	if rec["files"] != float64(1) {
		t.Errorf("removed %v files, want the one list", rec["files"])
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("the old list is still there (%v)", err)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("a file of another kind was removed: %v", err)
	}
}
