package server

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/policy"
	"github.com/fisk-mcp/fisk-mcp/telemetry"
)

// Defaults for Config.
const (
	DefaultName             = "fisk-mcp"
	DefaultConcurrency      = 4
	DefaultTimeout          = 30 * time.Second
	DefaultProgressInterval = time.Second
	DefaultDrainTimeout     = 10 * time.Second
)

// Config configures a Server. The zero value of every field is a documented
// default.
type Config struct {
	// Name and Version identify the server to clients; Name defaults to
	// DefaultName and is also the server named in approval prompts.
	Name, Version string
	// Instructions are sent to clients at initialisation.
	Instructions string
	// Concurrency bounds the calls that run at once; 0 means
	// DefaultConcurrency. Further calls wait for a slot (the wait respects
	// cancellation).
	Concurrency int
	// ClientConcurrency bounds the slots one client of an HTTP server may
	// hold at once, so that no client can take every slot (see slotPool
	// for what a client is); 0 means half of Concurrency, rounded up. It
	// is capped at Concurrency. Calls over stdio have no such bound.
	ClientConcurrency int
	// Timeout bounds each command; 0 means DefaultTimeout, a negative value
	// means no timeout (the client's cancel still ends the call). The wait
	// for a person's approval is not part of it.
	Timeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL of a cancelled or
	// timed-out command's process group; 0 means execrunner.DefaultKillGrace.
	KillGrace time.Duration
	// Env is the environment commands run in, sorted by the scrubbing
	// rule: a command gets Env.For the variables its application declares
	// (exposure.Call.Envars). Nil means the inherited environment under
	// the built-in rule, taken once when the server is created.
	Env *execrunner.Environment
	// RawOutput hands commands' output to clients with its control
	// characters and escape sequences as written; false (the default)
	// sanitises it (execrunner.SanitizeOutput).
	RawOutput bool
	// Telemetry records spans and metrics of every request (see package
	// telemetry); nil is off, and costs the call path nothing.
	Telemetry *telemetry.Telemetry
	// Redactor replaces known secrets in output and logged command lines.
	Redactor *execrunner.Redactor
	// Gate asks a person to approve gated calls; New installs its
	// Middleware, inside the server's own, so the refusals the gate's
	// middleware makes are written in the line of the call they end. Nil
	// means a gate with default options, a per-process key and Name as the
	// server name.
	Gate *elicit.Gate
	// Logger receives one structured line per call and the server's own
	// events. Nil means a text handler on stderr: never stdout, which is
	// the protocol stream in stdio mode.
	Logger *slog.Logger
	// ProgressInterval is how often a running command reports progress to
	// a client that asked for it; 0 means DefaultProgressInterval.
	ProgressInterval time.Duration
	// Defer decides whether tools/list holds every tool or, deferred, only
	// the ai:no_defer tools and the discovery tools that find, describe and
	// run the others (see DeferMode); "" means DeferAuto.
	Defer DeferMode
	// DeferThreshold is the number of served tools above which DeferAuto
	// defers; 0 means DefaultDeferThreshold.
	DeferThreshold int
	// OutputSchema advertises the CommandResult envelope as the
	// outputSchema of every command tool. Off by default: the schema is the
	// same on every tool, models never see it, and a client may compile a
	// validator for each one on every tools/list (the TypeScript SDK's
	// does). The envelope is returned as structuredContent either way,
	// which the protocol allows without an output schema.
	OutputSchema bool
	// SearchRequests are requests people make of the applications'
	// commands in their own words, which search_tools also matches,
	// besides those known for some applications (see catalog.Asked). Only
	// read.
	SearchRequests catalog.Requests
	// Policy, when it holds a policy, decides per caller which tools are
	// listed, searched, described, suggested and called (see access);
	// nil serves every tool to every caller. A reload swaps its policy.
	Policy *policy.Current
	// DrainTimeout is how long ServeStdio lets in-flight calls finish after
	// its context ends before cancelling them; 0 means DefaultDrainTimeout.
	// HTTPConfig.DrainTimeout, when set, takes precedence for HTTPServer.Serve.
	DrainTimeout time.Duration
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() (Config, error) {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.ClientConcurrency <= 0 {
		c.ClientConcurrency = (c.Concurrency + 1) / 2
	}
	c.ClientConcurrency = min(c.ClientConcurrency, c.Concurrency)
	switch {
	case c.Timeout == 0:
		c.Timeout = DefaultTimeout
	case c.Timeout < 0:
		c.Timeout = 0
	}
	if c.KillGrace <= 0 {
		c.KillGrace = execrunner.DefaultKillGrace
	}
	if c.ProgressInterval <= 0 {
		c.ProgressInterval = DefaultProgressInterval
	}
	switch c.Defer {
	case "":
		c.Defer = DeferAuto
	case DeferAuto, DeferAlways, DeferNever:
	default:
		return c, fmt.Errorf("server: defer mode %q: use %s, %s or %s", c.Defer, DeferAuto, DeferAlways, DeferNever)
	}
	if c.DeferThreshold <= 0 {
		c.DeferThreshold = DefaultDeferThreshold
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.Env == nil {
		c.Env = execrunner.NewEnvironment(os.Environ(), execrunner.EnvRule{})
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if c.Gate == nil {
		g, err := elicit.NewGate(elicit.Options{ServerName: c.Name})
		if err != nil {
			return c, err
		}
		c.Gate = g
	}
	return c, nil
}
