package execrunner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

var (
	// ErrTimeout is wrapped by the error of a run stopped by its Timeout or
	// by its context's deadline.
	ErrTimeout = errors.New("timed out")
	// ErrCanceled is wrapped by the error of a run stopped because its
	// context was cancelled.
	ErrCanceled = errors.New("canceled")
)

// StartError reports that a command could not be started at all: nothing
// ran, there is no Result. Its text says which of the distinct causes it was
// and what to do about it.
type StartError struct {
	// CommandLine is the command for display (escaped and redacted).
	CommandLine string
	// Reason is one of the Start* reasons below.
	Reason string
	// Err is the underlying error (often *fs.PathError or *exec.Error).
	Err error
}

// Reasons a command could not start.
const (
	StartNotFound      = "not found"
	StartNotExecutable = "not executable"
	StartBadDir        = "working directory unusable"
	StartFailed        = "could not start"
)

func (e *StartError) Error() string {
	cause := e.Err
	var pathErr *fs.PathError
	var execErr *exec.Error
	switch {
	case errors.As(e.Err, &execErr):
		cause = execErr.Err
	case errors.As(e.Err, &pathErr):
		cause = pathErr.Err
	}
	switch e.Reason {
	case StartNotFound:
		return fmt.Sprintf("starting %s: %s (%v); check the binary path", e.CommandLine, e.Reason, cause)
	case StartNotExecutable:
		return fmt.Sprintf("starting %s: %s (%v); the path must name a binary the server may execute",
			e.CommandLine, e.Reason, cause)
	case StartBadDir:
		dir := ""
		if pathErr != nil {
			dir = pathErr.Path
		}
		return fmt.Sprintf("starting %s: working directory %q unusable (%v); check the configured directory",
			e.CommandLine, dir, cause)
	}
	return fmt.Sprintf("starting %s: %s (%v)", e.CommandLine, e.Reason, cause)
}

func (e *StartError) Unwrap() error { return e.Err }

// startReason classifies why starting path failed.
func startReason(path string, err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) && pathErr.Op == "chdir" {
		return StartBadDir
	}
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, exec.ErrDot):
		return StartNotFound
	case errors.Is(err, fs.ErrNotExist):
		// ENOENT for a file that exists means its interpreter or dynamic
		// loader is missing: the binary is there but cannot be executed.
		if _, statErr := os.Stat(path); statErr == nil {
			return StartNotExecutable
		}
		return StartNotFound
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOEXEC),
		errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ETXTBSY):
		return StartNotExecutable
	}
	return StartFailed
}
