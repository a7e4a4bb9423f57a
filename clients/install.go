package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"time"

	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// Errors of Install a caller tells apart.
var (
	// ErrExists: the file names a different server by the same name;
	// Install replaces it only when forced.
	ErrExists = errors.New("the file already configures a different server of that name")
	// ErrCannotMerge: the file is valid, but holds the servers in a shape
	// that Install cannot extend without changing something else.
	ErrCannotMerge = errors.New("cannot merge the entry into the file")
	// ErrNoFile: the client keeps no file of its own that Install writes
	// (Claude Code is configured through its command), or none on this OS.
	ErrNoFile = errors.New("no configuration file to install into")
)

// MalformedError reports a client's file that does not parse; Install
// changes nothing then.
type MalformedError struct {
	File string
	Err  error
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s is malformed: %v; fix it (or move it away) and install again", e.File, e.Err)
}

func (e *MalformedError) Unwrap() error { return e.Err }

// Installed reports what Install did.
type Installed struct {
	// File is the file written: a symlink's target, not the link.
	File string
	// Backup is the copy of File as it was before, FILE.YYYYMMDDTHHMMSSZ.bak
	// beside it; "" when File was created or left as it was.
	Backup string
	// Unchanged says that File held the same entry already.
	Unchanged bool
}

// Install writes l's entry into file, the configuration file of client,
// in the client's format. It merges: every other server and every key it
// does not know stay as they were, and so do comments in the formats that
// have them (JSONC for VS Code and Gemini CLI, TOML for Codex), because
// only the entry's own text is added or replaced. An entry of the same name
// that differs is replaced only with force (ErrExists otherwise); the same
// entry is a success that writes nothing. A file that does not parse is a
// *MalformedError and stays untouched.
//
// The file is someone else's house (see package ownfiles): written only
// in a directory of the user's own that others may not write, through no
// link of another user, atomically, with the file's mode; a symlinked
// file of the user's is followed and its target written, so the link
// stays. Before replacing an existing file, a copy is kept as a
// timestamped backup beside it. Installs into one directory take turns
// (a lock on it), and the file is read again just before the new one
// replaces it: when another program changed it meanwhile, the entry is
// merged into the changed file instead, so neither change is lost.
func Install(client string, l Launch, file string, force bool) (Installed, error) {
	f, ok := formats[client]
	if !ok {
		return Installed{}, fmt.Errorf("%w: %s", ErrNoFile, client)
	}
	target, err := ownfiles.Resolve(file)
	if err != nil {
		return Installed{}, err
	}
	res := Installed{File: target}
	dir, err := ownfiles.OpenDir(filepath.Dir(target))
	if err != nil {
		return res, err
	}
	defer dir.Close()
	unlock, err := dir.Lock()
	if err != nil {
		return res, err
	}
	defer unlock()
	name := filepath.Base(target)
	for range maxMerges {
		data, exists, err := read(dir, name)
		if err != nil {
			return res, err
		}
		out, unchanged, err := merge(f, data, l, force)
		var me *MalformedError
		if errors.As(err, &me) {
			me.File = target
		}
		if err != nil || unchanged {
			res.Unchanged = unchanged
			return res, err
		}
		w, err := dir.Create(name)
		if err != nil {
			return res, err
		}
		if _, err := w.Write(out); err != nil {
			w.Discard()
			return res, fmt.Errorf("writing %s: %w; the file is unchanged", target, err)
		}
		if testHookBeforeRename != nil {
			testHookBeforeRename(target)
		}
		if now, nowExists, err := read(dir, name); err != nil || nowExists != exists || !bytes.Equal(now, data) {
			w.Discard()
			continue // changed meanwhile: merge into what it is now
		}
		if exists {
			if res.Backup, err = backup(dir, name, data); err != nil {
				w.Discard()
				return res, err
			}
		}
		return res, w.Commit()
	}
	return res, fmt.Errorf("%s changed each of %d times fisk-mcp merged into it: install again once the program writing it is done", target, maxMerges)
}

// maxMerges bounds the merges of one Install into a file that another
// program keeps changing.
const maxMerges = 5

// testHookBeforeRename, when set, is called after the new file is written
// and before the file is read again to compare.
var testHookBeforeRename func(file string)

// read returns the content of name, and whether it exists.
func read(dir *ownfiles.Dir, name string) ([]byte, bool, error) {
	data, err := dir.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", filepath.Join(dir.Path(), name), err)
	}
	return data, true, nil
}

// merge returns data with l's entry in it, in format f.
func merge(f format, data []byte, l Launch, force bool) ([]byte, bool, error) {
	if f.toml {
		return mergeTOML(data, l.Name, codexTable(l), force)
	}
	return mergeJSON(f, data, l, force)
}

func mergeJSON(f format, data []byte, l Launch, force bool) ([]byte, bool, error) {
	d, err := parseJSONDoc(data, f.comments)
	if err != nil {
		return nil, false, &MalformedError{Err: err}
	}
	entry := f.entry(l)
	want := roundTrip(entry)
	if d.root == nil {
		out, err := marshalIndent(map[string]any{f.servers: map[string]any{l.Name: entry}})
		if len(data) > 0 { // comments only: kept above
			out = string(data) + "\n" + out
		}
		return []byte(out), false, err
	}
	var out []byte
	servers := d.root.member(f.servers)
	switch {
	case servers == nil:
		out, err = d.insertMember(d.root, f.servers, map[string]any{l.Name: entry})
	case !servers.value.object:
		return nil, false, fmt.Errorf("%w: %q is not an object; fix it by hand", ErrCannotMerge, f.servers)
	default:
		m := servers.value.member(l.Name)
		switch {
		case m == nil:
			out, err = d.insertMember(servers.value, l.Name, entry)
		case reflect.DeepEqual(d.decoded(m.value.start, m.value.end), want):
			return data, true, nil
		case !force:
			return nil, false, ErrExists
		default:
			out, err = d.replaceValue(m, entry)
		}
	}
	if err != nil {
		return nil, false, err
	}
	out = matchNewlines(data, out)
	// The edit must mean exactly the one change, whatever the file's layout.
	expect := d.decoded(0, len(d.plain)).(map[string]any)
	if s, ok := expect[f.servers].(map[string]any); ok {
		s[l.Name] = want
	} else {
		expect[f.servers] = map[string]any{l.Name: want}
	}
	nd, err := parseJSONDoc(out, f.comments)
	if err != nil || !reflect.DeepEqual(nd.decoded(0, len(nd.plain)), expect) {
		return nil, false, fmt.Errorf("%w: the edited text did not parse back to the same document; add the entry fisk-mcp config prints by hand", ErrCannotMerge)
	}
	return out, false, nil
}

// matchNewlines gives the lines fisk-mcp added to out the CRLF endings of
// data, when every line of data ends so (a file written on Windows).
func matchNewlines(data, out []byte) []byte {
	n := bytes.Count(data, []byte("\n"))
	if n == 0 || bytes.Count(data, []byte("\r\n")) != n {
		return out
	}
	var b bytes.Buffer
	for i, c := range out {
		if c == '\n' && (i == 0 || out[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(c)
	}
	return b.Bytes()
}

func roundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// backup keeps data, the file's content before the change, beside it as
// NAME.YYYYMMDDTHHMMSSZ.bak, and returns its path.
func backup(dir *ownfiles.Dir, name string, data []byte) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for i := 0; ; i++ {
		bak := name + "." + stamp + ".bak"
		if i > 0 {
			bak = fmt.Sprintf("%s.%s-%d.bak", name, stamp, i)
		}
		err := dir.WriteNew(bak, data, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("keeping a backup of %s: %w; the file is unchanged", filepath.Join(dir.Path(), name), err)
		}
		return filepath.Join(dir.Path(), bak), nil
	}
}
