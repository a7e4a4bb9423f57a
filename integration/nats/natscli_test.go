package nats

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// natscliModule is the exact nats CLI the test serves. Its command tree is
// pinned below (leaf counts), so a different version is a different test.
const (
	natscliModule  = "github.com/nats-io/natscli/nats"
	natscliVersion = "v0.5.0"
)

// installTimeout bounds one `go install` of natscli: a cold build of its
// dependency tree takes about a minute on two cores.
const installTimeout = 10 * time.Minute

// fetchFailureMarkers are fragments of the go command's errors when a module
// cannot be downloaded (no network, proxy refusal, unknown version). Only
// these make the test skip in CI; a failure to compile is a real failure.
var fetchFailureMarkers = []string{
	`Get "http`, "reading http", "dial tcp", "no such host", "i/o timeout",
	"connection refused", "connection reset", "TLS handshake timeout",
	"unexpected EOF", "404 Not Found", "410 Gone", "403 Forbidden",
	"unrecognized import path",
}

// natsCacheDir is where the nats binary is kept between runs, in the test
// tool cache, so that only the first run on a machine pays for the build.
func natsCacheDir() string {
	return filepath.Join(testsupport.ToolCache(), "natscli-"+natscliVersion)
}

// installError says why the nats CLI is not available. fetch is true when
// the cause was downloading, which is the one reason CI may skip.
type installError struct {
	fetch  bool
	reason string
}

func (e *installError) Error() string { return e.reason }

// installNATS returns the path of a nats binary of natscliVersion, building
// it with `go install` into the cache directory when it is not already there.
// The build goes to a fresh directory that is renamed into place, so an
// interrupted build never leaves a half-written binary to be reused.
func installNATS(ctx context.Context) (string, error) {
	dir := natsCacheDir()
	bin := filepath.Join(dir, "nats")
	if natsVersionOK(ctx, bin) {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", &installError{reason: fmt.Sprintf("creating %s: %v", dir, err)}
	}
	gobin, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return "", &installError{reason: fmt.Sprintf("creating a build directory in %s: %v", dir, err)}
	}
	defer os.RemoveAll(gobin)

	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", natscliModule+"@"+natscliVersion)
	cmd.Dir = gobin // outside this module: pkg@version mode ignores go.mod anyway
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		return "", &installError{
			fetch:  isFetchFailure(msg),
			reason: fmt.Sprintf("go install %s@%s: %v\n%s", natscliModule, natscliVersion, err, msg),
		}
	}
	if err := os.Rename(filepath.Join(gobin, "nats"), bin); err != nil {
		return "", &installError{reason: fmt.Sprintf("moving the nats binary into %s: %v", dir, err)}
	}
	if !natsVersionOK(ctx, bin) {
		return "", &installError{reason: fmt.Sprintf("%s does not report version %s", bin, natscliVersion)}
	}
	return bin, nil
}

func natsVersionOK(ctx context.Context, bin string) bool {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	return err == nil && strings.TrimSpace(string(out)) == natscliVersion
}

func isFetchFailure(msg string) bool {
	for _, m := range fetchFailureMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
