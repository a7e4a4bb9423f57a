// Package listcache keeps the first tools/list of a start, so that a later
// start over the same inputs can answer it before its tool set is built
// (see server.NewEarly).
//
// A list is kept under a Key that hashes everything it was made from: the
// fisk-mcp build, its command line, environment, directory and
// configuration file, and every application's introspection document. A
// start whose inputs differ in anything finds nothing. A start that finds
// a list still builds its set from the documents and compares the two
// lists (server.Complete), so a list kept wrongly is corrected, with
// list_changed, within the start; and it is only a list: every call is
// checked and run on the set alone.
//
// The records are files in one directory of the user's cache, trusted as
// the content hashes beside them are: a record is used only when it is a
// regular file of this user that no one else may write, whole (its own
// checksum holds) and of this exact key. A cache that cannot be read or
// written costs nothing but the early answer.
package listcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/fisk-mcp/fisk-mcp/server"
)

// Key names one start's inputs.
type Key [sha256.Size]byte

// String is the key in hex, as its record is named.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Keyer builds a Key from labelled parts. Each part is written with its
// label and both lengths, so no two different sequences of parts hash
// alike.
type Keyer struct{ b []byte }

// keyMagic starts every key's input: a new format is a new key.
const keyMagic = "fisk-mcp early list key v1\n"

// NewKeyer returns an empty Keyer.
func NewKeyer() *Keyer { return &Keyer{b: []byte(keyMagic)} }

// Add appends one part.
func (k *Keyer) Add(label string, value []byte) {
	k.b = binary.AppendUvarint(k.b, uint64(len(label)))
	k.b = append(k.b, label...)
	k.b = binary.AppendUvarint(k.b, uint64(len(value)))
	k.b = append(k.b, value...)
}

// AddString appends one part given as a string.
func (k *Keyer) AddString(label, value string) { k.Add(label, []byte(value)) }

// Clone returns a Keyer with the parts of k, to which more can be added
// without changing k.
func (k *Keyer) Clone() *Keyer { return &Keyer{b: slices.Clone(k.b)} }

// Sum returns the key of the parts added so far.
func (k *Keyer) Sum() Key { return sha256.Sum256(k.b) }

// Document returns the hash of an introspection document as the tool set
// reads it: a date with a time of day near now, which an
// application writes into its help as an example of "now" (the nats CLI
// does, on every run), is the same in any two documents, since the set
// replaces it in text (see exposure's stabilise). Two runs of one binary
// therefore hash alike, as their tool sets are alike.
//
// A date so near now in a value rather than in text (a default, an enum)
// is kept by the set and hashed alike all the same; the set's own list,
// compared with the early one, then differs, and clients are told.
func Document(doc []byte, now time.Time) [sha256.Size]byte {
	h := sha256.New()
	from := 0
	for i := 0; i+len("2006-01-02T15:04") <= len(doc); {
		j := bytes.IndexByte(doc[i:], '-')
		if j < 0 {
			break
		}
		start := i + j - 4
		if start < from || !dateTimeAt(doc, start, now) {
			i += j + 1
			continue
		}
		h.Write(doc[from:start])
		h.Write([]byte("YYYY-MM-DD hh:mm:ss"))
		from = start + len("2006-01-02T15:04")
		// Seconds, and a fraction of them, when the time has them.
		if from+3 <= len(doc) && doc[from] == ':' && isDigit(doc[from+1]) && isDigit(doc[from+2]) {
			from += 3
			if from < len(doc) && doc[from] == '.' {
				for from++; from < len(doc) && isDigit(doc[from]); from++ {
				}
			}
		}
		i = from
	}
	h.Write(doc[from:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// dateTimeAt reports whether doc holds, at i, "YYYY-MM-DD" then a "T" or
// a space and "hh:mm", a valid date less than three days from now: wider
// than the set's window (two days), so that every date the set rewrites
// is hashed by its shape. A date between the two windows hashes alike
// though the set keeps it; the lists then differ, and clients are told.
func dateTimeAt(doc []byte, i int, now time.Time) bool {
	const layout = "2006-01-02T15:04"
	if i < 0 || i+len(layout) > len(doc) {
		return false
	}
	b := doc[i : i+len(layout)]
	for k, c := range []byte(layout) {
		switch {
		case c >= '0' && c <= '9':
			if b[k] < '0' || b[k] > '9' {
				return false
			}
		case c == 'T':
			if b[k] != 'T' && b[k] != ' ' {
				return false
			}
		case b[k] != c:
			return false
		}
	}
	t, err := time.ParseInLocation("2006-01-02", string(b[:10]), now.Location())
	if err != nil {
		return false
	}
	d := t.Sub(now)
	return d > -3*24*time.Hour && d < 3*24*time.Hour
}

// Store keeps records in Dir; the zero Store keeps nothing.
type Store struct {
	Dir string
}

// MaxRecords is how many records a Store keeps: the oldest go when a new
// one would pass it.
const MaxRecords = 16

// maxRecord bounds a record read or written, and so the store at
// MaxRecords of them: a list past it is not kept. The nats CLI's full
// list is 223 kB.
const maxRecord = 16 << 20

// recordMagic starts every record.
const recordMagic = "fisk-mcp early list v1\n"

func (s Store) path(k Key) string { return filepath.Join(s.Dir, k.String()) }

// Load returns the list kept under k, or nil.
func (s Store) Load(k Key) *server.Early {
	if s.Dir == "" {
		return nil
	}
	// Without O_NONBLOCK, opening a named pipe put at the record's path
	// waits for a writer, and the start with it; a pipe opened so is then
	// refused as no regular file.
	f, err := os.OpenFile(s.path(k), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !ownRecord(fi) || fi.Size() > maxRecord {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return nil
	}
	e, err := decode(raw, k)
	if err != nil {
		return nil
	}
	return e
}

// Save keeps e under k, replacing what was kept under it, and removes the
// oldest records past MaxRecords. The record is written whole to a
// temporary file and renamed into place, so a reader never sees part of
// one.
func (s Store) Save(k Key, e *server.Early) error {
	if s.Dir == "" || e == nil {
		return nil
	}
	raw := encode(e, k)
	if len(raw) > maxRecord {
		return fmt.Errorf("listcache: the list is %d bytes, more than %d are not kept", len(raw), maxRecord)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".record-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(raw)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), s.path(k))
	}
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	s.prune()
	return nil
}

// prune removes the oldest records past MaxRecords, and temporary files
// an interrupted Save left an hour or more ago.
func (s Store) prune() {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	type rec struct {
		name string
		mod  time.Time
	}
	var recs []rec
	for _, d := range entries {
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if len(d.Name()) == 2*sha256.Size {
			recs = append(recs, rec{d.Name(), fi.ModTime()})
		} else if time.Since(fi.ModTime()) > time.Hour {
			os.Remove(filepath.Join(s.Dir, d.Name()))
		}
	}
	if len(recs) <= MaxRecords {
		return
	}
	slices.SortFunc(recs, func(a, b rec) int { return b.mod.Compare(a.mod) })
	for _, r := range recs[MaxRecords:] {
		os.Remove(filepath.Join(s.Dir, r.name))
	}
}

// ownRecord says whether a record can be trusted: a regular file of this
// user that neither its group nor others may write.
func ownRecord(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// A record is recordMagic, the key, a flags byte (1: deferred), the
// listed tools and the registered ones, each a count then, per tool, its
// name and its wire encoding, each a length then the bytes (a registered
// tool's length is one more than its encoding's, 0 for none), and last the
// SHA-256 of everything before it.

func encode(e *server.Early, k Key) []byte {
	b := append([]byte(recordMagic), k[:]...)
	flags := byte(0)
	if e.Deferred {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(e.Listed)))
	for _, t := range e.Listed {
		b = appendBytes(b, []byte(t.Name))
		b = appendBytes(b, t.Wire)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Registered)))
	for _, t := range e.Registered {
		b = appendBytes(b, []byte(t.Name))
		if t.Wire == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(t.Wire))+1)
			b = append(b, t.Wire...)
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

var errRecord = errors.New("listcache: not a whole record of this key")

func decode(raw []byte, k Key) (*server.Early, error) {
	if len(raw) < len(recordMagic)+len(k)+1+sha256.Size {
		return nil, errRecord
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errRecord
	}
	r := reader{b: body}
	if string(r.take(len(recordMagic))) != recordMagic || !bytes.Equal(r.take(len(k)), k[:]) {
		return nil, errRecord
	}
	flags := r.take(1)
	if r.bad || flags[0] > 1 {
		return nil, errRecord
	}
	e := &server.Early{Deferred: flags[0] == 1}
	n := r.count()
	e.Listed = make([]server.EarlyTool, 0, n)
	for range n {
		name, wire := r.bytes(), r.bytes()
		if r.bad {
			return nil, errRecord
		}
		e.Listed = append(e.Listed, server.EarlyTool{Name: string(name), Wire: wire})
	}
	n = r.count()
	e.Registered = make([]server.EarlyTool, 0, n)
	for range n {
		name := r.bytes()
		t := server.EarlyTool{Name: string(name)}
		if l := r.uvarint(); l > 0 {
			t.Wire = r.take(int(l - 1))
		}
		if r.bad {
			return nil, errRecord
		}
		e.Registered = append(e.Registered, t)
	}
	if r.bad || len(r.b) != 0 {
		return nil, errRecord
	}
	return e, nil
}

// reader reads a record's body; any read past its end sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	l := r.uvarint()
	if l > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	return r.take(int(l))
}

// count reads a number of entries, bounded by what is left to read: each
// takes two bytes at least.
func (r *reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b))/2 {
		r.bad = true
		return 0
	}
	return int(n)
}
