package exposure

import "github.com/fisk-mcp/fisk-mcp/internal/fileid"

// binaryBacked is implemented by tools that run a program found at a path.
type binaryBacked interface {
	// binaryIdentity returns the path and the identity of the file the
	// tool was loaded from (fixed by the first call at the latest).
	binaryIdentity() (path string, id fileid.ID, err error)
}

// bindingOf is what ToolSet.Binding reports: the descriptor hash
// and, for a tool that runs a program, that program's path and
// file identity. Diff compares descriptors only, because that is what a
// client sees; a call in flight is bound to this one, because a program
// replaced under an unchanged descriptor is not the tool the person
// approved or the call was validated against. An in-process tool's code is
// part of the server's own binary, which cannot change under a running
// process, so its descriptor is all of it.
func bindingOf(t Tool, descriptor digest) digest {
	b, ok := t.(binaryBacked)
	if !ok {
		return descriptor
	}
	path, id, err := b.binaryIdentity()
	var w digester
	w.init()
	w.label("descriptor")
	w.raw(descriptor)
	w.field("binary", path)
	if err != nil {
		w.field("unexaminable", err.Error())
	} else {
		w.field("identity", id.String())
	}
	return w.sum()
}
