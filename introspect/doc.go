// Package introspect asks a fisk application to describe itself and turns
// the answer into the leaf commands fisk-mcp can expose.
//
// Load runs BINARY --fisk-introspect as an argument vector (never through a
// shell) with the environment the caller chose (scrubbing credentials from
// it is the caller's job; see Options.Env), in its own process group,
// which is killed whole once the binary exits or is given up on, within a
// deadline and a size bound: a binary the operator points at may
// hang, flood its output or not be a fisk application at all, and each of
// those must end in an error that says what to do, not in a stuck or
// exhausted server. Over-long output is rejected, never truncated: half a
// model would silently lose commands. The process group is supervised by
// package procgroup, as execrunner's runs are; the limits, the sinks and
// the wording of the errors are this package's own.
//
// Walk flattens the decoded model into leaves. It deliberately knows nothing
// about schemas beyond checking that fisk precomputed them, nor about tags,
// names or policy: those belong to the schema and exposure packages.
package introspect
