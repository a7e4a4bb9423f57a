package exposure

import "github.com/fisk-mcp/fisk-mcp/fileid"

// binaryBacked is implemented by tools that run a program found at a path.
type binaryBacked interface {
	// binaryIdentity returns the path and the identity of the file the
	// tool was loaded from (fixed by the first call at the latest).
	binaryIdentity() (path string, id fileid.ID, err error)
	// program is that file as loaded, with the hash of its content.
	program() *loadedBinary
}

// bindingOf is what ToolSet.Binding reports. For a tool that runs a
// program it is what a call depends on (core: schema, gate, behaviour,
// source, title; see descriptorHashes), the program's path and the SHA-256
// of its content. Diff compares descriptors only, because that is what a
// client sees; a call in flight is bound to this one, because a program
// replaced under an unchanged descriptor is not the tool the person
// approved or the call was validated against.
//
// Nothing in it is local to a host: the content hash stands for the file,
// not its inode or times, so replicas serving the same bytes at the same
// path bind alike and accept each other's approvals. The help text is left
// out because the content determines it (bar volatile text, which must not
// divide replicas); the argv and the prompt an approval covers are bound
// by the approval itself. Whether the file at the path is still the one
// loaded is a local question, answered by a stat before each run
// (checkBinary).
//
// An in-process tool's code is part of the server's own binary, which
// cannot change under a running process, so its descriptor is all of it.
func bindingOf(t Tool, descriptor, core digest) digest {
	b, ok := t.(binaryBacked)
	if !ok {
		return descriptor
	}
	path, _, _ := b.binaryIdentity()
	var w digester
	w.init()
	w.label("core")
	w.raw(core)
	w.field("binary", path)
	w.field("content", b.program().bindingKey())
	return w.sum()
}
