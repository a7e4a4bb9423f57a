// Package execrunner runs one command as an argument vector and captures its
// output within a fixed bound. Every tool call of fisk-mcp ends here, so a run
// must stay safe, bounded and prompt whatever the command does: print a
// gigabyte, hang, read stdin, or fork a grandchild that never exits.
//
// # What a run guarantees
//
//   - No shell. Command.Path is executed directly with Command.Args as its
//     argv; no word splitting, globbing or expansion ever happens, so an
//     argument value cannot become a second command. A Path without a slash
//     is looked up in the server's PATH, as os/exec does (and, like os/exec,
//     a result relative to the current directory is refused).
//   - Empty stdin. The child's stdin is the null device: a command that reads
//     it sees EOF at once. It never inherits the server's stdin, which in
//     stdio mode is the protocol stream.
//   - One process group per run. The child leads a new group. A timeout or a
//     cancelled context sends SIGTERM to the whole group, then SIGKILL after
//     Command.KillGrace. When the leader exits on its own, whatever is left
//     in its group is killed at once: a finished call leaves no grandchild
//     behind. The group is killed while the leader is still an unreaped
//     zombie, so its id cannot have been reused by an unrelated process.
//     The supervision (start, wait, group kill, pipe drain) is
//     package procgroup's, the same that runs introspection; this package
//     adds the timeout, the context and the capture's ring.
//   - Bounded capture. stdout and stderr share one pipe and one writer, so
//     their interleaving is the order in which the command wrote them. A
//     RingBuffer keeps a head and a tail within Command.CaptureLimit and
//     drops the middle, with a marker that counts the dropped bytes. Memory
//     stays flat whatever the command prints; the output is valid UTF-8.
//   - Sanitised output. Escape sequences, control characters other than
//     newline and tab, and bidirectional overrides are removed or replaced
//     (SanitizeOutput) after the capture is cut and redacted, which
//     removes and replaces only, so neither the bound nor the redaction
//     is weakened. Command.RawOutput turns it off.
//   - A scrubbed environment. An Environment sorts the server's variables
//     once by the scrubbing rule (envrule.go): credentials by name
//     (CredentialVars, and names with TOKEN, SECRET, PASSWORD, _KEY, ...),
//     URLs with a password, agent sockets and KUBECONFIG are removed;
//     PATH, HOME, the locale, the terminal, TMPDIR and XDG_* are kept, and
//     so are the variables the command's application declares for its own
//     flags and those the operator keeps on purpose. LLMFORMAT=1 is
//     added; PWD is made to agree with the working directory.
//   - Redaction. A Redactor replaces known secret values (those of every
//     variable the rule finds secret, removed or kept) in the output, the
//     displayed command line and error texts. Where the capture drops the
//     middle, no byte of a secret lying across a cut is shown: the cut
//     may drop a few more bytes, which the marker counts (see cut.go).
//
// # What it deliberately does not do
//
// A process that leaves the group on purpose (setsid, setpgid) escapes the
// group kill: no portable unprivileged mechanism can follow it. Such a
// process cannot hold a call open, though: the runner stops reading the
// capture pipe a kill grace after the leader's exit, and the call returns;
// on Linux a process still holding the pipe then is killed (see procgroup).
//
// The package does not log and does not decide policy (which tools may run,
// which need approval, how results are presented): callers do.
package execrunner
