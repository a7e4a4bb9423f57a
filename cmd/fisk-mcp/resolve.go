package main

import (
	"errors"
	"fmt"
	"github.com/fisk-mcp/fisk-mcp/catalog"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
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
	configRaw        []byte   // configFile's content, as load read it
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
	// not natsstore.Memory.
	Replay natsstore.Config

	// ApproverToken is the token of the /approvals page (HTTP only), from
	// approverTokenFile; Opener opens the local approval page, nil for
	// the platform's own.
	ApproverToken string
	Opener        []string

	tokenFile, stateKeyFile, replayStore string
	approvalOpener, approverTokenFile    string
	searchRequests                       []string // read into Server.SearchRequests
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
		p.configRaw = f.raw
	}
	return p.resolve(f.Apps)
}

// resolve validates p and completes it; fileApps are the apps of the
// configuration file. Every error says what to do.
func (p *plan) resolve(fileApps []fileApp) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var badRe []error
	p.Policy.Include, badRe = settings.Regexps(p.set.Item("include"), p.include)
	errs = append(errs, badRe...)
	p.Policy.Exclude, badRe = settings.Regexps(p.set.Item("exclude"), p.exclude)
	errs = append(errs, badRe...)
	errs = append(errs, p.set.CheckEnums()...)
	errs = append(errs, p.set.CheckFlagNames("global-flag", p.globalFlags, "context")...)
	errs = append(errs, p.set.CheckFlagNames("secret-flag", p.Policy.SecretFlags, "password")...)
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
	errs = append(errs, p.resolveApps(fileApps)...)
	if p.Serving != nil {
		errs = append(errs, p.resolveServing())
	}
	return settings.Problems(errs)
}

// resolveApps fills p.Apps from the file's apps, then the APP arguments.
func (p *plan) resolveApps(fileApps []fileApp) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
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
		include, badInclude := settings.Regexps(key("include"), spec.Include)
		exclude, badExclude := settings.Regexps(key("exclude"), spec.Exclude)
		errs = append(append(errs, badInclude...), badExclude...)
		path, err := exposure.ResolveBinary(spec.Path)
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
	return errs
}

func (p *plan) resolveServing() error {
	sp := p.Serving
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if sp.Server.Timeout <= 0 {
		fail("%s %s: give a positive duration such as 30s", p.set.Named("timeout"), sp.Server.Timeout)
	}
	if p.set.Chosen("elicit-timeout") && sp.Approval.Timeout <= 0 {
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
		tok, err := httpguard.ReadTokenFile(p.set.Named("token-file"), sp.tokenFile)
		if err != nil {
			errs = append(errs, err)
		}
		h.Token, sp.TokenFromFile = tok, true
	} else if h.Addr != "" {
		var err error
		if h.Token, err = httpguard.TokenFromEnv(); err != nil {
			errs = append(errs, err)
		}
	}
	if sp.stateKeyFile != "" {
		key, err := elicit.LoadKey(sp.stateKeyFile)
		if err != nil {
			fail("%s: %v; create one with: openssl rand -hex 32 > %s", p.set.Named("state-key-file"), err, sp.stateKeyFile)
		}
		sp.Approval.Key = key
	}
	if len(sp.searchRequests) > 0 {
		sp.Server.SearchRequests = catalog.Requests{}
		for i, path := range sp.searchRequests {
			if err := readSearchRequests(p.set.Item("search-requests")(i), path, sp.Server.SearchRequests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, natsstore.CheckSetting(sp.replayStore, &sp.Replay, p.set.Named)...)
	errs = append(errs, p.resolveApproval()...)
	return errors.Join(errs...)
}
