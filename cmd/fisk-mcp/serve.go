package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/logging"
	"github.com/fisk-mcp/fisk-mcp/listing"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/watch"
)

func (c *cli) runServe(*fisk.ParseContext) error {
	p := c.serve
	if err := p.Load(); err != nil {
		return err
	}
	c.planned = p
	if c.dryRun {
		return nil
	}
	log := logging.New(c.stderr, p.LogLevel, p.LogFormat)
	if err := hideMemory(); err != nil {
		log.Warn("the server's memory stays readable by other processes of this user", "err", err)
	}
	return c.serveplan(p, log)
}

// serveplan starts everything a validated plan describes and serves until
// the client leaves or a signal ends the context. Everything that can fail
// is done before serving starts, so a bad setting never leaves a server half
// up.
//
// The start-up is one path for both transports: the apps are loaded while
// the replay store and the approval page are opened, then the server is
// built over the set and serves. Garbage collection is off until the
// server's start-up is over (see startupGC and server.Server.StartupOver).
func (c *cli) serveplan(p *plan.Plan, log *slog.Logger) error {
	sp := p.Serving
	ctx := c.ctx
	// SIGHUP is claimed before anything slow happens, so one arriving
	// during startup is never the default "terminate". With --watch it
	// reloads; without, it shuts down gracefully like SIGTERM (a closed
	// terminal), draining calls instead of dying mid-command.
	var hup chan os.Signal
	if sp.Watch {
		hup = make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
	} else {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGHUP)
		defer stop()
	}

	tel, stopTelemetry, err := server.StartTelemetry(ctx, server.TelemetryConfig{Metrics: sp.Metrics, Token: sp.HTTP.Token,
		InsecureNoAuth: sp.HTTP.InsecureNoAuth, CommandLine: sp.TraceCommandLine, Version: buildVersion()}, log)
	if err != nil {
		return err
	}
	defer stopTelemetry()
	sp.Server.Telemetry = tel
	restoreGC := startupGC(os.Getenv)
	defer restoreGC()
	l := plan.NewLoader(p)
	var w *watch.Watcher
	if sp.Watch {
		w = &watch.Watcher{Paths: l.Paths(), Logger: log, Signals: hup}
		if sp.PolicyFile != "" {
			w.Paths = append(w.Paths, sp.PolicyFile)
		}
		// The baseline is taken before the first load, so a binary
		// replaced while it runs is reloaded once the watcher starts.
		w.Baseline = w.Snapshot()
	}
	// The apps are loaded while the rest is opened. When the rest fails,
	// the load is abandoned, and its error is reported instead only if it
	// has already failed.
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	type loadResult struct {
		set *exposure.ToolSet
		err error
	}
	loaded := make(chan loadResult, 1)
	go func() {
		start := time.Now()
		set, err := l.Load(loadCtx)
		tel.Loaded(time.Since(start), false, err)
		loaded <- loadResult{set, err}
	}()
	failed := func(err error) error {
		select {
		case r := <-loaded:
			if r.err != nil {
				return r.err
			}
		default:
			cancelLoad()
			<-loaded
		}
		return err
	}

	replay, closeStore, err := natsstore.OpenSetting(ctx, sp.ReplayStore, sp.Replay, log)
	if err != nil {
		return failed(err)
	}
	defer closeStore()
	sp.Approval.Replay = replay
	asker, page, closeApprovals, err := openApprovals(ctx, sp, log)
	if err != nil {
		return failed(err)
	}
	defer closeApprovals()
	sp.Approval.Browser, sp.HTTP.Approvals = asker, page
	warnApprovalWait(log, sp.Approval)

	r := <-loaded
	if r.err != nil {
		return r.err
	}
	srv, err := newServer(p, l, r.set, log)
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-srv.StartupOver():
			restoreGC()
			// What an earlier version kept under the user cache directory
			// is no longer read: remove what is provably its own.
			if n := ownfiles.RemoveOldCaches(); n > 0 {
				log.Info("removed what an earlier version kept under the user cache directory", "files", n)
			}
		case <-ctx.Done():
		}
	}()
	stopWatch := func() {}
	defer func() { stopWatch() }()
	started := func(addr string) {
		announce(log, p, l, r.set, addr)
		stopWatch = c.watch(ctx, w, l, srv, log)
	}
	if sp.HTTP.Addr != "" {
		return serveHTTP(ctx, p, srv, started)
	}
	started("")
	if logging.IsTerminal(os.Stdin) {
		log.Warn(terminalNotice)
	}
	return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
}

// newServer builds the server and its approval gate from the plan.
func newServer(p *plan.Plan, l plan.Loader, set *exposure.ToolSet, log *slog.Logger) (*server.Server, error) {
	cfg, err := serverConfig(p, l, log)
	if err != nil {
		return nil, err
	}
	return server.New(cfg, exposure.NewCurrent(set))
}

// serverConfig is the server's configuration, its approval gate
// included, from the plan.
func serverConfig(p *plan.Plan, l plan.Loader, log *slog.Logger) (server.Config, error) {
	sp := p.Serving
	secrets := l.Env.Secrets()
	if sp.HTTP.Token != "" {
		secrets = append(secrets, sp.HTTP.Token)
	}
	cfg, opts := sp.Server, sp.Approval
	if cfg.Name == "" {
		cfg.Name = server.DefaultName
	}
	opts.ServerName = cfg.Name
	gate, err := elicit.NewGate(opts)
	if err != nil {
		return server.Config{}, err
	}
	cfg.Version, cfg.Env, cfg.Redactor, cfg.Gate, cfg.Logger = buildVersion(), l.Env, execrunner.NewRedactor(secrets...), gate, log
	return cfg, nil
}

// serveHTTP binds the address, calls started with the bound address, and
// serves streamable HTTP until ctx ends.
func serveHTTP(ctx context.Context, p *plan.Plan, srv *server.Server, started func(addr string)) error {
	hc := p.Serving.HTTP
	hs, err := srv.ListenHTTP(hc)
	if err != nil {
		var unauthenticated *server.UnauthenticatedError
		if errors.As(err, &unauthenticated) {
			return fmt.Errorf("%w (--token-file FILE or %s=TOKEN sets the token, --oauth-issuer URL admits OAuth clients instead; --insecure-no-auth allows it without)", err, execrunner.TokenEnvVar)
		}
		return err
	}
	started(hs.Addr().String())
	return hs.Serve(ctx)
}

// watch runs w, when --watch made one: it reloads on binary changes and on
// SIGHUP, the policy file (--policy) with the binaries. A reload builds on the set being served, so a tool keeps its name
// against a newcomer, and warns about apps left without tools as startup
// does.
//
// stop ends the watcher and returns once it has: a reload under way is
// abandoned and the binary it introspects killed. Serving calls it before
// it returns, since the client leaving stdio ends serving without ending
// ctx, and a binary that hangs when introspected would otherwise outlive
// the server.
func (c *cli) watch(ctx context.Context, w *watch.Watcher, l plan.Loader, srv *server.Server, log *slog.Logger) (stop func()) {
	if w == nil {
		return func() {}
	}
	w.Reload = func(ctx context.Context) (*exposure.ToolSet, error) {
		if c.serve.Serving.Server.Policy.ReloadOnSignal(log) {
			srv.PolicyChanged()
		}
		start := time.Now()
		set, err := l.Reload(ctx, srv.Tools())
		c.serve.Serving.Server.Telemetry.Loaded(time.Since(start), true, err)
		return set, err
	}
	w.Publish = func(set *exposure.ToolSet) {
		listing.WarnEmptyApps(log, set, l.Apps)
		srv.Publish(set)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	log.Info("watching the apps for changes; SIGHUP reloads at once", "apps", l.Paths())
	return func() {
		cancel()
		<-done
	}
}
