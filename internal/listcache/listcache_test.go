package listcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/server"
)

func sample() *server.Early {
	return &server.Early{
		Deferred: true,
		Listed: []server.EarlyTool{
			{Name: "search_tools", Wire: json.RawMessage(`{"name":"search_tools","inputSchema":{"type":"object"}}`)},
			{Name: "ping", Wire: json.RawMessage(`{"name":"ping","inputSchema":{"type":"object"}}`)},
		},
		Registered: []server.EarlyTool{
			{Name: "ping"},
			{Name: "search_tools", Wire: json.RawMessage(`{"name":"search_tools","inputSchema":{"type":"object"}}`)},
			{Name: "stream_ls"},
		},
	}
}

func key(parts ...string) Key {
	k := NewKeyer()
	for i := 0; i+1 < len(parts); i += 2 {
		k.AddString(parts[i], parts[i+1])
	}
	return k.Sum()
}

// TestKeysOfDifferentPartsDiffer: moving bytes between parts, or between
// a label and its value, gives another key; the same parts, the same key.
func TestKeysOfDifferentPartsDiffer(t *testing.T) {
	if a, b := key("args", "serve\x00nats"), key("args", "serve\x00nats"); a != b {
		t.Fatal("the same parts gave two keys")
	}
	seen := map[Key][]string{}
	for _, parts := range [][]string{
		{"args", "serve nats"},
		{"args", "serve", "nats", ""},
		{"args", "serve n", "ats", ""},
		{"argsserve", " nats"},
		{"args", "serve nats", "env", ""},
		{"env", "serve nats"},
		{},
	} {
		k := key(parts...)
		if other, dup := seen[k]; dup {
			t.Errorf("%q and %q have one key", parts, other)
		}
		seen[k] = parts
	}
	base := NewKeyer()
	base.AddString("args", "serve")
	clone := base.Clone()
	clone.AddString("document", "x")
	if base.Sum() == clone.Sum() {
		t.Error("adding to a clone changed nothing, or changed the original")
	}
	if base.Sum() != key("args", "serve") {
		t.Error("adding to a clone changed the original")
	}
}

// TestDocumentHashIgnoresTheTimeOfNowOnly: a date with a time of day
// near now, in any of the layouts an application prints, hashes alike
// whatever its value; a date far from now, or any other change, does
// not.
func TestDocumentHashIgnoresTheTimeOfNowOnly(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 30, 0, 0, time.Local)
	doc := func(s string) []byte { return []byte(`{"help":"Pause until (eg ` + s + `)","n":1}`) }
	same := [][2]string{
		{"2026-12-02 09:30:01", "2026-12-02 09:31:59"},
		{"2026-12-02 09:30:01", "2026-12-01 23:59:59"},
		{"2026-12-02T09:30:01Z", "2026-12-03T10:00:00Z"},
		{"2026-12-02T09:30:01.123456789", "2026-12-02T09:30:02.5"},
		{"2026-12-02 09:30", "2026-12-02 10:45"},
	}
	for _, p := range same {
		if Document(doc(p[0]), now) != Document(doc(p[1]), now) {
			t.Errorf("%q and %q hash apart; both are near now", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"2026-12-02 09:30:01", "2026-12-02 09:30:01 and more"},
		{"2020-01-01 00:00:00", "2020-01-02 00:00:00"}, // far from now: kept as written
		{"2026-12-02 09:30:01", "2026-12-02 09:30:01Z"},
		{"2026-12-02", "2026-12-03"}, // no time of day
	}
	for _, p := range differ {
		if Document(doc(p[0]), now) == Document(doc(p[1]), now) {
			t.Errorf("%q and %q hash alike", p[0], p[1])
		}
	}
	if Document([]byte(`{"a":1}`), now) == Document([]byte(`{"a":2}`), now) {
		t.Error("two different documents hash alike")
	}
	// Truncated and odd shapes around dashes hash without a panic.
	for _, s := range []string{"", "-", "2026-", "2026-12-02 09", "--------", "9999-99-99 99:99", "2026-12-02 09:30:"} {
		Document([]byte(s), now)
	}
}

func TestSavedListLoadsAsSaved(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "lists")}
	k := key("args", "serve")
	if s.Load(k) != nil {
		t.Fatal("an empty store returned a list")
	}
	want := sample()
	if err := s.Save(k, want); err != nil {
		t.Fatal(err)
	}
	got := s.Load(k)
	if got == nil {
		t.Fatal("the saved list did not load")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("loaded %v, want %v", got, want)
	}
	if got.Registered[0].Wire != nil || got.Registered[1].Wire == nil {
		t.Error("a dispatch registration and a full one were not told apart")
	}
	if s.Load(key("args", "serve nats")) != nil {
		t.Error("another key found the list")
	}
	fi, err := os.Stat(s.Dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the store's directory is %v, %v; want mode 0700", fi.Mode(), err)
	}
}

// TestRecordsThatCannotBeTrustedAreIgnored: a record torn, altered,
// renamed to another key, writable by others, or not a file is never
// used.
func TestRecordsThatCannotBeTrustedAreIgnored(t *testing.T) {
	k := key("args", "serve")
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T, path string, raw []byte)
	}{
		{"torn", func(t *testing.T, path string, raw []byte) { write(t, path, raw[:len(raw)/2], 0o600) }},
		{"a byte changed", func(t *testing.T, path string, raw []byte) {
			raw = bytes.Clone(raw)
			raw[len(recordMagic)+len(k)+5] ^= 1
			write(t, path, raw, 0o600)
		}},
		{"re-summed for another key", func(t *testing.T, path string, raw []byte) {
			other := key("args", "other")
			body := bytes.Clone(raw[:len(raw)-sha256.Size])
			copy(body[len(recordMagic):], other[:])
			sum := sha256.Sum256(body)
			write(t, path, append(body, sum[:]...), 0o600)
		}},
		{"writable by others", func(t *testing.T, path string, raw []byte) {
			if err := os.Chmod(path, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, path string, raw []byte) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, path string, raw []byte) { write(t, path, nil, 0o600) }},
		// Opening a named pipe for reading waits for a writer: Load would
		// never return, and the start would hang before it serves.
		{"a named pipe", func(t *testing.T, path string, raw []byte) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := Store{Dir: t.TempDir()}
			if err := s.Save(k, sample()); err != nil {
				t.Fatal(err)
			}
			path := s.path(k)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Load(k) == nil {
				t.Fatal("the record was not usable before it was spoiled")
			}
			tt.spoil(t, path, raw)
			if got := s.Load(k); got != nil {
				t.Errorf("a record %s was used: %v", tt.name, got)
			}
		})
	}
}

func write(t *testing.T, path string, raw []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, raw, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestTheStoreKeepsTheNewestRecords: past MaxRecords, the records least
// recently saved go, and so do temporary files left long ago.
func TestTheStoreKeepsTheNewestRecords(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	stale := filepath.Join(s.Dir, ".record-left")
	write(t, stale, []byte("x"), 0o600)
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for i := range MaxRecords + 3 {
		k := key("n", fmt.Sprint(i))
		keys = append(keys, k)
		if err := s.Save(k, sample()); err != nil {
			t.Fatal(err)
		}
		// Each saved after the last by its modification time.
		at := time.Now().Add(time.Duration(i-MaxRecords-3) * time.Minute)
		if err := os.Chtimes(s.path(k), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range keys {
		kept := s.Load(k) != nil
		if want := i >= len(keys)-MaxRecords; kept != want {
			t.Errorf("record %d of %d kept: %v, want %v", i, len(keys), kept, want)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a temporary file left two hours ago is still there (%v)", err)
	}
}

// TestAZeroStoreKeepsNothing: no directory, no records, no error.
func TestAZeroStoreKeepsNothing(t *testing.T) {
	var s Store
	if err := s.Save(key(), sample()); err != nil {
		t.Fatal(err)
	}
	if s.Load(key()) != nil {
		t.Error("the zero store loaded a list")
	}
}

// TestAListPastTheBoundIsNotKept: the store holds no record larger than
// maxRecord, so at most MaxRecords of them.
func TestAListPastTheBoundIsNotKept(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	big := &server.Early{Listed: []server.EarlyTool{{Name: "x", Wire: bytes.Repeat([]byte("x"), maxRecord)}}}
	if err := s.Save(key("n", "big"), big); err == nil {
		t.Error("a list past the bound was saved")
	}
	if s.Load(key("n", "big")) != nil {
		t.Error("a list past the bound was kept")
	}
}
