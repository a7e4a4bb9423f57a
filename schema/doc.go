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
// # What the model is shown, and the decisions behind it
//
// By default the restricted schema fisk precomputes (the subset LLM tool
// APIs accept); Full mode advertises fisk's complete schema. Both are
// adjusted where fisk's schema and fisk's parser disagree, so that whatever
// the schema allows renders to argv the application accepts with the same
// values (the property test proves it on the fixture application):
//
//   - A counter flag (fisk says array of integers, which ArgsFromJSON
//     rejects) is an integer count from 0 to MaxCounter, rendered as that
//     many bare --name tokens.
//   - A map flag is an object of string values even in restricted mode
//     (fisk's restricted form, additionalProperties false, is unusable);
//     a key containing "=" or ":" is rejected (fisk splits on the first of
//     either); entries render as --name=key=value sorted by key.
//   - A negatable boolean renders --name or --no-name; an un-negatable one
//     renders --name for true and nothing for false. When it defaults to
//     true, false cannot be expressed: it is advertised as enum [true] and a
//     false is rejected with a message saying to omit it. The flag is not
//     silently left on.
//   - A duration's advertised pattern drops "µs" and every duration is
//     checked with fisk's own parser, which rejects it.
//   - Integers are checked against the flag type's range where fisk's full
//     schema gives one (in restricted mode too, where the range is said in
//     the description instead), and always against ±2^53: fisk parses a
//     plain int through float64 and the schema cannot tell int from int64,
//     so a larger value could silently change. They render in canonical
//     decimal (JSON Schema accepts 7.0 and 7e0 as integers; fisk does not).
//   - A required list (cumulative flag or argument) needs at least one item.
//   - Formats are asserted (an IP flag's oneOf [ipv4, ipv6] in full mode,
//     a URL flag's "uri" in restricted mode): what the model is shown is
//     what is checked.
//   - A positional that is exactly "--" and any string with a NUL character
//     are rejected: fisk would drop the first, exec cannot pass the second.
//   - An argument that shares its name with a flag of its command (fisk's
//     schema then only describes the flag) is advertised as NAME_arg.
//
// It imports no other package of fisk-mcp: it knows nothing of processes,
// policy or MCP.
package schema
