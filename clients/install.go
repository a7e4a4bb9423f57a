package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"
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
// The file is written whole to a temporary file in its directory, which is
// then renamed over it with the file's mode, so a reader sees the old or
// the new file and a failed write leaves the old one; a symlinked file is
// followed and its target written, so the link stays. Before replacing an
// existing file, a copy is kept as a timestamped backup beside it.
func Install(client string, l Launch, file string, force bool) (Installed, error) {
	f, ok := formats[client]
	if !ok {
		return Installed{}, fmt.Errorf("%w: %s", ErrNoFile, client)
	}
	target, err := resolveLink(file)
	if err != nil {
		return Installed{}, err
	}
	res := Installed{File: target}
	data, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("reading %s: %w", target, err)
	}
	out, unchanged, err := merge(f, data, l, force)
	var me *MalformedError
	if errors.As(err, &me) {
		me.File = target
	}
	if err != nil {
		return res, err
	}
	if unchanged {
		res.Unchanged = true
		return res, nil
	}
	mode := fs.FileMode(0o600) // a new file: it may hold the server's environment
	if exists {
		st, err := os.Stat(target)
		if err != nil {
			return res, err
		}
		mode = st.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return res, fmt.Errorf("creating the directory of %s: %w", target, err)
	}
	err = writeAtomic(target, out, mode, func() (err error) {
		if exists {
			res.Backup, err = backup(target, data, mode)
		}
		return err
	})
	return res, err
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

// resolveLink follows file's symlinks to the file they name, which may not
// exist yet.
func resolveLink(file string) (string, error) {
	for range 40 {
		st, err := os.Lstat(file)
		if errors.Is(err, fs.ErrNotExist) {
			return file, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return file, nil
		}
		to, err := os.Readlink(file)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(file), to)
		}
		file = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links; point --config-file at the file itself", file)
}

// backup keeps data, the file's content before the change, beside it.
func backup(file string, data []byte, mode fs.FileMode) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for i := 0; ; i++ {
		name := file + "." + stamp + ".bak"
		if i > 0 {
			name = fmt.Sprintf("%s.%s-%d.bak", file, stamp, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("keeping a backup of %s: %w; make its directory writable", file, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("keeping a backup of %s: %w", file, err)
		}
		return name, nil
	}
}

// writeAtomic replaces file with data: a temporary file in the same
// directory (so the rename cannot cross file systems), synced, then renamed
// over it once before, the backup, has succeeded.
func writeAtomic(file string, data []byte, mode fs.FileMode, before func() error) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w; the file is unchanged (its directory must be writable)", file, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w; the file is unchanged", file, err)
	}
	if err := before(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("writing %s: %w; the file is unchanged", file, err)
	}
	return nil
}
