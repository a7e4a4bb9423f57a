package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// setting describes one setting of serve, tools and config, once: its flag,
// its key in the configuration file (the flag's name with "_" for "-"), and
// the field of the plan it fills. Adding a setting is one entry in settings
// and its line in config.schema.json (a test keeps the two in step).
type setting struct {
	name, help  string
	placeholder string
	def         string   // the default, as fisk shows and applies it
	enum        []string // the values allowed, checked by resolve (see checkEnums)
	path        bool     // names a file: relative to the configuration file, absolute in client configurations
	serving     bool     // serve and config only
	flagOnly    bool     // no configuration key
	singular    bool     // a list key without the plural alias (scrub_envs reads wrong)
	// at returns the field of p the setting fills: a *string, *[]string,
	// *bool, *int or *time.Duration.
	at func(p *plan) any
}

// key is the setting's name in the configuration file.
func (s setting) key() string { return strings.ReplaceAll(s.name, "-", "_") }

func (s setting) isList() bool {
	_, ok := s.at(newPlan(true)).(*[]string)
	return ok
}

// settings are every setting, in the order of --help. The selection comes
// first (serve, tools and config), then what only a running server needs.
var settings = []setting{
	{name: "config", placeholder: "FILE", path: true, flagOnly: true, at: func(p *plan) any { return &p.configFile },
		help: "YAML file with the same settings: keys are the flag names with _ (confirm_tag, token_file, ...), lists for repeatable flags, and apps: [{path, prefix, global_flag, include, exclude, include_tag, exclude_tag}] whose selection applies to that app only; relative paths in it are relative to the file, and an app path without a slash is looked up in PATH; flags override it and repeatable flags add to it"},
	{name: "include", placeholder: "REGEX", singular: true, at: func(p *plan) any { return &p.include },
		help: "Serve only tools whose name matches this regular expression (repeatable; any match keeps a tool)"},
	{name: "exclude", placeholder: "REGEX", singular: true, at: func(p *plan) any { return &p.exclude },
		help: "Never serve tools whose name matches this regular expression (repeatable; wins over --include)"},
	{name: "include-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.IncludeTags },
		help: "Serve only tools carrying this tag themselves (repeatable; a tag inherited from a group does not include a tool; an empty value matches tools with no tags of their own)"},
	{name: "exclude-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.ExcludeTags },
		help: "Never serve tools carrying this tag, on the command or on any group above it (repeatable; an empty value excludes tools with no tags of their own)"},
	{name: "confirm-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.ConfirmTags },
		help: "Require a person's approval, through the client, for tools carrying this tag, in addition to ai:confirm (repeatable)"},
	{name: "read-only-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.ReadOnlyTags },
		help: "Treat this application tag like ai:read_only (repeatable)"},
	{name: "additive-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.AdditiveTags },
		help: "Treat this application tag like ai:additive (repeatable)"},
	{name: "destructive-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.DestructiveTags },
		help: "Treat this application tag like ai:destructive (repeatable)"},
	{name: "idempotent-tag", placeholder: "TAG", at: func(p *plan) any { return &p.Policy.IdempotentTags },
		help: "Treat this application tag like ai:idempotent (repeatable)"},
	{name: "global-flag", placeholder: "NAME", at: func(p *plan) any { return &p.globalFlags },
		help: "Expose this application-level flag of every app as a tool argument; required ones always are (repeatable)"},
	{name: "scrub-env", placeholder: "NAME", singular: true, at: func(p *plan) any { return &p.ScrubEnv },
		help: "Remove this environment variable from the commands' environment and redact its value from their output, in addition to the built-in credential list (repeatable)"},
	{name: "schema", def: "restricted", enum: []string{"restricted", "full"}, at: func(p *plan) any { return (*string)(&p.Policy.Schema) },
		help: "Input schemas to advertise: restricted (what LLM tool APIs accept) or full (every constraint fisk knows)"},
	{name: "log-level", def: "info", enum: []string{"debug", "info", "warn", "error"}, at: func(p *plan) any { return &p.LogLevel },
		help: "Log level: debug, info, warn or error"},
	{name: "log-format", def: "text", enum: []string{"text", "json"}, at: func(p *plan) any { return &p.LogFormat },
		help: "Log format on stderr: text (coloured on a terminal) or json"},

	{name: "http", placeholder: "ADDR", serving: true, at: func(p *plan) any { return &p.Serving.HTTP.Addr },
		help: "Serve streamable HTTP on this address (endpoint /mcp, health check GET /healthz) instead of stdio; port 0 picks a free port, logged at startup"},
	{name: "stateless", serving: true, at: func(p *plan) any { return &p.Serving.HTTP.Stateless },
		help: "Serve HTTP without sessions (approval then cannot be asked of legacy clients, so gated tools are refused to them)"},
	{name: "token-file", placeholder: "FILE", path: true, serving: true, at: func(p *plan) any { return &p.Serving.tokenFile },
		help: "File holding the bearer token HTTP clients must send, at least 16 characters (openssl rand -hex 32); the FISK_MCP_TOKEN environment variable may hold the token itself instead"},
	{name: "allow-origin", placeholder: "ORIGIN", serving: true, at: func(p *plan) any { return &p.Serving.HTTP.AllowOrigins },
		help: "Accept browser requests from this Origin (repeatable); other cross-origin requests are refused"},
	{name: "allow-host", placeholder: "HOST", serving: true, at: func(p *plan) any { return &p.Serving.HTTP.AllowHosts },
		help: "Accept HTTP requests naming this host in their Host header (repeatable); without a token, a non-loopback server answers only its IP addresses and the host of --http, so that web pages cannot reach it through DNS rebinding; with a token, listing hosts turns that check on"},
	{name: "insecure-no-auth", serving: true, at: func(p *plan) any { return &p.Serving.HTTP.InsecureNoAuth },
		help: "Allow serving HTTP on a non-loopback address without a token"},
	{name: "timeout", def: server.DefaultTimeout.String(), serving: true, at: func(p *plan) any { return &p.Serving.Server.Timeout },
		help: "Longest a command may run before its process group is killed"},
	{name: "concurrency", def: strconv.Itoa(server.DefaultConcurrency), serving: true, at: func(p *plan) any { return &p.Serving.Server.Concurrency },
		help: "Most commands running at once; further calls wait for a slot"},
	{name: "elicit-timeout", def: elicit.DefaultTimeout.String(), serving: true, at: func(p *plan) any { return &p.Serving.Approval.Timeout },
		help: "Longest to wait for a person to approve a gated call; no answer is a refusal"},
	{name: "name", serving: true, at: func(p *plan) any { return &p.Serving.Server.Name },
		help: "Server name shown to clients and in approval prompts (default fisk-mcp)"},
	{name: "instructions", placeholder: "TEXT", serving: true, at: func(p *plan) any { return &p.Serving.Server.Instructions },
		help: "Instructions for the model, sent to clients at initialization"},
	{name: "watch", serving: true, at: func(p *plan) any { return &p.Serving.Watch },
		help: "Reload the tools when an app binary changes or on SIGHUP; clients are told the list changed"},
	{name: "state-key-file", placeholder: "FILE", path: true, serving: true, at: func(p *plan) any { return &p.Serving.stateKeyFile },
		help: "File holding the key that signs approval state, hex (openssl rand -hex 32) or raw random bytes; share it between replicas behind one load balancer; default: a random key per process"},
}

// source records where a setting's value came from, so that a message
// names what the user wrote: the flag, or the configuration file's key.
type source struct {
	given     bool // on the command line
	fromFile  bool // a single value, taken from the file
	fileItems int  // the leading entries of a list that came from the file
}

// has reports whether p carries s: the serving settings belong to serve and
// config only.
func (p *plan) has(s setting) bool { return !s.serving || p.Serving != nil }

// register adds p's settings to cmd as flags, then the APP arguments.
func (p *plan) register(cmd *fisk.CmdClause) {
	for _, s := range settings {
		if !p.has(s) {
			continue
		}
		f := cmd.Flag(s.name, s.help).IsSetByUser(&p.sources[s.name].given)
		if s.placeholder != "" {
			f.PlaceHolder(s.placeholder)
		}
		if s.def != "" {
			f.Default(s.def)
		}
		if s.enum != nil {
			// HintOptions, not EnumVar: resolve checks the value, so the
			// error names the flag or the file's key and comes with all
			// the other problems at once.
			f.HintOptions(s.enum...)
		}
		switch v := s.at(p).(type) {
		case *string:
			f.StringVar(v)
		case *[]string:
			f.StringsVar(v)
		case *bool:
			f.BoolVar(v)
		case *int:
			f.IntVar(v)
		case *time.Duration:
			f.DurationVar(v)
		}
	}
	cmd.Arg("app", "fisk binaries to serve: PATH, or PREFIX=PATH to prefix the app's tool names").StringsVar(&p.appArgs)
}

// merge folds the configuration file into p: command-line values win for
// single-valued settings, and repeatable ones are the file's list followed
// by the command line's. Settings p does not carry are ignored.
func (p *plan) merge(f *fileConfig) {
	for _, s := range settings {
		if !f.keys[s.key()] || !p.has(s) || s.flagOnly {
			continue
		}
		src, dst := s.at(f.values), s.at(p)
		if list, ok := dst.(*[]string); ok {
			from := *src.(*[]string)
			*list = append(slices.Clone(from), *list...)
			p.sources[s.name].fileItems = len(from)
			continue
		}
		if !p.sources[s.name].given {
			reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
			p.sources[s.name].fromFile = true
		}
	}
}

// args renders the flags the user gave as command-line arguments, file
// paths made absolute, in the order of --help, so output is stable (the
// config command re-emits the serve command line from them, so the two
// cannot drift apart).
func (p *plan) args() ([]string, error) {
	var out []string
	for _, s := range settings {
		if !p.has(s) || !p.sources[s.name].given {
			continue
		}
		var vals []string
		switch v := s.at(p).(type) {
		case *bool:
			if *v {
				out = append(out, "--"+s.name)
			} else {
				out = append(out, "--no-"+s.name)
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
			if s.path && v != "" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return nil, fmt.Errorf("--%s %q: %w", s.name, v, err)
				}
				if _, err := os.Stat(abs); err != nil {
					return nil, fmt.Errorf("--%s: %w; the client would fail to start the server", s.name, err)
				}
				v = abs
			}
			out = append(out, "--"+s.name+"="+v)
		}
	}
	return out, nil
}

// named names a single-valued setting as the user gave it: the flag, or
// the key of the configuration file its value came from.
func (p *plan) named(name string) string {
	if p.sources[name].fromFile {
		return p.fileKey(strings.ReplaceAll(name, "-", "_"))
	}
	return "--" + name
}

// item returns a namer for the entries of a repeatable setting: the file's
// entries come first (see merge), the command line's after them.
func (p *plan) item(name string) func(i int) string {
	return func(i int) string {
		if i < p.sources[name].fileItems {
			return p.fileKey(strings.ReplaceAll(name, "-", "_"))
		}
		return "--" + name
	}
}

// fileKey names a key of the configuration file.
func (p *plan) fileKey(key string) string {
	return fmt.Sprintf("config %s: %s", p.configFile, key)
}
