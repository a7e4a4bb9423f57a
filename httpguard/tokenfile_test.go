package httpguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTokenFileTrimsAndRefusesWeakTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok := strings.Repeat("a", MinTokenLen)
	if got, err := ReadTokenFile("--token-file", write("good", tok+"\r\n")); err != nil || got != tok {
		t.Errorf("ReadTokenFile = %q, %v", got, err)
	}
	for name, content := range map[string]string{"empty": " \n", "lines": tok + "\n" + tok, "short": "abc"} {
		if _, err := ReadTokenFile("--token-file", write(name, content)); err == nil || !strings.HasPrefix(err.Error(), "--token-file ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
