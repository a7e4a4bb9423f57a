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
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/watch"
)

func (c *cli) runServe(*fisk.ParseContext) error {
	p := c.serve
	if err := p.load(); err != nil {
		return err
	}
	c.planned = p
	if c.dryRun {
		return nil
	}
	log := logging.New(c.stderr, p.LogLevel, p.LogFormat)
	return c.serveplan(p, log)
}

// serveplan starts everything a validated plan describes and serves until
// the client leaves or a signal ends the context. Everything that can fail
// is done before serving starts, so a bad setting never leaves a server half
// up.
func (c *cli) serveplan(p *plan, log *slog.Logger) error {
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

	restoreGC := startupGC(os.Getenv)
	defer restoreGC()
	l := newLoader(p)
	var w *watch.Watcher
	if sp.Watch {
		w = &watch.Watcher{Paths: l.paths(), Logger: log, Signals: hup}
		// The baseline is taken before the first load, so a binary
		// replaced while it runs is reloaded once the watcher starts.
		w.Baseline = w.Snapshot()
	}
	set, err := l.load(ctx)
	if err != nil {
		return err
	}

	replay, closeStore, err := natsstore.OpenSetting(ctx, sp.replayStore, sp.Replay, log)
	if err != nil {
		return err
	}
	defer closeStore()
	sp.Approval.Replay = replay
	asker, page, closeApprovals, err := openApprovals(ctx, sp, log)
	if err != nil {
		return err
	}
	defer closeApprovals()
	sp.Approval.Browser, sp.HTTP.Approvals = asker, page
	warnApprovalWait(log, sp.Approval)
	stdio := sp.HTTP.Addr == ""
	var srv *server.Server
	if stdio {
		// The start-up ends a little after the first list is written, or
		// when a client that does not list has had its time (see
		// startupSettle); then, with the CPUs idle, a deferred set's
		// search index is built before the model's first search. A timer
		// that fires after serving has ended does nothing: restoreGC has
		// run by then.
		sp.Server.Listed = func() {
			time.AfterFunc(startupSettle, func() {
				restoreGC()
				srv.PrepareSearch()
			})
		}
		defer time.AfterFunc(startupGCWindow, restoreGC).Stop()
	}
	srv, err = newServer(p, l, set, log)
	if err != nil {
		return err
	}
	if stdio {
		announce(log, p, l, set, "")
		defer c.watch(ctx, w, l, srv, log)()
		return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
	}
	// A shared server's first list is one client's among many: its
	// start-up ends when it begins to serve.
	restoreGC()
	go srv.PrepareSearch()
	stopWatch := func() {}
	defer func() { stopWatch() }()
	return serveHTTP(ctx, p, srv, func(addr string) {
		announce(log, p, l, set, addr)
		stopWatch = c.watch(ctx, w, l, srv, log)
	})
}

// newServer builds the server and its approval gate from the plan.
func newServer(p *plan, l loader, set *exposure.ToolSet, log *slog.Logger) (*server.Server, error) {
	sp := p.Serving
	secrets := l.env.Secrets()
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
		return nil, err
	}
	cfg.Version, cfg.Env, cfg.Redactor, cfg.Gate, cfg.Logger = buildVersion(), l.env, execrunner.NewRedactor(secrets...), gate, log
	return server.New(cfg, exposure.NewCurrent(set))
}

// serveHTTP binds the address, calls started with the bound address, and
// serves streamable HTTP until ctx ends.
func serveHTTP(ctx context.Context, p *plan, srv *server.Server, started func(addr string)) error {
	hc := p.Serving.HTTP
	hs, err := srv.ListenHTTP(hc)
	if err != nil {
		var unauthenticated *server.UnauthenticatedError
		if errors.As(err, &unauthenticated) {
			return fmt.Errorf("%w (--token-file FILE or %s=TOKEN sets the token; --insecure-no-auth allows it without)", err, execrunner.TokenEnvVar)
		}
		return err
	}
	started(hs.Addr().String())
	return hs.Serve(ctx)
}

// watch runs w, when --watch made one: it reloads on binary changes and on
// SIGHUP. A reload builds on the set being served, so a tool keeps its name
// against a newcomer, and warns about apps left without tools as startup
// does.
//
// stop ends the watcher and returns once it has: a reload under way is
// abandoned and the binary it introspects killed. Serving calls it before
// it returns, since the client leaving stdio ends serving without ending
// ctx, and a binary that hangs when introspected would otherwise outlive
// the server.
func (c *cli) watch(ctx context.Context, w *watch.Watcher, l loader, srv *server.Server, log *slog.Logger) (stop func()) {
	if w == nil {
		return func() {}
	}
	w.Reload = func(ctx context.Context) (*exposure.ToolSet, error) { return l.reload(ctx, srv.Tools()) }
	w.Publish = func(set *exposure.ToolSet) {
		listing.WarnEmptyApps(log, set, l.apps)
		srv.Publish(set)
		srv.PrepareSearch()
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	log.Info("watching the apps for changes; SIGHUP reloads at once", "apps", l.paths())
	return func() {
		cancel()
		<-done
	}
}
