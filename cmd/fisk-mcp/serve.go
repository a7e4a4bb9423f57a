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
	if err := hideMemory(); err != nil {
		log.Warn("the server's memory stays readable by other processes of this user", "err", err)
	}
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
	stdio := sp.HTTP.Addr == ""
	// The apps are loaded while the rest is opened. When the rest fails,
	// the load is abandoned, and its error is reported instead only if it
	// has already failed.
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	var early *earlyList
	if stdio {
		early = newEarlyList(loadCtx, p, earlyListDir(), log)
		sp.Server.AwaitingSet = early.releaseForCall
	}
	loaded := make(chan loadResult, 1)
	go func() {
		var document func(int, []byte)
		if early != nil {
			document = early.document
		}
		set, err := l.load(loadCtx, document)
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

	replay, closeStore, err := natsstore.OpenSetting(ctx, sp.replayStore, sp.Replay, log)
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
	var srv *server.Server
	if !stdio {
		r := <-loaded
		if r.err != nil {
			return r.err
		}
		if srv, err = newServer(p, l, r.set, log); err != nil {
			return err
		}
		// A shared server's first list is one client's among many: its
		// start-up ends when it begins to serve.
		restoreGC()
		go srv.Prepare()
		stopWatch := func() {}
		defer func() { stopWatch() }()
		return serveHTTP(ctx, p, srv, func(addr string) {
			announce(log, p, l, r.set, addr)
			stopWatch = c.watch(ctx, w, l, srv, log)
		})
	}

	// The start-up ends a little after the first list is written, or
	// when a client that does not list has had its time (see
	// startupSettle); then, with the CPUs idle, a start that answered
	// with a kept list builds its set (see earlyList.document), the
	// binaries are hashed before the first call needs their bindings, a
	// deferred set's search index is built before the model's first
	// search, and the list is kept for the next start. A timer that fires
	// after serving has ended does nothing: restoreGC has run by then.
	sp.Server.Listed = func() {
		time.AfterFunc(startupSettle, func() {
			early.release("the start-up is over")
			restoreGC()
			srv.Prepare()
			keepEarly(early, srv, log)
		})
	}
	defer time.AfterFunc(startupGCWindow, restoreGC).Stop()

	var kept *server.Early
	var r loadResult
	got := false
	if early != nil {
		select {
		case kept = <-early.decided:
		case r = <-loaded:
			got = true
		}
	}
	if kept != nil && !got {
		if srv, err = newEarlyServer(p, l, kept, log); err == nil {
			return c.serveEarly(ctx, p, l, srv, w, early, loaded, cancelLoad, log)
		}
		log.Debug("the list kept by an earlier start cannot be served; building it", "err", err)
		early.save.Store(true) // in its place
		early.release("the kept list cannot be served")
	}
	if !got {
		r = <-loaded
	}
	if r.err != nil {
		return r.err
	}
	if srv, err = newServer(p, l, r.set, log); err != nil {
		return err
	}
	announce(log, p, l, r.set, "")
	defer c.watch(ctx, w, l, srv, log)()
	defer keepEarly(early, srv, log)
	return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
}

// keepEarly keeps srv's list for the next start, when it is to be kept
// and was not yet (see earlyList.keep).
func keepEarly(early *earlyList, srv *server.Server, log *slog.Logger) {
	if err := early.keep(srv); err != nil {
		log.Debug("the first tools/list could not be kept for the next start", "err", err)
	}
}

// loadResult is what the first load gave.
type loadResult struct {
	set *exposure.ToolSet
	err error
}

// serveEarly serves stdio with srv, which NewEarly made, while the first
// load finishes: its set is then put in force (Complete), or, if it
// failed, serving ends with its error and the calls waiting for the set
// are answered that nothing ran. A client that leaves first ends the load.
func (c *cli) serveEarly(ctx context.Context, p *plan, l loader, srv *server.Server, w *watch.Watcher, early *earlyList,
	loaded <-chan loadResult, cancelLoad context.CancelFunc, log *slog.Logger) error {
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(serveCtx, os.Stdin, os.Stdout) }()
	var r loadResult
	select {
	case r = <-loaded:
	case err := <-served:
		cancelLoad()
		srv.Abandon(errors.New("the client left before the tools were loaded"))
		<-loaded
		return err
	}
	if r.err != nil {
		srv.Abandon(r.err)
		stopServing()
		<-served
		return r.err
	}
	if !srv.Complete(r.set) {
		early.save.Store(true) // kept again, as the set lists it
		keepEarly(early, srv, log)
	}
	srv.Prepare()
	announce(log, p, l, r.set, "")
	stopWatch := c.watch(ctx, w, l, srv, log)
	err := <-served
	stopWatch()
	keepEarly(early, srv, log)
	return err
}

// newServer builds the server and its approval gate from the plan.
func newServer(p *plan, l loader, set *exposure.ToolSet, log *slog.Logger) (*server.Server, error) {
	cfg, err := serverConfig(p, l, log)
	if err != nil {
		return nil, err
	}
	return server.New(cfg, exposure.NewCurrent(set))
}

// newEarlyServer builds the server that answers with early until the
// first load completes it (see server.NewEarly).
func newEarlyServer(p *plan, l loader, early *server.Early, log *slog.Logger) (*server.Server, error) {
	cfg, err := serverConfig(p, l, log)
	if err != nil {
		return nil, err
	}
	return server.NewEarly(cfg, early)
}

// serverConfig is the server's configuration, its approval gate
// included, from the plan.
func serverConfig(p *plan, l loader, log *slog.Logger) (server.Config, error) {
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
		return server.Config{}, err
	}
	cfg.Version, cfg.Env, cfg.Redactor, cfg.Gate, cfg.Logger = buildVersion(), l.env, execrunner.NewRedactor(secrets...), gate, log
	return cfg, nil
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
		srv.Prepare()
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
