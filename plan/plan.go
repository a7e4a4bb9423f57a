// Package plan turns fisk-mcp's settings into the values the work is done
// with. Each setting is described once (settings.go), taken from a flag or
// from the configuration file (read against config.schema.json by package
// configfile), and checked with every other; what needs work is derived
// there too: compiled expressions, absolute app paths, the tokens, the
// state key, the requests search_tools also matches. It is the one place
// where a setting becomes a value, so serve, tools, config and bundle
// cannot read a setting differently, and nothing is started until the
// whole plan is accepted: every problem is reported at once, before
// anything runs. A [Loader] then builds the tool set from a plan, the
// same way at start-up and on every reload.
//
// The package deliberately starts nothing and prints nothing: it opens no
// store, listens on no address, asks no one. Starting the server, the
// watcher and the approval page, and printing what the commands print, is
// the wiring of cmd/fisk-mcp, which acts on an accepted [Plan].
package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/policy"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// Plan is what serve, tools, config and bundle act on, in the types of
// the packages that act on it. The flags fill it (see bind), the
// configuration file fills what they did not set (see settings.Set.Merge),
// and Load checks the whole of it and derives what needs work. Nothing is
// started until Load has accepted it.
type Plan struct {
	Policy              exposure.Policy
	Apps                []exposure.App
	ScrubEnv, KeepEnv   []string
	LogLevel, LogFormat string
	// Defer and DeferThreshold decide when tools/list is deferred; serve
	// hands them to the server, tools and config judge a set by them.
	Defer          server.DeferMode
	DeferThreshold int
	Serving        *Serving // nil for tools

	// ConfigFile is --config, and AppArgs the APP arguments (PATH or
	// PREFIX=PATH), as given: config and bundle pass them on.
	ConfigFile string
	AppArgs    []string
	// ApprovalDefault, when set, is the --approval of a plan that chooses
	// none, in place of elicit: config and bundle set the mode their client
	// takes, so that what goes with it (--approval-opener) is checked
	// against that mode rather than the server's default.
	ApprovalDefault elicit.Mode

	// The settings Load turns into the values above.
	include, exclude []string // compiled into Policy
	globalFlags      []string // added to every app's Globals

	set *settings.Set // p's settings, bound to its fields (see bind)
}

// Serving is the part only a running server needs.
type Serving struct {
	Server   server.Config     // Name, Instructions, Concurrency, Timeout and RawOutput
	HTTP     server.HTTPConfig // Addr "" serves stdio; Token from tokenFile or the environment
	Approval elicit.Options    // Timeout, and Key from StateKeyFile
	Watch    bool

	// Metrics is --metrics, the address of GET /metrics ("" serves none);
	// TraceCommandLine puts the redacted command line on run spans.
	Metrics          string
	TraceCommandLine bool

	// ReplayStore is --replay-store: natsstore.Memory, or the URL of the
	// NATS server Replay configures.
	ReplayStore string
	Replay      natsstore.Config

	// ApproverToken is the token of the /approvals page (HTTP only), from
	// approverTokenFile; Opener opens the local approval page, nil for
	// the platform's own.
	ApproverToken string
	Opener        []string
	// ApprovalsSignIn, with --oauth-issuer, makes the /approvals page sign
	// people in with the authorization server as the OAuth client
	// --approvals-client-id (its Key the state key); nil otherwise.
	ApprovalsSignIn *browser.SignIn
	TokenFromFile   bool // HTTP.Token came from --token-file, not the environment

	// StateKeyFile and SearchRequestFiles are the files the state key and
	// Server.SearchRequests were read from; bundle refuses them.
	StateKeyFile       string
	SearchRequestFiles []string

	// PolicyFile is --policy, read with PolicyClaims into Server.Policy.
	PolicyFile   string
	PolicyClaims policy.Claims

	tokenFile, approvalOpener, approverTokenFile string
	approvalsClientID, approvalsSecretFile       string
}

// SharesApprovals reports whether approvals in the browser are decided on
// the /approvals page of this server.
func (sp *Serving) SharesApprovals() bool { return sp.ApproverToken != "" || sp.ApprovalsSignIn != nil }

// ApproverSignIn says how a person signs in on the /approvals page.
func (sp *Serving) ApproverSignIn() string {
	if sp.ApprovalsSignIn != nil {
		return "signing in with the authorization server"
	}
	return "with the approver token"
}

// New returns an empty plan; serving says whether it has the serving
// settings (serve, config and bundle) or not (tools).
func New(serving bool) *Plan {
	p := &Plan{}
	if serving {
		p.Serving = &Serving{}
	}
	p.set = p.bind()
	return p
}

// Register adds p's settings to cmd as flags, then the APP arguments.
func (p *Plan) Register(cmd *fisk.CmdClause) {
	p.set.Register(cmd)
	cmd.Arg("app", "fisk binaries to serve: PATH, or PREFIX=PATH to prefix the app's tool names").StringsVar(&p.AppArgs)
}

// Args renders the settings given on the command line as arguments, file
// paths made absolute (see settings.Set.Args), for a client's
// configuration or a bundle to pass to serve. Called before Load, it
// leaves out what the configuration file sets: the file is passed by path.
func (p *Plan) Args() ([]string, error) { return p.set.Args() }

// Chosen reports whether the single-valued setting of that name (the
// flag's, without dashes) was set on the command line or by the file,
// rather than left at its default.
func (p *Plan) Chosen(name string) bool { return p.set.Chosen(name) }

// Load merges the configuration file into p and checks the whole of it,
// completing it; every problem is reported at once, each saying what to
// do.
func (p *Plan) Load() error {
	f := &fileConfig{}
	if p.ConfigFile != "" {
		var err error
		if f, err = loadConfigFile(p.ConfigFile); err != nil {
			return err
		}
		p.set.Merge(f.set, p.ConfigFile)
	}
	if p.ApprovalDefault != "" && p.Serving != nil && !p.Chosen("approval") {
		p.Serving.Approval.Mode = p.ApprovalDefault
	}
	return p.resolve(f.Apps)
}

// resolve validates p and completes it; fileApps are the apps of the
// configuration file. Every error says what to do.
func (p *Plan) resolve(fileApps []fileApp) error {
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
func (p *Plan) resolveApps(fileApps []fileApp) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	specs := slices.Clone(fileApps)
	for _, arg := range p.AppArgs {
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

func (p *Plan) resolveServing() error {
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
			{p.set.Named("oauth-issuer"), h.OAuth.Issuer != ""},
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
	errs = append(errs, p.resolveOAuth()...)
	errs = append(errs, p.resolvePolicy()...)
	if sp.tokenFile != "" {
		tok, err := httpguard.ReadTokenFile(p.set.Named("token-file"), sp.tokenFile)
		if err != nil {
			errs = append(errs, err)
		}
		h.Token, sp.TokenFromFile = tok, true
	} else if h.Addr != "" && h.OAuth.Issuer == "" {
		var err error
		if h.Token, err = httpguard.TokenFromEnv(); err != nil {
			errs = append(errs, err)
		}
	}
	if sp.StateKeyFile != "" {
		key, err := elicit.LoadKey(sp.StateKeyFile)
		if err != nil {
			fail("%s: %v; create one with: openssl rand -hex 32 > %s", p.set.Named("state-key-file"), err, sp.StateKeyFile)
		}
		sp.Approval.Key = key
	}
	if len(sp.SearchRequestFiles) > 0 {
		sp.Server.SearchRequests = catalog.Requests{}
		for i, path := range sp.SearchRequestFiles {
			if err := readSearchRequests(p.set.Item("search-requests")(i), path, sp.Server.SearchRequests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, natsstore.CheckSetting(sp.ReplayStore, &sp.Replay, p.set.Named)...)
	errs = append(errs, p.resolveApproval()...)
	return errors.Join(errs...)
}

// resolvePolicy reads and validates --policy, and has the token validator
// keep the claims it reads.
func (p *Plan) resolvePolicy() []error {
	sp := p.Serving
	if sp.PolicyFile == "" {
		if sp.PolicyClaims != (policy.Claims{}) {
			return []error{fmt.Errorf("the policy claim settings only apply with a policy: add %s FILE or remove them", p.set.Named("policy"))}
		}
		return nil
	}
	pol, err := policy.Load(sp.PolicyFile, sp.PolicyClaims)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", p.set.Named("policy"), err)}
	}
	sp.Server.Policy = policy.NewCurrent(pol)
	sp.HTTP.OAuth.Claims = pol.Claims().Names()
	return nil
}

// resolveOAuth checks the OAuth settings: they need an issuer, which
// replaces the shared token rather than adding to it (see
// server.HTTPConfig.OAuth).
func (p *Plan) resolveOAuth() []error {
	o, sp := p.Serving.HTTP.OAuth, p.Serving
	if o.Issuer == "" {
		if o.Resource != "" || len(o.Scopes) > 0 || len(o.Audiences) > 0 {
			return []error{fmt.Errorf("%s, %s and %s only apply with an authorization server: add %s URL", p.set.Named("oauth-resource"), p.set.Named("oauth-audience"), p.set.Named("oauth-scope"), p.set.Named("oauth-issuer"))}
		}
		return nil
	}
	var errs []error
	if err := o.Check(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", p.set.Named("oauth-issuer"), err))
	}
	if sp.tokenFile != "" {
		errs = append(errs, fmt.Errorf("%s and %s both say how clients get in: OAuth replaces the shared token, so remove one", p.set.Named("oauth-issuer"), p.set.Named("token-file")))
	} else if tok, _ := httpguard.TokenFromEnv(); tok != "" {
		errs = append(errs, fmt.Errorf("%s and the %s environment variable both say how clients get in: OAuth replaces the shared token, so unset %s or remove %s", p.set.Named("oauth-issuer"), execrunner.TokenEnvVar, execrunner.TokenEnvVar, p.set.Named("oauth-issuer")))
	}
	return errs
}
