package exposure

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
)

// A fingerprint identifies everything a client or a person can observe
// about a tool without calling it: description, model description, schema,
// behaviour, gate, exposure, kind, presentation, source and title. Two tools
// with the same name and the same fingerprint are the same tool for Diff.
//
// It is computed once, at build time, by writing the descriptor in a
// canonical form (map keys sorted, every value typed) into SHA-256. The
// form only has to be stable within one process, because sets are only
// ever compared with sets built by the same binary; it is written by hand
// because reflection-based JSON costs as much as compiling the schema.
type fingerprint [32]byte

// schemaSource is implemented by tools whose advertised schema is a pure
// function of inputs they hold, which are cheaper to hash than a fresh copy
// of the schema.
type schemaSource interface {
	writeSchemaInputs(w *canonicalWriter)
}

func fingerprintOf(t Tool) fingerprint {
	w := newCanonicalWriter()
	w.field("description", t.Description())
	w.field("model", t.ModelDescription())
	w.label("schema")
	if s, ok := t.(schemaSource); ok {
		s.writeSchemaInputs(w)
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
	return w.sum()
}

// binaryBacked is implemented by tools that run a program found at a path.
type binaryBacked interface {
	// binaryIdentity returns the path and the identity of the file the
	// tool was loaded from (fixed by the first call at the latest).
	binaryIdentity() (path string, id fileIdentity, err error)
}

// bindingOf is what ToolSet.Binding reports: the descriptor's
// fingerprint and, for a tool that runs a program, that program's path and
// file identity. Diff compares descriptors only, because that is what a
// client sees; a call in flight is bound to this one, because a program
// replaced under an unchanged descriptor is not the tool the person
// approved or the call was validated against. An in-process tool's code is
// part of the server's own binary, which cannot change under a running
// process, so its descriptor is all of it.
func bindingOf(t Tool, descriptor fingerprint) fingerprint {
	b, ok := t.(binaryBacked)
	if !ok {
		return descriptor
	}
	path, id, err := b.binaryIdentity()
	w := newCanonicalWriter()
	w.label("descriptor")
	w.raw(descriptor[:])
	w.field("binary", path)
	if err != nil {
		w.field("unexaminable", err.Error())
	} else {
		w.field("identity", id.String())
	}
	return w.sum()
}

// canonicalWriter writes values in an unambiguous, key-sorted form.
type canonicalWriter struct {
	h   hash.Hash
	buf []byte
}

func newCanonicalWriter() *canonicalWriter {
	return &canonicalWriter{h: sha256.New(), buf: make([]byte, 0, 512)}
}

func (w *canonicalWriter) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

func (w *canonicalWriter) sum() fingerprint {
	w.flush()
	var f fingerprint
	w.h.Sum(f[:0])
	return f
}

func (w *canonicalWriter) label(name string) {
	w.buf = append(w.buf, '\n')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '=')
}

func (w *canonicalWriter) field(name, value string) {
	w.label(name)
	w.buf = strconv.AppendQuote(w.buf, value)
}

// raw writes bytes already in a canonical form (such as a hash).
func (w *canonicalWriter) raw(b []byte) {
	w.buf = append(w.buf, b...)
}

// value writes v. Strings are quoted and numbers are not, so "1" and 1
// differ; any type the walk does not know is written as tagged JSON.
func (w *canonicalWriter) value(v any) {
	if len(w.buf) > 4096 {
		w.flush()
	}
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case string:
		w.buf = strconv.AppendQuote(w.buf, x)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case json.Number:
		w.buf = append(w.buf, 'n')
		w.buf = append(w.buf, x...)
	case float64:
		w.buf = append(w.buf, 'f')
		w.buf = strconv.AppendFloat(w.buf, x, 'g', -1, 64)
	case int:
		w.buf = append(w.buf, 'i')
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.buf = append(w.buf, '{')
		for _, k := range keys {
			w.buf = strconv.AppendQuote(w.buf, k)
			w.buf = append(w.buf, ':')
			w.value(x[k])
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, '}')
	case []any:
		w.buf = append(w.buf, '[')
		for _, e := range x {
			w.value(e)
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, ']')
	case []string:
		w.buf = append(w.buf, '[')
		for _, e := range x {
			w.buf = strconv.AppendQuote(w.buf, e)
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, ']')
	default:
		b, err := json.Marshal(x)
		if err != nil {
			// Not serialisable: make the fingerprint unlike any other.
			b = []byte(err.Error())
		}
		w.buf = fmt.Appendf(w.buf, "j%T", x)
		w.buf = strconv.AppendQuote(w.buf, string(b))
	}
}
