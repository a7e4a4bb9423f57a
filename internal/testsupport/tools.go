package testsupport

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// InstallTool returns the directory of the outside tool name at version
// in the test tool cache (see ToolCache), installing it there on first
// use: install fills a fresh directory, which is then renamed into place,
// so an interrupted install never leaves half a tool to be reused. Test
// binaries running at once take turns through an exclusive lock on the
// tool, so a tool is installed once per machine. A failed install leaves
// nothing behind and returns install's error. Each tool has its own lock,
// so that different tools (a Go build, npm downloads) install at once.
//
// Callers decide what a tool that cannot be had means: under CI=true
// (see RequireTool) a suite must fail, never skip silently.
func InstallTool(name, version string, install func(dir string) error) (string, error) {
	cache := ToolCache()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("creating the test tool cache %s: %w", cache, err)
	}
	lock, err := os.OpenFile(filepath.Join(cache, "."+name+"-"+version+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("locking the test tool cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("locking the test tool cache: %w", err)
	}
	dir := filepath.Join(cache, name+"-"+version)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(cache, "."+name+"-install-")
	if err != nil {
		return "", fmt.Errorf("installing %s %s: %w", name, version, err)
	}
	defer os.RemoveAll(tmp)
	if err := install(tmp); err != nil {
		return "", fmt.Errorf("installing %s %s into the test tool cache: %w", name, version, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("installing %s %s: %w", name, version, err)
	}
	return dir, nil
}
