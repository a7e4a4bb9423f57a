// Package schema is the JSON Schema work of fisk-mcp: it turns one fisk leaf
// command (plus the global flags an operator exposes) into the input schema
// a model is shown, validates every call's arguments against it, and renders
// valid arguments into the argument vector the binary receives.
//
// # Why it renders argv itself
//
// fisk's CmdModel.ArgsFromJSON renders flags as --name=value and positionals
// after "--", but it validates nothing: it accepts hidden flags, turns null
// into "", ignores trailing JSON, silently drops a positional that is
// exactly "--" (shifting the rest), wraps integer overflow, and rejects the
// array its own schema advertises for counter flags. Rather than patch
// around it, Command.Render validates first (strict JSON, the compiled
// schema, then the holes above, each closed explicitly) and renders with the
// same token forms, so that the advertised schema and the argv agree for
// every flag kind. The invariant the fuzz target checks: before "--" there
// are only the command path and tokens of known flags (--name=value, or a
// bare --name / --no-name of a boolean flag); every positional value comes
// after "--".
//
// # What the model is shown
//
// By default the restricted schema fisk precomputes (the subset LLM tool
// APIs accept), adjusted where the raw one cannot be honoured: counters are
// an integer count, map flags an object of strings, an un-negatable flag
// that defaults to true accepts only true. Bounds the restricted subset
// cannot carry (integer ranges) are still enforced, and said in the
// property's description. Full mode advertises fisk's complete schema with
// the same adjustments.
//
// The package imports fisk only: it knows nothing of processes, policy or
// MCP.
package schema
