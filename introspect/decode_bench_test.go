package introspect

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// natsDocument returns the nats CLI's introspection document, from the
// binary the nats integration tests install into the test tool cache; the
// benchmark skips when it is not there.
func natsDocument(b *testing.B) []byte {
	b.Helper()
	bin := filepath.Join(testsupport.ToolCache(), "natscli-v0.5.0", "nats")
	if _, err := os.Stat(bin); err != nil {
		b.Skip("no nats binary (run the integration/nats tests once to install it):", err)
	}
	doc, err := exec.Command(bin, "--fisk-introspect").Output()
	if err != nil {
		b.Fatalf("%s --fisk-introspect: %v", bin, err)
	}
	path := filepath.Join(b.TempDir(), "nats.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	if doc, err = os.ReadFile(path); err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchmarkDecodeNATS measures what every start of a server for nats
// spends decoding its document, against one plain decode of it.
func BenchmarkDecodeNATS(b *testing.B) {
	doc := natsDocument(b)
	for _, bc := range []struct {
		name   string
		decode func([]byte) (any, error)
	}{
		{"decode", func(d []byte) (any, error) { return decode(d) }},
		{"whole", func(d []byte) (any, error) { return decodeWhole(d) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.decode(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
