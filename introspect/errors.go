package introspect

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors classify every failure of Load; test with errors.Is. The
// *Error that wraps them carries the details (binary, stderr, exit code).
var (
	// ErrNotFound: the binary does not exist (or is not in PATH).
	ErrNotFound = errors.New("binary not found")
	// ErrNotExecutable: the binary exists but cannot be started.
	ErrNotExecutable = errors.New("binary is not executable")
	// ErrExit: the binary exited non-zero or was killed by a signal.
	ErrExit = errors.New("introspection failed")
	// ErrNotJSON: the output is not JSON, or not a fisk application model.
	ErrNotJSON = errors.New("output is not a fisk application model")
	// ErrFiskTooOld: a runnable command carries no precomputed schema.
	ErrFiskTooOld = errors.New("needs fisk >= v0.9.0")
	// ErrTimeout: the binary did not answer before the deadline.
	ErrTimeout = errors.New("introspection timed out")
	// ErrTooLarge: the output exceeded the size bound.
	ErrTooLarge = errors.New("introspection output too large")
)

// Error is a failed Load. Kind is one of the sentinel errors above (or
// context.Canceled when the caller gave up); the other fields are filled
// when they apply.
type Error struct {
	Binary   string        // the binary as the caller named it
	Kind     error         // sentinel classifying the failure
	ExitCode int           // for ErrExit: the exit status, -1 when killed by a signal
	Signal   string        // for ErrExit: the signal that killed it, if any
	Stderr   string        // what the binary wrote on stderr (bounded, sanitised)
	Command  string        // for ErrFiskTooOld: the command path without a schema
	Limit    int64         // for ErrTooLarge: the byte limit
	Timeout  time.Duration // for ErrTimeout: the deadline used (0: the caller's)
	Err      error         // the underlying cause, if any
}

// Unwrap exposes both the sentinel and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "introspecting %q: ", e.Binary)
	switch e.Kind {
	case ErrNotFound:
		fmt.Fprintf(&b, "binary not found (%v); check the path, or install the application", e.Err)
	case ErrNotExecutable:
		fmt.Fprintf(&b, "binary cannot be run (%v); point at the application's executable and make sure it is executable (chmod +x) and built for this system", e.Err)
	case ErrExit:
		if e.Signal != "" {
			fmt.Fprintf(&b, "killed by signal %s", e.Signal)
		} else {
			fmt.Fprintf(&b, "exited with status %d", e.ExitCode)
		}
		if e.Stderr != "" {
			fmt.Fprintf(&b, ": %s", e.Stderr)
		}
		b.WriteString("; check that it is a fisk application (fisk >= v0.9.0 answers --fisk-introspect) and that its environment variables hold valid values")
	case ErrNotJSON:
		fmt.Fprintf(&b, "output is not a fisk application model (%v); is it a fisk application? --fisk-introspect needs fisk >= v0.9.0", e.Err)
	case ErrFiskTooOld:
		fmt.Fprintf(&b, "command %q has no precomputed input schema; the application needs fisk >= v0.9.0: rebuild it with a newer fisk", e.Command)
	case ErrTimeout:
		if e.Timeout > 0 {
			fmt.Fprintf(&b, "no answer within %s", e.Timeout)
		} else {
			b.WriteString("no answer before the deadline")
		}
		b.WriteString("; a fisk application answers --fisk-introspect at once: check that the binary is one and that it does not wait for input or the network at startup")
	case ErrTooLarge:
		fmt.Fprintf(&b, "output exceeded %s; the binary must emit a bounded document", formatBytes(e.Limit))
	default:
		fmt.Fprintf(&b, "%v", e.Kind)
		if e.Err != nil && e.Err != e.Kind {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	}
	return b.String()
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// MissingSchemaError is returned by Walk for runnable commands that carry no
// precomputed schema: the application was built with fisk older than v0.9.0.
// It matches ErrFiskTooOld.
type MissingSchemaError struct {
	Commands []string // command paths, space separated, in tree order
}

func (e *MissingSchemaError) Error() string {
	more := ""
	if n := len(e.Commands) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Sprintf("command %q%s has no precomputed input schema; the application needs fisk >= v0.9.0: rebuild it with a newer fisk", e.Commands[0], more)
}

// Unwrap makes the error match ErrFiskTooOld.
func (e *MissingSchemaError) Unwrap() error { return ErrFiskTooOld }
