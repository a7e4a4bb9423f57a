// Package fiskmcp_test holds the test of the layer order: every import of
// a project package points down. docs/architecture.md says what each package is
// for, in the same order.
package fiskmcp_test

import (
	"bytes"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/fisk-mcp/fisk-mcp"

// layers is the order, bottom first: a package imports only packages of
// lower layers. Several packages share a layer when neither needs the
// other. A package listed here that does not exist yet is not an error:
// the places of those to come are kept.
var layers = [][]string{
	// 0, 1: helpers that know nothing of the domain.
	{"internal/echo", "internal/editdist", "internal/ident", "internal/visible", "internal/progress", "internal/version"},
	{"internal/logging"},
	// 2: the domain's foundations: approval hashing, binary identity,
	// process supervision, the stores' NATS connection, files written in
	// someone else's house; telemetry.
	{"canonical", "fileid", "procgroup", "natsconn", "ownfiles", "telemetry"},
	// 3, 4, 5: running a binary (a tool call, its introspection), and the
	// tool model built from what it describes.
	{"execrunner", "introspect"},
	{"schema"},
	{"exposure"},
	// 6: over the tool set: its search; identity (the OAuth resource
	// server: token validation, the caller); policy (who may list and
	// call what).
	{"catalog", "identity", "policy"},
	// 7: the discovery tools over the search, the approval gate, and the
	// HTTP guard (identity's Resource is one of its Authenticators).
	{"discovery", "elicit", "httpguard"},
	// 8, 9: the approval page, which implements the gate's Asker, and the
	// stores on NATS.
	{"browser", "elicit/natsstore"},
	{"browser/natspending", "browser/storetest"},
	// 10, 11: serving a tool set, and describing one.
	{"server"},
	{"listing"},
	// 12: what start-up reads and writes.
	{"settings", "configfile", "clients", "bundle", "watch"},
	// 13: the settings resolved into the values the work is done with,
	// and the loader of the tool set.
	{"plan"},
	// 14: test-only support, which may import any of the above; its
	// browser and NATS parts sit a step above its common helpers.
	{"internal/testsupport", "internal/testsupport/fixture/app"},
	{"internal/testsupport/chromium", "internal/testsupport/natstest"},
	// 15: wiring, binaries and the tests across packages; "." is this test.
	{"cmd/fisk-mcp", "cmd/fisk-demo", "internal/testsupport/fixture/cmd/fisk-fixture", "internal/testsupport/fixture/cmd/fisk-dbctl",
		"integration/e2e", "integration/nats", "integration/nats/internal/replay", "integration/dbctl", "."},
}

// imports returns every project package with the project packages its
// non-test files import, by their path in the module ("." for its root).
// Only shipped code counts: a test may reach up (server's tests load a
// tool set through watch), since nothing imports a test.
var imports = sync.OnceValues(func() (map[string][]string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return nil, fmt.Errorf("%w: %s", err, ee.Stderr)
	} else if err != nil {
		return nil, err
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	pkgs := map[string][]string{}
	for line := range strings.Lines(string(bytes.TrimSpace(out))) {
		fields := strings.Fields(line)
		pkg, _ := rel(fields[0])
		pkgs[pkg] = []string{}
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				pkgs[pkg] = append(pkgs[pkg], r)
			}
		}
	}
	return pkgs, nil
})

func loadImports(t *testing.T) map[string][]string {
	t.Helper()
	pkgs, err := imports()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

func layerOf(pkg string) (int, bool) {
	for i, l := range layers {
		if slices.Contains(l, pkg) {
			return i, true
		}
	}
	return 0, false
}

// tree is a package's top-level folder.
func tree(pkg string) string {
	t, _, _ := strings.Cut(pkg, "/")
	return t
}

func TestEveryPackageHasALayer(t *testing.T) {
	seen := map[string]bool{}
	for _, pkg := range slices.Concat(layers...) {
		if seen[pkg] {
			t.Errorf("package %s is in two layers", pkg)
		}
		seen[pkg] = true
	}
	for pkg := range loadImports(t) {
		if _, ok := layerOf(pkg); !ok {
			t.Errorf("package %s has no layer: add it to layers in layers_test.go, and to docs/architecture.md", pkg)
		}
	}
}

func TestEveryImportPointsDown(t *testing.T) {
	for pkg, imps := range loadImports(t) {
		l, ok := layerOf(pkg)
		for _, imp := range imps {
			// A package without a layer is TestEveryPackageHasALayer's.
			if il, iok := layerOf(imp); ok && iok && il >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import must point to a lower layer", pkg, l, imp, il)
			}
		}
	}
}

// Layers alone would allow a folder's lower package to import a second
// folder whose lower package imports the first: the folders would then
// depend on each other.
func TestNoFoldersImportEachOther(t *testing.T) {
	edges := map[string]map[string]string{} // folder → folder → an import that makes the edge
	for pkg, imps := range loadImports(t) {
		for _, imp := range imps {
			if from, to := tree(pkg), tree(imp); from != to {
				if edges[from] == nil {
					edges[from] = map[string]string{}
				}
				edges[from][to] = pkg + " imports " + imp
			}
		}
	}
	// Depth-first search: a folder met again on the current path closes a cycle.
	var path []string
	done := map[string]bool{}
	var visit func(string)
	visit = func(f string) {
		if i := slices.Index(path, f); i >= 0 {
			cycle := append(slices.Clone(path[i:]), f)
			var why []string
			for j := range len(cycle) - 1 {
				why = append(why, edges[cycle[j]][cycle[j+1]])
			}
			t.Errorf("folders import each other: %s (%s)", strings.Join(cycle, " → "), strings.Join(why, "; "))
			return
		}
		if done[f] {
			return
		}
		path = append(path, f)
		for _, to := range slices.Sorted(maps.Keys(edges[f])) {
			visit(to)
		}
		path = path[:len(path)-1]
		done[f] = true
	}
	for _, f := range slices.Sorted(maps.Keys(edges)) {
		visit(f)
	}
}

// internal/testsupport and its packages are the exception: they exist for
// tests, which may build on any package (a fixture server, say), and
// nothing that ships imports them.
func TestInternalKnowsNothingOfTheDomain(t *testing.T) {
	for pkg, imps := range loadImports(t) {
		if !strings.HasPrefix(pkg, "internal/") || pkg == "internal/testsupport" || strings.HasPrefix(pkg, "internal/testsupport/") {
			continue
		}
		for _, imp := range imps {
			if !strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: a package of internal/ knows nothing of the domain; move it out of internal/, named for its job", pkg, imp)
			}
		}
	}
}
