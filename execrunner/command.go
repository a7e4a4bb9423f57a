package execrunner

import "time"

const (
	// DefaultCaptureLimit bounds the output kept for one run: head and tail
	// together, whatever the command prints.
	DefaultCaptureLimit = 64 << 10
	// DefaultKillGrace is how long a process group has between SIGTERM and
	// SIGKILL.
	DefaultKillGrace = 2 * time.Second
	// MaxArgv bounds, in bytes, what a command's path and arguments may
	// take together, each counted with the NUL that ends it (see
	// ArgvSize). Linux refuses any one string over 128 KiB, and macOS
	// everything over 1 MiB with the environment; within this bound a
	// command starts on both, and its command line stays one a person can
	// be shown.
	MaxArgv = 128 << 10
)

// ArgvSize is what path and args take of MaxArgv: their bytes, and one
// for the NUL that ends each, as execve counts them.
func ArgvSize(path string, args []string) int {
	n := len(path) + 1
	for _, a := range args {
		n += len(a) + 1
	}
	return n
}

// Command describes one run. The zero value of every optional field is a
// documented default.
type Command struct {
	// Path is the binary to run. It is never interpreted by a shell; a
	// name without a slash is looked up in the server's PATH.
	Path string
	// Args is the argument vector after the program name.
	Args []string
	// Env is the complete environment of the child; build it with
	// Environment.For. Nil means Environ(os.Environ(), nil). PWD is always
	// replaced to agree with Dir.
	Env []string
	// Dir is the working directory; "" means the server's.
	Dir string
	// Timeout bounds the run, from start to the leader's exit; 0 means the
	// context alone bounds it. When it expires the group is killed and the
	// run's error wraps ErrTimeout.
	Timeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL; 0 means
	// DefaultKillGrace.
	KillGrace time.Duration
	// CaptureLimit bounds the captured output, head and tail together (the
	// drop marker comes on top); 0 means DefaultCaptureLimit.
	CaptureLimit int
	// Redactor replaces known secrets in everything returned: the output,
	// the command line and error texts. Nil redacts nothing.
	Redactor *Redactor
	// RawOutput keeps the output's control characters and escape
	// sequences as the command wrote them; false (the default) sanitises
	// it (see SanitizeOutput). Either way it is valid UTF-8 and redacted.
	RawOutput bool
	// CommandLine is the display line of Path and Args, already rendered
	// and redacted by a caller that showed it before the run (as
	// Redactor.DisplayCommandLine renders it); the result and errors report
	// it as given. "" means it is rendered here.
	CommandLine string
}

// Result is the record of a finished run. A non-zero exit is a normal result.
type Result struct {
	// ExitCode is the process's exit code, or -1 when it died by a signal.
	ExitCode int
	// Signal names the signal that killed the process, "" otherwise.
	Signal string
	// Output is stdout and stderr interleaved in the order written, valid
	// UTF-8, redacted, sanitised unless Command.RawOutput; head and tail
	// kept within CaptureLimit with a marker counting the bytes dropped
	// from the middle.
	Output string
	// Truncated reports whether the middle of the output was dropped.
	Truncated bool
	// BytesTotal is every byte the command wrote.
	BytesTotal int64
	// Duration is the wall time from start to the leader's exit.
	Duration time.Duration
	// CommandLine is the command for display: quoted, escaped, redacted.
	CommandLine string
}
