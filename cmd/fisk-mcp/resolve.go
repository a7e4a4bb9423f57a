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

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// plan is what serve, tools and config act on, in the types of the
// packages that act on it. The flags fill it (see bind), the configuration
// file fills what they did not set (see settings.Set.Merge), and resolve
// checks the whole of it and derives what needs work: compiled
// expressions, absolute app paths, the token and the state key. Nothing is
// started until resolve has accepted it.
type plan struct {
	Policy              exposure.Policy
	Apps                []exposure.App
	ScrubEnv, KeepEnv   []string
	LogLevel, LogFormat string
	// Defer and DeferThreshold decide when tools/list is deferred; serve
	// hands them to the server, tools and config judge a set by them.
	Defer          server.DeferMode
	DeferThreshold int
	Serving        *servingPlan // nil for tools

	// The settings resolve turns into the values above.
	configFile       string
	appArgs          []string // PATH or PREFIX=PATH
	include, exclude []string // compiled into Policy
	globalFlags      []string // added to every app's Globals

	set *settings.Set // p's settings, bound to its fields (see bind)
}

// servingPlan is the part only a running server needs.
type servingPlan struct {
	Server   server.Config     // Name, Instructions, Concurrency, Timeout and RawOutput
	HTTP     server.HTTPConfig // Addr "" serves stdio; Token from tokenFile or the environment
	Approval elicit.Options    // Timeout, and Key from stateKeyFile
	Watch    bool

	// Replay configures the NATS replay store, used when replayStore is
	// not replayMemory.
	Replay natsstore.Config

	tokenFile, stateKeyFile, replayStore string
	TokenFromFile                        bool
}

// newPlan returns an empty plan; serving says whether it has the serving
// settings (serve and config) or not (tools).
func newPlan(serving bool) *plan {
	p := &plan{}
	if serving {
		p.Serving = &servingPlan{}
	}
	p.set = p.bind()
	return p
}

// register adds p's settings to cmd as flags, then the APP arguments.
func (p *plan) register(cmd *fisk.CmdClause) {
	p.set.Register(cmd)
	cmd.Arg("app", "fisk binaries to serve: PATH, or PREFIX=PATH to prefix the app's tool names").StringsVar(&p.appArgs)
}

// load merges the configuration file into p and resolves the result.
func (p *plan) load() error {
	f := &fileConfig{}
	if p.configFile != "" {
		var err error
		if f, err = loadConfigFile(p.configFile); err != nil {
			return err
		}
		p.set.Merge(f.set, p.configFile)
	}
	return p.resolve(f.Apps)
}

// resolve validates p and completes it; fileApps are the apps of the
// configuration file. Every error says what to do.
func (p *plan) resolve(fileApps []fileApp) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	p.Policy.Include = compileAll(p.set.Item("include"), p.include, fail)
	p.Policy.Exclude = compileAll(p.set.Item("exclude"), p.exclude, fail)
	for _, s := range p.set.List {
		if v, ok := s.Value.(*string); ok && s.Enum != nil && !slices.Contains(s.Enum, *v) {
			fail("%s %q: use one of %s", p.set.Named(s.Name), *v, strings.Join(s.Enum, ", "))
		}
	}
	for i, name := range p.globalFlags {
		if name == "" || strings.HasPrefix(name, "-") {
			fail("%s %q: give the flag's name without dashes, e.g. --global-flag context", p.set.Item("global-flag")(i), name)
		}
	}
	for i, name := range p.Policy.SecretFlags {
		if name == "" || strings.HasPrefix(name, "-") {
			fail("%s %q: give the flag's name without dashes, e.g. --secret-flag password", p.set.Item("secret-flag")(i), name)
		}
	}
	for i, name := range p.KeepEnv {
		switch {
		case strings.EqualFold(name, execrunner.TokenEnvVar):
			fail("%s %s: the server's own token never reaches commands; remove it", p.set.Item("keep-env")(i), name)
		case slices.ContainsFunc(p.ScrubEnv, func(s string) bool { return strings.EqualFold(s, name) }):
			fail("%s %s is also given to --scrub-env; keep it or scrub it, not both", p.set.Item("keep-env")(i), name)
		}
	}
	if p.DeferThreshold < 1 {
		fail("%s %d: give a number of tools of at least 1 (--defer always defers any set)", p.set.Named("defer-threshold"), p.DeferThreshold)
	}
	p.resolveApps(fileApps, fail)
	if p.Serving != nil {
		if err := p.resolveServing(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return problems(errs)
	}
	return nil
}

// resolveApps fills p.Apps from the file's apps, then the APP arguments.
func (p *plan) resolveApps(fileApps []fileApp, fail func(string, ...any)) {
	specs := slices.Clone(fileApps)
	for _, arg := range p.appArgs {
		a, err := exposure.ParseApp(arg)
		if err != nil {
			fail("%v", err)
			continue
		}
		specs = append(specs, fileApp{Path: a.Path, Prefix: a.Prefix})
	}
	if len(specs) == 0 {
		fail("no apps to serve: pass at least one fisk binary as PATH or PREFIX=PATH, or list apps in --config")
	}
	for i, spec := range specs {
		// Only entries of the file carry a selection, and they come first,
		// so i is the entry's index in the file's apps list.
		key := func(field string) func(int) string {
			return func(int) string { return p.set.FileKey(fmt.Sprintf("apps[%d].%s", i, field)) }
		}
		include := compileAll(key("include"), spec.Include, fail)
		exclude := compileAll(key("exclude"), spec.Exclude, fail)
		path, err := resolveBinary(spec.Path)
		if err != nil && i < len(fileApps) {
			hint := ""
			if !strings.Contains(spec.Path, "/") {
				hint = fmt.Sprintf(" (a path without a slash is a name looked up in PATH; write ./%s for a file beside the configuration)", spec.Path)
			}
			fail("%s: %v%s", key("path")(i), err, hint)
			continue
		}
		if err != nil {
			fail("%v", err)
			continue
		}
		p.Apps = append(p.Apps, exposure.App{
			Prefix:      spec.Prefix,
			Path:        path,
			Globals:     append(slices.Clone(p.globalFlags), spec.GlobalFlags...),
			Include:     include,
			Exclude:     exclude,
			IncludeTags: spec.IncludeTags,
			ExcludeTags: spec.ExcludeTags,
		})
	}
}

func (p *plan) resolveServing() error {
	sp := p.Serving
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if sp.Server.Timeout <= 0 {
		fail("%s %s: give a positive duration such as 30s", p.set.Named("timeout"), sp.Server.Timeout)
	}
	if sp.Approval.Timeout <= 0 {
		fail("%s %s: give a positive duration such as 2m", p.set.Named("elicit-timeout"), sp.Approval.Timeout)
	}
	if sp.Server.Concurrency < 1 {
		fail("%s %d: allow at least 1 command at a time", p.set.Named("concurrency"), sp.Server.Concurrency)
	}
	if sp.HTTP.MaxSessions < 1 {
		fail("%s %d: allow at least 1 session", p.set.Named("max-sessions"), sp.HTTP.MaxSessions)
	}
	sp.Server.Defer, sp.Server.DeferThreshold = p.Defer, p.DeferThreshold
	h := &sp.HTTP
	if h.Addr == "" {
		for _, o := range []struct {
			name string
			set  bool
		}{
			{p.set.Named("stateless"), h.Stateless},
			{p.set.Item("allow-origin")(len(h.AllowOrigins) - 1), len(h.AllowOrigins) > 0},
			{p.set.Item("allow-host")(len(h.AllowHosts) - 1), len(h.AllowHosts) > 0},
			{p.set.Named("insecure-no-auth"), h.InsecureNoAuth},
			{p.set.Named("token-file"), sp.tokenFile != ""},
		} {
			if o.set {
				fail("%s only applies to streamable HTTP: add --http ADDR or remove it", o.name)
			}
		}
	}
	for i, host := range h.AllowHosts {
		if host == "" || strings.ContainsAny(host, "/@?#*, \t") {
			fail("%s %q: give a host name as clients write it in the URL, such as mcp.example.com, without scheme or path", p.set.Item("allow-host")(i), host)
		}
	}
	if sp.tokenFile != "" {
		tok, err := readToken(p.set.Named("token-file"), sp.tokenFile)
		if err != nil {
			errs = append(errs, err)
		}
		h.Token, sp.TokenFromFile = tok, true
	} else if h.Addr != "" {
		const env = execrunner.TokenEnvVar
		h.Token = strings.TrimSpace(os.Getenv(env))
		if h.Token != "" && len(h.Token) < minTokenLen {
			fail("%s holds %d characters; a bearer token needs at least %d, or it can be guessed: set it to a random one, e.g. %s=$(openssl rand -hex 32)", env, len(h.Token), minTokenLen, env)
		}
	}
	if sp.stateKeyFile != "" {
		key, err := elicit.LoadKey(sp.stateKeyFile)
		if err != nil {
			fail("%s: %v; create one with: openssl rand -hex 32 > %s", p.set.Named("state-key-file"), err, sp.stateKeyFile)
		}
		sp.Approval.Key = key
	}
	errs = append(errs, p.resolveReplayStore()...)
	return errors.Join(errs...)
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
