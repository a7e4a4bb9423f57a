package testsupport

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// CopyFile copies the file at from to a new executable file at to, failing
// the test on any error (to existing is one).
func CopyFile(t testing.TB, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TempCopy copies the file at from into a fresh directory of the test's,
// under the same name, and returns the copy's path: the test may replace or
// remove it.
func TempCopy(t testing.TB, from string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(from))
	CopyFile(t, from, path)
	return path
}

// JSONLines encodes items as a JSON array with one item a line, so that
// a snapshot file's diff names the items that changed.
func JSONLines[T any](items []T) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, item := range items {
		line, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		if i < len(items)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
