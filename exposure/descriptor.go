package exposure

import (
	"crypto/sha256"
	"fmt"
	"hash"

	"github.com/fisk-mcp/fisk-mcp/canonical"
)

// A digest is the SHA-256 of a record written by a digester.
type digest [32]byte

// descriptorHash identifies everything a client or a person can observe
// about a tool without calling it: description, model description, schema,
// behaviour, gate, exposure, kind, presentation, source and title. Two
// tools with the same name and the same descriptor hash are the same tool
// for Diff.
//
// Aliases, examples and groups' help (Aliased, Exemplified, Grouped) are
// left out on purpose:
// no client is shown them and no call depends on them, so a reload that
// changes only those must not tell clients the list changed. What they
// change is how a search ranks, and a search index is built from each
// published set itself, not from the diff, so it follows them anyway.
//
// It is computed once per tool of a set, when first needed (see member),
// by streaming the descriptor in canonical form (package canonical) into
// SHA-256: marshalling the schema with encoding/json and hashing the
// result costs as much as compiling it.
func descriptorHash(t Tool) digest {
	d, _ := descriptorHashes(t)
	return d
}

// descriptorHashes returns the descriptor hash and, inside it, the hash of
// what a call depends on: everything but the two descriptions. A command's
// descriptions are its help text, which the content of its binary already
// determines (see bindingOf); leaving them out of what an approval binds
// means a volatile phrase the normalisation missed (see stabilise) cannot
// make replicas refuse each other's approvals. The descriptor is the
// descriptions followed by the core, so Diff sees every field as before.
//
// Both are the same on every replica running the same build of fisk-mcp
// with the same tools: nothing in them is local to a process or a host.
func descriptorHashes(t Tool) (descriptor, core digest) {
	var w digester
	w.init()
	w.label("schema")
	if s, ok := t.(schemaSource); ok {
		s.writeSchemaInputs(&w)
	} else {
		w.value(t.InputSchema())
	}
	b := BehaviorOf(t)
	w.field("behavior", fmt.Sprintf("%t/%t/%t/%t", b.ReadOnly, b.Destructive, b.Idempotent, b.OpenWorld))
	// A tool that cannot report a gate differs from one needing none.
	if c, ok := t.(Confirmable); ok {
		w.field("gate", fmt.Sprintf("%t/%s", c.NeedsConfirm(), c.ConfirmTrigger()))
	} else {
		w.field("gate", "unknown")
	}
	w.field("exposure", fmt.Sprintf("%t/%t", t.MCPExposable(), t.A2AExposable()))
	w.field("kind", string(KindOf(t)))
	if d, ok := t.(Describer); ok {
		w.field("presentation", string(d.Presentation()))
	}
	if s, ok := t.(Sourced); ok {
		w.field("source", s.Source())
		w.field("title", s.Title())
	}
	core = w.sum()

	w.init()
	w.field("description", t.Description())
	w.field("model", t.ModelDescription())
	w.label("core")
	w.raw(core)
	return w.sum(), core
}

// schemaSource is implemented by tools whose advertised schema is a pure
// function of inputs they hold, which are cheaper to hash than a fresh copy
// of the schema.
type schemaSource interface {
	writeSchemaInputs(w *digester)
}

// digester writes a record of named fields into SHA-256: each field is its
// name, then one value in canonical form. Names are constants of this
// package and values are self-delimiting, so two records hash alike only
// when they hold the same values under the same names.
type digester struct {
	h   hash.Hash
	enc canonical.Encoder
}

// init readies a zero digester. It is a method rather than a constructor
// so that a digester can live on its caller's stack.
func (w *digester) init() {
	w.h = sha256.New()
	w.enc = canonical.NewEncoder(w.h)
}

// label starts the field name; a value must follow.
func (w *digester) label(name string) {
	w.enc.RawString("\n")
	w.enc.RawString(name)
	w.enc.RawString("=")
}

func (w *digester) field(name, value string) {
	w.label(name)
	w.enc.String(value)
}

// raw writes a digest as a field's value: fixed-length bytes, so
// self-delimiting like a canonical value.
func (w *digester) raw(d digest) { w.enc.Raw(d[:]) }

// value writes v. A Tool implemented outside this package may build its
// schema from any Go types, so each is hashed as the JSON a client sees
// (AnyType), which cannot fail.
func (w *digester) value(v any) {
	w.enc.AnyType = true
	_ = w.enc.Value(v)
}

func (w *digester) sum() digest {
	_ = w.enc.Flush() // a hash.Hash never fails a Write
	var d digest
	w.h.Sum(d[:0])
	return d
}
