package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A configuration file's search_requests is relative to the file, flags
// add to it, and a bad one fails the whole configuration, with the file's
// key named.
func TestSearchRequestsInTheConfigurationFile(t *testing.T) {
	dir := t.TempDir()
	fakeApp(t, dir, "tool")
	writeFile(t, dir, "ops.yaml", "application: ops\ncommands: {db backup: [save a copy]}\n", 0o644)
	more := writeFile(t, dir, "more.yaml", "application: ops\ncommands: {db backup: [keep a spare]}\n", 0o644)
	cfg := writeFile(t, dir, "c.yaml", "apps: [{path: ./tool}]\nsearch_requests: ops.yaml\n", 0o600)
	t.Chdir(t.TempDir())
	c, _, err := parse(t, "serve", "--config", cfg, "--search-requests", more)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.planned.Serving.Server.SearchRequests["ops"]["db backup"]; !slices.Equal(got, []string{"save a copy", "keep a spare"}) {
		t.Errorf("requests from the configuration file and the flag: %q", got)
	}
	writeFile(t, dir, "ops.yaml", "application: ops\n", 0o644)
	_, _, err = parse(t, "serve", "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), "config "+cfg+": search_requests "+filepath.Join(dir, "ops.yaml")) || !strings.Contains(err.Error(), "commands is missing") {
		t.Errorf("a bad file named in the configuration: %v", err)
	}
}

// A bundle is installed elsewhere than where it is written: a file of
// requests it named would not be there, so it is refused, as --config is.
func TestBundleRefusesAFileOfRequests(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	reqs := writeFile(t, dir, "r.yaml", "application: tool\ncommands: {x: [y]}\n", 0o644)
	_, _, err := parse(t, "bundle", "-o", filepath.Join(dir, "t.mcpb"), "--bundle-version", "1.0.0", "--search-requests", reqs, app)
	if err == nil || !strings.Contains(err.Error(), "--search-requests: a bundle carries its settings as flags") {
		t.Errorf("bundle with --search-requests: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "t.mcpb")); statErr == nil {
		t.Error("the bundle was written anyway")
	}
}
