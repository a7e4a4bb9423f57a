// Package settings describes each setting of a command once, and from that
// one description takes it from the command line and from a configuration
// file: the fisk flag, the file's key (the flag's name with "_" for "-"),
// the precedence between the two, the command line that reproduces what was
// given, and the name a message uses for a value (the flag, or the file's
// key where the value came from the file).
//
// It does not read or check the file (see package configfile), and it does
// not judge values: the caller validates the values it is handed, naming
// them with [Set.Named] and [Set.Item].
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
)

// Setting is one setting: how it is offered and where its value goes.
type Setting struct {
	Name, Help  string
	PlaceHolder string
	Default     string   // as fisk shows and applies it; "" for none
	Enum        []string // the values allowed, offered for completion; the caller checks them
	Path        bool     // the value names a file: relative to the configuration file, absolute in Args
	FlagOnly    bool     // the file has no key for it
	Singular    bool     // a list whose key has no plural alias
	// Commands are the commands that take the setting as a flag; nil for
	// every command the set is registered on. Another command neither
	// lists nor accepts the flag, and its value stays at the default;
	// the file may still set it, for the command to refuse.
	Commands []string
	// Value is where the value goes: a *string, *[]string, *bool, *int or
	// *time.Duration.
	Value any

	given     bool // on the command line
	inFile    bool // the file sets it
	fromFile  bool // a single value taken from the file
	fileItems int  // the leading entries of a list that came from the file
}

// Key is the setting's key in the configuration file.
func (s *Setting) Key() string { return strings.ReplaceAll(s.Name, "-", "_") }

func (s *Setting) isList() bool {
	_, ok := s.Value.(*[]string)
	return ok
}

// Set is the settings of one command, bound to the values they fill.
type Set struct {
	List []*Setting
	file string // the configuration file merged in, for messages
}

func (set *Set) find(name string) *Setting {
	for _, s := range set.List {
		if s.Name == name {
			return s
		}
	}
	panic("settings: no setting " + name)
}

// Register adds the settings cmd takes to it as flags, in order, and
// gives the others their defaults.
func (set *Set) Register(cmd *fisk.CmdClause) {
	for _, s := range set.List {
		if s.Commands != nil && !slices.Contains(s.Commands, cmd.FullCommand()) {
			if s.Default != "" {
				if err := (flagValue{s}).Set(s.Default); err != nil {
					panic(err)
				}
			}
			continue
		}
		f := cmd.Flag(s.Name, s.Help).IsSetByUser(&s.given)
		if s.PlaceHolder != "" {
			f.PlaceHolder(s.PlaceHolder)
		}
		if s.Default != "" {
			f.Default(s.Default)
		}
		if s.Enum != nil {
			// HintOptions, not EnumVar: the caller checks the value, so
			// that the error names the flag or the file's key and comes
			// with every other problem at once.
			f.HintOptions(s.Enum...)
		}
		switch v := s.Value.(type) {
		case *string:
			f.StringVar(v)
		case *[]string:
			f.StringsVar(v)
		case *bool:
			f.BoolVar(v)
		case *int, *time.Duration:
			f.SetValue(flagValue{s})
		default:
			panic(fmt.Sprintf("settings: --%s has a value of type %T", s.Name, s.Value))
		}
	}
}

// ValueError is a flag's value that does not parse: fisk's own errors name
// neither the flag nor the form it takes.
type ValueError struct {
	Flag, Value string
	Want        string // the form to give, with an example
}

func (e *ValueError) Error() string { return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Want) }

// flagValue parses a number or a duration for fisk, failing with a
// [ValueError]; it also applies the default of a setting a command does
// not take.
type flagValue struct{ s *Setting }

func (f flagValue) Set(text string) error {
	switch v := f.s.Value.(type) {
	case *string:
		*v = text
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return &ValueError{f.s.Name, text, "give a whole number, such as 4"}
		}
		*v = n
	case *time.Duration:
		d, err := fisk.ParseDuration(text)
		if err != nil {
			return &ValueError{f.s.Name, text, "give a duration with its unit, such as 10s or 2m"}
		}
		*v = d
	}
	return nil
}

func (f flagValue) String() string { return fmt.Sprint(reflect.ValueOf(f.s.Value).Elem()) }

// Normalize accepts, in obj (a decoded object of the file; where names it
// in messages, e.g. "apps[0]."), the plural spelling of a list's key
// (confirm_tags for confirm_tag) and one string where a list is expected,
// so a configuration reads naturally.
func (set *Set) Normalize(obj map[string]any, where string) error {
	for _, s := range set.List {
		if !s.isList() {
			continue
		}
		key, plural := s.Key(), s.Key()+"s"
		if v, ok := obj[plural]; ok && !s.Singular {
			if _, both := obj[key]; both {
				return fmt.Errorf("both %s%s and %s%s are set; they are the same setting, keep one", where, key, where, plural)
			}
			obj[key] = v
			delete(obj, plural)
		}
		if v, ok := obj[key].(string); ok {
			obj[key] = []any{v}
		}
	}
	return nil
}

// Decode sets each setting doc has a key for, doc being a configuration
// file's object already checked against its schema, so that only values no
// Go type can hold are left to refuse.
func (set *Set) Decode(doc map[string]json.RawMessage) error {
	for _, s := range set.List {
		raw, ok := doc[s.Key()]
		if !ok || s.FlagOnly {
			continue
		}
		s.inFile = true
		if err := decode(s.Key(), raw, s.Value); err != nil {
			return err
		}
	}
	return nil
}

// RelativeTo makes the relative file paths that the file gave relative to
// dir, its directory, so that a configuration means the same thing from any
// working directory.
func (set *Set) RelativeTo(dir string) {
	for _, s := range set.List {
		if !s.Path || !s.inFile {
			continue
		}
		switch v := s.Value.(type) {
		case *string:
			if !filepath.IsAbs(*v) {
				*v = filepath.Join(dir, *v)
			}
		case *[]string:
			for i, p := range *v {
				if p != "" && !filepath.IsAbs(p) {
					(*v)[i] = filepath.Join(dir, p)
				}
			}
		}
	}
}

func decode(key string, raw json.RawMessage, target any) error {
	d, isDuration := target.(*time.Duration)
	if !isDuration {
		return typeError(key, json.Unmarshal(raw, target))
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return typeError(key, err)
	}
	v, err := time.ParseDuration(text)
	if err != nil {
		return fmt.Errorf("%s: %w; write a duration such as 30s or 2m", key, err)
	}
	*d = v
	return nil
}

// typeError names the key and the expected type when a value passed the
// schema but does not fit its Go type (an integer too large for int).
func typeError(key string, err error) error {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) {
		return err
	}
	if ute.Type.Kind() == reflect.Int {
		// The value is not repeated: YAML has read it as a float, so
		// it would be shown rounded, not as written. The file's only
		// integers are counts of at least 1.
		return fmt.Errorf("%s: the number is out of range: expected an integer from 1 to %d", key, math.MaxInt)
	}
	return fmt.Errorf("%s: expected %s, got %s", key, ute.Type, ute.Value)
}

// InFile reports whether the file decoded into set has the setting's key.
func (set *Set) InFile(name string) bool { return set.find(name).inFile }

// Merge folds file, the same settings decoded from the configuration file
// at path, into set: the command line wins for a single value, and a list
// is the file's entries followed by the command line's. Settings set does
// not carry are ignored.
func (set *Set) Merge(file *Set, path string) {
	set.file = path
	for _, s := range set.List {
		from := file.find(s.Name)
		if !from.inFile {
			continue
		}
		if list, ok := s.Value.(*[]string); ok {
			entries := *from.Value.(*[]string)
			*list = append(slices.Clone(entries), *list...)
			s.fileItems = len(entries)
			continue
		}
		if !s.given {
			reflect.ValueOf(s.Value).Elem().Set(reflect.ValueOf(from.Value).Elem())
			s.fromFile = true
		}
	}
}

// Args renders the settings given on the command line as arguments, file
// paths made absolute, in order, so the output is stable. A command line
// rebuilt from them means what the user typed, whatever the directory.
func (set *Set) Args() ([]string, error) {
	var out []string
	for _, s := range set.List {
		if !s.given {
			continue
		}
		var vals []string
		switch v := s.Value.(type) {
		case *bool:
			if *v {
				out = append(out, "--"+s.Name)
			} else {
				out = append(out, "--no-"+s.Name)
			}
			continue
		case *string:
			vals = []string{*v}
		case *[]string:
			vals = *v
		case *int:
			vals = []string{strconv.Itoa(*v)}
		case *time.Duration:
			vals = []string{v.String()}
		}
		for _, v := range vals {
			if s.Path && v != "" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return nil, fmt.Errorf("--%s %q: %w", s.Name, v, err)
				}
				if _, err := os.Stat(abs); err != nil {
					return nil, fmt.Errorf("--%s: %w; the client would fail to start the server", s.Name, err)
				}
				v = abs
			}
			out = append(out, "--"+s.Name+"="+v)
		}
	}
	return out, nil
}

// Chosen reports whether a single-valued setting was set on the command
// line or by the file, rather than left at its default.
func (set *Set) Chosen(name string) bool {
	s := set.find(name)
	return s.given || s.fromFile
}

// Named names a single-valued setting as the user gave it: the flag, or
// the key of the configuration file its value came from.
func (set *Set) Named(name string) string {
	if s := set.find(name); s.fromFile {
		return set.FileKey(s.Key())
	}
	return "--" + name
}

// Item returns a namer for the entries of a list: the file's entries come
// first (see Merge), the command line's after them.
func (set *Set) Item(name string) func(i int) string {
	s := set.find(name)
	return func(i int) string {
		if i < s.fileItems {
			return set.FileKey(s.Key())
		}
		return "--" + name
	}
}

// FileKey names a key of the configuration file merged in.
func (set *Set) FileKey(key string) string {
	return fmt.Sprintf("config %s: %s", set.file, key)
}
