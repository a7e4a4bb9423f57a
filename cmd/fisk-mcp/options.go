package main

import (
	"strconv"
	"time"

	"github.com/choria-io/fisk"
)

// Defaults of the settings that have one. They appear in --help through
// fisk's Default and are documented in the configuration schema.
const (
	defaultSchema        = "restricted"
	defaultTimeout       = 30 * time.Second
	defaultConcurrency   = 4
	defaultElicitTimeout = 2 * time.Minute
	defaultLogLevel      = "info"
	defaultLogFormat     = "text"
)

// settings is everything serve, tools and config accept. The command line
// fills it first; the configuration file then fills whatever the command line
// did not set (see merge).
type settings struct {
	ConfigFile string
	Apps       []string // APP arguments: PATH or PREFIX=PATH

	// Selection and policy: shared by serve, tools and config.
	Include, Exclude           []string
	IncludeTags, ExcludeTags   []string
	ConfirmTags                []string
	ReadOnlyTags, AdditiveTags []string
	DestructiveTags            []string
	IdempotentTags             []string
	GlobalFlags                []string
	ScrubEnv                   []string
	Schema                     string
	LogLevel, LogFormat        string

	// Serving: serve and config only.
	HTTP           string
	Stateless      bool
	TokenFile      string
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

	// fromFile marks the single-valued flags whose value came from the
	// configuration file, and fileItems counts the leading entries of each
	// repeatable flag that did (see merge). A message about such a value
	// names the file's key, not a flag the user never typed (see named).
	fromFile  map[string]bool
	fileItems map[string]int
}

// option is one registered flag: whether the user gave it and how to render
// its value back into command-line arguments (the config command re-emits
// the serve command line from these, so the two cannot drift apart).
type option struct {
	name   string
	path   bool // the value names a file; rendered as an absolute path
	set    bool
	render func() []string // values, one argument each; for booleans "true"/"false"
	isBool bool
}

// optionSet registers the shared flags of one command onto one settings.
type optionSet struct {
	s    *settings
	opts []*option
	byID map[string]*option
}

func newOptionSet(s *settings) *optionSet {
	return &optionSet{s: s, byID: map[string]*option{}}
}

// given reports whether the user set the named flag on the command line.
func (o *optionSet) given(name string) bool {
	opt, ok := o.byID[name]
	return ok && opt.set
}

func (o *optionSet) add(cmd *fisk.CmdClause, name, help string, opt *option) *fisk.FlagClause {
	opt.name = name
	o.opts = append(o.opts, opt)
	o.byID[name] = opt
	return cmd.Flag(name, help).IsSetByUser(&opt.set)
}

func (o *optionSet) str(cmd *fisk.CmdClause, name, help string, target *string, path bool) *fisk.FlagClause {
	f := o.add(cmd, name, help, &option{path: path, render: func() []string { return []string{*target} }})
	f.StringVar(target)
	return f
}

// enum registers a flag with a fixed set of values. The value is checked in
// resolve rather than by fisk, so the error names the flag and the choices,
// and a value from the configuration file gets the same check.
func (o *optionSet) enum(cmd *fisk.CmdClause, name, help string, target *string, def string, values ...string) {
	f := o.add(cmd, name, help, &option{render: func() []string { return []string{*target} }})
	f.Default(def).HintOptions(values...).StringVar(target)
}

func (o *optionSet) list(cmd *fisk.CmdClause, name, help, placeholder string, target *[]string) {
	f := o.add(cmd, name, help, &option{render: func() []string { return *target }})
	f.PlaceHolder(placeholder).StringsVar(target)
}

func (o *optionSet) boolean(cmd *fisk.CmdClause, name, help string, target *bool) {
	f := o.add(cmd, name, help, &option{isBool: true, render: func() []string {
		if *target {
			return []string{"true"}
		}
		return []string{"false"}
	}})
	f.BoolVar(target)
}

func (o *optionSet) duration(cmd *fisk.CmdClause, name, help string, target *time.Duration, def time.Duration) {
	f := o.add(cmd, name, help, &option{render: func() []string { return []string{target.String()} }})
	f.Default(def.String()).DurationVar(target)
}

func (o *optionSet) integer(cmd *fisk.CmdClause, name, help string, target *int, def int) {
	f := o.add(cmd, name, help, &option{render: func() []string { return []string{strconv.Itoa(*target)} }})
	f.Default(strconv.Itoa(def)).IntVar(target)
}

// addSelection registers the flags that decide which tools exist and how
// they behave, shared by serve, tools and config.
func (o *optionSet) addSelection(cmd *fisk.CmdClause) {
	s := o.s
	o.str(cmd, "config", "YAML file with the same settings: keys are the flag names with _ (confirm_tag, token_file, ...), lists for repeatable flags, and apps: [{path, prefix, global_flag, include, exclude, include_tag, exclude_tag}] whose selection applies to that app only; relative paths in it are relative to the file, and an app path without a slash is looked up in PATH; flags override it and repeatable flags add to it", &s.ConfigFile, true).PlaceHolder("FILE")
	o.list(cmd, "include", "Serve only tools whose name matches this regular expression (repeatable; any match keeps a tool)", "REGEX", &s.Include)
	o.list(cmd, "exclude", "Never serve tools whose name matches this regular expression (repeatable; wins over --include)", "REGEX", &s.Exclude)
	o.list(cmd, "include-tag", "Serve only tools carrying this tag themselves (repeatable; a tag inherited from a group does not include a tool; an empty value matches tools with no tags of their own)", "TAG", &s.IncludeTags)
	o.list(cmd, "exclude-tag", "Never serve tools carrying this tag, on the command or on any group above it (repeatable; an empty value excludes tools with no tags of their own)", "TAG", &s.ExcludeTags)
	o.list(cmd, "confirm-tag", "Require a person's approval, through the client, for tools carrying this tag, in addition to ai:confirm (repeatable)", "TAG", &s.ConfirmTags)
	o.list(cmd, "read-only-tag", "Treat this application tag like ai:read_only (repeatable)", "TAG", &s.ReadOnlyTags)
	o.list(cmd, "additive-tag", "Treat this application tag like ai:additive (repeatable)", "TAG", &s.AdditiveTags)
	o.list(cmd, "destructive-tag", "Treat this application tag like ai:destructive (repeatable)", "TAG", &s.DestructiveTags)
	o.list(cmd, "idempotent-tag", "Treat this application tag like ai:idempotent (repeatable)", "TAG", &s.IdempotentTags)
	o.list(cmd, "global-flag", "Expose this application-level flag of every app as a tool argument; required ones always are (repeatable)", "NAME", &s.GlobalFlags)
	o.list(cmd, "scrub-env", "Remove this environment variable from the commands' environment and redact its value from their output, in addition to the built-in credential list (repeatable)", "NAME", &s.ScrubEnv)
	o.enum(cmd, "schema", "Input schemas to advertise: restricted (what LLM tool APIs accept) or full (every constraint fisk knows)", &s.Schema, defaultSchema, "restricted", "full")
	o.enum(cmd, "log-level", "Log level: debug, info, warn or error", &s.LogLevel, defaultLogLevel, "debug", "info", "warn", "error")
	o.enum(cmd, "log-format", "Log format on stderr: text (coloured on a terminal) or json", &s.LogFormat, defaultLogFormat, "text", "json")
}

// addServing registers the flags that only matter to a running server,
// shared by serve and config.
func (o *optionSet) addServing(cmd *fisk.CmdClause) {
	s := o.s
	o.str(cmd, "http", "Serve streamable HTTP on this address (endpoint /mcp, health check GET /healthz) instead of stdio; port 0 picks a free port, logged at startup", &s.HTTP, false).PlaceHolder("ADDR")
	o.boolean(cmd, "stateless", "Serve HTTP without sessions (approval then cannot be asked of legacy clients, so gated tools are refused to them)", &s.Stateless)
	o.str(cmd, "token-file", "File holding the bearer token HTTP clients must send, at least 16 characters (openssl rand -hex 32); the FISK_MCP_TOKEN environment variable may hold the token itself instead", &s.TokenFile, true).PlaceHolder("FILE")
	o.list(cmd, "allow-origin", "Accept browser requests from this Origin (repeatable); other cross-origin requests are refused", "ORIGIN", &s.AllowOrigins)
	o.list(cmd, "allow-host", "Accept HTTP requests naming this host in their Host header (repeatable); without a token, a non-loopback server answers only its IP addresses and the host of --http, so that web pages cannot reach it through DNS rebinding; with a token, listing hosts turns that check on", "HOST", &s.AllowHosts)
	o.boolean(cmd, "insecure-no-auth", "Allow serving HTTP on a non-loopback address without a token", &s.InsecureNoAuth)
	o.duration(cmd, "timeout", "Longest a command may run before its process group is killed", &s.Timeout, defaultTimeout)
	o.integer(cmd, "concurrency", "Most commands running at once; further calls wait for a slot", &s.Concurrency, defaultConcurrency)
	o.duration(cmd, "elicit-timeout", "Longest to wait for a person to approve a gated call; no answer is a refusal", &s.ElicitTimeout, defaultElicitTimeout)
	o.str(cmd, "name", "Server name shown to clients and in approval prompts (default fisk-mcp)", &s.Name, false)
	o.str(cmd, "instructions", "Instructions for the model, sent to clients at initialization", &s.Instructions, false).PlaceHolder("TEXT")
	o.boolean(cmd, "watch", "Reload the tools when an app binary changes or on SIGHUP; clients are told the list changed", &s.Watch)
	o.str(cmd, "state-key-file", "File holding the key that signs approval state, hex (openssl rand -hex 32) or raw random bytes; share it between replicas behind one load balancer; default: a random key per process", &s.StateKeyFile, true).PlaceHolder("FILE")
}

// addApps registers the APP arguments.
func (o *optionSet) addApps(cmd *fisk.CmdClause) {
	cmd.Arg("app", "fisk binaries to serve: PATH, or PREFIX=PATH to prefix the app's tool names").StringsVar(&o.s.Apps)
}
