package schema

import (
	"context"
	"sync"
	"testing"

	"github.com/choria-io/fisk"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// The fixture binary is built once per package and introspected once; the
// 1,000-leaf synthetic document is produced on first use.
var (
	fixtureBin   string
	fixtureModel *fisk.ApplicationModel

	syntheticOnce sync.Once
	syntheticDoc  []byte
	syntheticErr  error
)

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		if fixtureBin, err = s.Fixture(); err != nil {
			return err
		}
		fixtureModel, err = introspect.Load(context.Background(), fixtureBin, introspect.Options{})
		return err
	})
}

// leaf returns the fixture leaf at path (space separated).
func leaf(t testing.TB, path string) introspect.Leaf {
	t.Helper()
	leaves, err := introspect.Walk(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.FullCommand() == path {
			return l
		}
	}
	t.Fatalf("no leaf %q", path)
	return introspect.Leaf{}
}

// decodeLeaves decodes a hand-written introspection document and walks it.
func decodeLeaves(t testing.TB, doc string) (*fisk.ApplicationModel, []introspect.Leaf) {
	t.Helper()
	app, err := introspect.Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := introspect.Walk(app)
	if err != nil {
		t.Fatal(err)
	}
	return app, leaves
}

// command compiles the fixture leaf at path with the required globals.
func command(t testing.TB, path string, mode Mode, globals ...string) *Command {
	t.Helper()
	g, err := Globals(fixtureModel, globals)
	if err != nil {
		t.Fatal(err)
	}
	l := leaf(t, path)
	c, err := NewCommand(l.Path, l.Command, g, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
