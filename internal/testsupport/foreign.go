package testsupport

import (
	"errors"
	"os"
	"testing"
)

// Nobody is the uid of the user nobody, who owns what a test prepares as
// another user's: a hostile directory, a link, a victim's files.
const Nobody = 65534

// GiveAway makes each path (a link itself, not what it names) belong to
// Nobody. Only root can, as CI runs the tests; for anyone else the test is
// skipped, saying so, except under CI=true, where that fails it.
func GiveAway(t testing.TB, paths ...string) {
	t.Helper()
	var err error
	if os.Geteuid() != 0 {
		err = errors.New("building files of another user needs root: run the test as root, as CI does")
	}
	RequireTool(t, "files of another user (root)", err)
	for _, p := range paths {
		if err := os.Lchown(p, Nobody, Nobody); err != nil {
			t.Fatal(err)
		}
	}
}
