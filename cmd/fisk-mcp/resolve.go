package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// appPlan is one app to serve, its path resolved. Its selection comes only
// from its entry in the configuration file and applies in addition to the
// shared one.
type appPlan struct {
	Prefix                   string
	Path                     string // absolute
	Globals                  []string
	Include, Exclude         []*regexp.Regexp
	IncludeTags, ExcludeTags []string
}

// selection is the validated policy shared by serve and tools.
type selection struct {
	Include, Exclude           []*regexp.Regexp
	IncludeTags, ExcludeTags   []string
	ConfirmTags                []string
	ReadOnlyTags, AdditiveTags []string
	DestructiveTags            []string
	IdempotentTags             []string
	Schema                     string
}

// plan is the whole validated configuration: nothing is started until every
// part of it is known to be good.
type plan struct {
	Apps      []appPlan
	Selection selection
	ScrubEnv  []string
	LogLevel  string
	LogFormat string
	Serving   *servingPlan // nil for tools
}

// servingPlan is the validated part only a running server needs.
type servingPlan struct {
	HTTP           string
	Stateless      bool
	Token          string // from --token-file or FISK_MCP_TOKEN; never logged
	TokenFromFile  bool
	AllowOrigins   []string
	AllowHosts     []string
	InsecureNoAuth bool
	Timeout        time.Duration
	Concurrency    int
	ElicitTimeout  time.Duration
	Name           string
	Instructions   string
	Watch          bool
	StateKeyFile   string
	StateKey       []byte // nil: a random key per process
}

// tokenEnv holds the HTTP bearer token itself (not a file name).
const tokenEnv = "FISK_MCP_TOKEN"

// merge folds the configuration file into settings: command-line values win
// for single-valued settings, and repeatable ones are the file's list
// followed by the command line's.
func merge(s *settings, given func(name string) bool, f *fileConfig) {
	if f == nil {
		return
	}
	s.fromFile, s.fileItems = map[string]bool{}, map[string]int{}
	lists := []struct {
		flag string
		dst  *[]string
		src  []string
	}{
		{"include", &s.Include, f.Include}, {"exclude", &s.Exclude, f.Exclude},
		{"include-tag", &s.IncludeTags, f.IncludeTags}, {"exclude-tag", &s.ExcludeTags, f.ExcludeTags},
		{"confirm-tag", &s.ConfirmTags, f.ConfirmTags},
		{"read-only-tag", &s.ReadOnlyTags, f.ReadOnlyTags}, {"additive-tag", &s.AdditiveTags, f.AdditiveTags},
		{"destructive-tag", &s.DestructiveTags, f.DestructiveTags}, {"idempotent-tag", &s.IdempotentTags, f.IdempotentTags},
		{"global-flag", &s.GlobalFlags, f.GlobalFlags}, {"scrub-env", &s.ScrubEnv, f.ScrubEnv},
		{"allow-origin", &s.AllowOrigins, f.AllowOrigins}, {"allow-host", &s.AllowHosts, f.AllowHosts},
	}
	for _, l := range lists {
		*l.dst = append(append([]string(nil), l.src...), *l.dst...)
		s.fileItems[l.flag] = len(l.src)
	}
	str := func(flag string, dst *string, src *string) {
		if src != nil && !given(flag) {
			*dst = *src
			s.fromFile[flag] = true
		}
	}
	boolean := func(flag string, dst *bool, src *bool) {
		if src != nil && !given(flag) {
			*dst = *src
			s.fromFile[flag] = true
		}
	}
	dur := func(flag string, dst *time.Duration, src *string) {
		if src != nil && !given(flag) {
			*dst, _ = time.ParseDuration(*src) // validated by parseConfig
			s.fromFile[flag] = true
		}
	}
	str("schema", &s.Schema, f.Schema)
	str("log-level", &s.LogLevel, f.LogLevel)
	str("log-format", &s.LogFormat, f.LogFormat)
	str("http", &s.HTTP, f.HTTP)
	boolean("stateless", &s.Stateless, f.Stateless)
	str("token-file", &s.TokenFile, f.TokenFile)
	boolean("insecure-no-auth", &s.InsecureNoAuth, f.InsecureNoAuth)
	dur("timeout", &s.Timeout, f.Timeout)
	if f.Concurrency != nil && !given("concurrency") {
		s.Concurrency = *f.Concurrency
		s.fromFile["concurrency"] = true
	}
	dur("elicit-timeout", &s.ElicitTimeout, f.ElicitTimeout)
	str("name", &s.Name, f.Name)
	str("instructions", &s.Instructions, f.Instructions)
	boolean("watch", &s.Watch, f.Watch)
	str("state-key-file", &s.StateKeyFile, f.StateKeyFile)
}

// resolve validates merged settings into a plan. serving says whether the
// serving settings matter (serve) or not (tools). Every error says what to do.
func resolve(s *settings, f *fileConfig, serving bool) (*plan, error) {
	p := &plan{ScrubEnv: s.ScrubEnv, LogLevel: s.LogLevel, LogFormat: s.LogFormat}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	sel := &p.Selection
	sel.Include = compileAll(s.item("include"), s.Include, fail)
	sel.Exclude = compileAll(s.item("exclude"), s.Exclude, fail)
	sel.IncludeTags, sel.ExcludeTags, sel.ConfirmTags = s.IncludeTags, s.ExcludeTags, s.ConfirmTags
	sel.ReadOnlyTags, sel.AdditiveTags = s.ReadOnlyTags, s.AdditiveTags
	sel.DestructiveTags, sel.IdempotentTags = s.DestructiveTags, s.IdempotentTags
	sel.Schema = s.Schema
	for _, e := range []struct {
		flag, value string
		allowed     []string
	}{
		{s.named("schema"), s.Schema, []string{"restricted", "full"}},
		{s.named("log-level"), s.LogLevel, []string{"debug", "info", "warn", "error"}},
		{s.named("log-format"), s.LogFormat, []string{"text", "json"}},
	} {
		if !slices.Contains(e.allowed, e.value) {
			fail("%s %q: use one of %s", e.flag, e.value, strings.Join(e.allowed, ", "))
		}
	}
	for i, name := range s.GlobalFlags {
		if name == "" || strings.HasPrefix(name, "-") {
			fail("%s %q: give the flag's name without dashes, e.g. --global-flag context", s.item("global-flag")(i), name)
		}
	}

	var specs []fileApp
	if f != nil {
		specs = append(specs, f.Apps...)
	}
	for _, arg := range s.Apps {
		prefix, path, err := splitApp(arg)
		if err != nil {
			fail("%v", err)
			continue
		}
		specs = append(specs, fileApp{Path: path, Prefix: prefix})
	}
	if len(specs) == 0 {
		fail("no apps to serve: pass at least one fisk binary as PATH or PREFIX=PATH, or list apps in --config")
	}
	for i, spec := range specs {
		// Only entries of the file carry a selection, and they come first,
		// so i is the entry's index in the file's apps list.
		fromFile := f != nil && i < len(f.Apps)
		include := compileAll(func(int) string { return s.fileKey(fmt.Sprintf("apps[%d].include", i)) }, spec.Include, fail)
		exclude := compileAll(func(int) string { return s.fileKey(fmt.Sprintf("apps[%d].exclude", i)) }, spec.Exclude, fail)
		path, err := resolveBinary(spec.Path)
		if err != nil && fromFile {
			hint := ""
			if !strings.Contains(spec.Path, "/") {
				hint = fmt.Sprintf(" (a path without a slash is a name looked up in PATH; write ./%s for a file beside the configuration)", spec.Path)
			}
			fail("%s: %v%s", s.fileKey(fmt.Sprintf("apps[%d].path", i)), err, hint)
			continue
		}
		if err != nil {
			fail("%v", err)
			continue
		}
		p.Apps = append(p.Apps, appPlan{
			Prefix:      spec.Prefix,
			Path:        path,
			Globals:     append(append([]string(nil), s.GlobalFlags...), spec.GlobalFlags...),
			Include:     include,
			Exclude:     exclude,
			IncludeTags: spec.IncludeTags,
			ExcludeTags: spec.ExcludeTags,
		})
	}

	if serving {
		sp, err := resolveServing(s)
		if err != nil {
			errs = append(errs, err)
		}
		p.Serving = sp
	}
	if len(errs) > 0 {
		return nil, problems(errs)
	}
	return p, nil
}

// named names a single-valued setting as the user gave it: the flag, or
// the key of the configuration file its value came from.
func (s *settings) named(flag string) string {
	if s.fromFile[flag] {
		return s.fileKey(strings.ReplaceAll(flag, "-", "_"))
	}
	return "--" + flag
}

// item returns a namer for the entries of a repeatable setting: the file's
// entries come first (see merge), the command line's after them.
func (s *settings) item(flag string) func(i int) string {
	return func(i int) string {
		if i < s.fileItems[flag] {
			return s.fileKey(strings.ReplaceAll(flag, "-", "_"))
		}
		return "--" + flag
	}
}

// fileKey names a key of the configuration file.
func (s *settings) fileKey(key string) string {
	return fmt.Sprintf("config %s: %s", s.ConfigFile, key)
}

// problems reports every error at once, one per line, so a bad command
// line is fixed in one go rather than one complaint at a time.
func problems(errs []error) error {
	var flat []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			flat = append(flat, j.Unwrap()...)
		} else {
			flat = append(flat, err)
		}
	}
	if len(flat) == 1 {
		return flat[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(flat))
	for _, err := range flat {
		b.WriteString("\n  - ")
		b.WriteString(err.Error())
	}
	return errors.New(b.String())
}

func resolveServing(s *settings) (*servingPlan, error) {
	sp := &servingPlan{
		HTTP: s.HTTP, Stateless: s.Stateless, AllowOrigins: s.AllowOrigins, AllowHosts: s.AllowHosts,
		InsecureNoAuth: s.InsecureNoAuth, Timeout: s.Timeout, Concurrency: s.Concurrency,
		ElicitTimeout: s.ElicitTimeout, Name: s.Name, Instructions: s.Instructions,
		Watch: s.Watch, StateKeyFile: s.StateKeyFile,
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if sp.Timeout <= 0 {
		fail("%s %s: give a positive duration such as 30s", s.named("timeout"), sp.Timeout)
	}
	if sp.ElicitTimeout <= 0 {
		fail("%s %s: give a positive duration such as 2m", s.named("elicit-timeout"), sp.ElicitTimeout)
	}
	if sp.Concurrency < 1 {
		fail("%s %d: allow at least 1 command at a time", s.named("concurrency"), sp.Concurrency)
	}
	if sp.HTTP == "" {
		for _, o := range []struct {
			name string
			set  bool
		}{
			{s.named("stateless"), s.Stateless},
			{s.item("allow-origin")(len(s.AllowOrigins) - 1), len(s.AllowOrigins) > 0},
			{s.item("allow-host")(len(s.AllowHosts) - 1), len(s.AllowHosts) > 0},
			{s.named("insecure-no-auth"), s.InsecureNoAuth},
			{s.named("token-file"), s.TokenFile != ""},
		} {
			if o.set {
				fail("%s only applies to streamable HTTP: add --http ADDR or remove it", o.name)
			}
		}
	}
	for i, h := range s.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/@?#*, \t") {
			fail("%s %q: give a host name as clients write it in the URL, such as mcp.example.com, without scheme or path", s.item("allow-host")(i), h)
		}
	}
	if s.TokenFile != "" {
		tok, err := readToken(s.named("token-file"), s.TokenFile)
		if err != nil {
			errs = append(errs, err)
		}
		sp.Token, sp.TokenFromFile = tok, true
	} else if sp.HTTP != "" {
		sp.Token = strings.TrimSpace(os.Getenv(tokenEnv))
		if sp.Token != "" && len(sp.Token) < minTokenLen {
			fail("%s holds %d characters; a bearer token needs at least %d, or it can be guessed: set it to a random one, e.g. %s=$(openssl rand -hex 32)", tokenEnv, len(sp.Token), minTokenLen, tokenEnv)
		}
	}
	if s.StateKeyFile != "" {
		key, err := elicit.LoadKey(s.StateKeyFile)
		if err != nil {
			fail("%s: %v; create one with: openssl rand -hex 32 > %s", s.named("state-key-file"), err, s.StateKeyFile)
		}
		sp.StateKey = key
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return sp, nil
}

// minTokenLen is the shortest bearer token accepted, in bytes. A token is
// the only thing between the network and the tools; a short one can be
// guessed, and nothing limits how often a client may try.
const minTokenLen = 16

// readToken reads a bearer token file. Surrounding whitespace is ignored
// (the trailing newline of echo or an editor, and a CRLF line end), as the
// server also ignores it around the token a client sends; an empty, a
// multi-line or a short token is refused.
func readToken(setting, path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w; point it at a readable file holding the bearer token", setting, err)
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" {
		return "", fmt.Errorf("%s %s is empty; write the bearer token into it", setting, path)
	}
	if strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("%s %s holds more than one line; write only the bearer token", setting, path)
	}
	if len(tok) < minTokenLen {
		return "", fmt.Errorf("%s %s holds a token of %d characters; a bearer token needs at least %d, or it can be guessed: make one with: openssl rand -hex 32 > %s", setting, path, len(tok), minTokenLen, path)
	}
	return tok, nil
}

// splitApp parses an APP argument (PATH or PREFIX=PATH) with the same rules
// as exposure, so the command line and the tool model cannot disagree.
func splitApp(arg string) (prefix, path string, err error) {
	a, err := exposure.ParseApp(arg)
	if err != nil {
		return "", "", err
	}
	return a.Prefix, a.Path, nil
}

// resolveBinary makes an app path absolute (bare names are looked up in
// PATH) and checks that it is an executable file, so a typo fails at startup
// rather than on the first call.
func resolveBinary(path string) (string, error) {
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("app %q: not found in PATH; pass the path to a fisk binary", path)
		}
		path = found
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("app %q: %w", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("app %q: %w; pass the path to a fisk binary", path, unwrapPathError(err))
	case fi.IsDir():
		return "", fmt.Errorf("app %q is a directory; pass the path to a fisk binary", path)
	case fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("app %q is not executable; chmod +x it or pass a fisk binary", path)
	}
	return abs, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// compileAll compiles regular expressions, reporting each bad one; what
// names the setting entry i came from.
func compileAll(what func(i int) string, exprs []string, fail func(string, ...any)) []*regexp.Regexp {
	var out []*regexp.Regexp
	for i, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			fail("%s %q is not a valid regular expression (%v); fix it (Go RE2 syntax)", what(i), e, unwrapRegexp(err))
			continue
		}
		out = append(out, re)
	}
	return out
}

func unwrapRegexp(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code) + ": " + se.Expr
	}
	return err.Error()
}
