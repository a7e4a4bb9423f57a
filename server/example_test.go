package server_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/watch"
)

// Serving one fisk binary over stdio, reloading it when it changes.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)) // never stdout: it is the protocol

	apps := []exposure.App{{Path: "/usr/local/bin/nats"}}
	env := execrunner.NewEnvironment(os.Environ(), execrunner.EnvRule{})
	load := func(ctx context.Context, previous *exposure.ToolSet) (*exposure.ToolSet, error) {
		return exposure.Load(ctx, apps, nil, exposure.Policy{}, exposure.LoadOptions{
			Introspect: introspect.Options{Env: env.For(nil)},
			Previous:   previous, // nil at startup: a collision fails the load
		})
	}
	w := &watch.Watcher{Paths: []string{apps[0].Path}, Logger: log}
	// Taken before the first load, so a binary replaced while it runs is
	// reloaded rather than taken for the one that was introspected.
	w.Baseline = w.Snapshot()
	set, err := load(ctx, nil)
	if err != nil {
		log.Error("loading tools", "err", err)
		return
	}
	gate, err := elicit.NewGate(elicit.Options{ServerName: "nats"})
	if err != nil {
		log.Error("approval gate", "err", err)
		return
	}
	srv, err := server.New(server.Config{
		Name:     "nats",
		Env:      env,
		Redactor: execrunner.NewRedactor(env.Secrets()...),
		Gate:     gate,
		Logger:   log,
	}, exposure.NewCurrent(set))
	if err != nil {
		log.Error("server", "err", err)
		return
	}
	// A reload is built against the set being served: its tools keep their
	// names, and a newcomer claiming one is skipped, not fatal.
	w.Reload = func(ctx context.Context) (*exposure.ToolSet, error) { return load(ctx, srv.Tools()) }
	w.Publish = func(s *exposure.ToolSet) { srv.Publish(s) }
	go w.Run(ctx)
	if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		log.Error("serving", "err", err)
	}
}

// Serving streamable HTTP to a team: a token is required off loopback.
func ExampleServer_ListenHTTP() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	set, err := exposure.Load(ctx, []exposure.App{{Path: "/usr/local/bin/nats"}}, nil, exposure.Policy{}, exposure.LoadOptions{})
	if err != nil {
		return
	}
	srv, err := server.New(server.Config{}, exposure.NewCurrent(set))
	if err != nil {
		return
	}
	cfg := server.HTTPConfig{Addr: "0.0.0.0:8080", Token: os.Getenv(execrunner.TokenEnvVar)}
	hs, err := srv.ListenHTTP(cfg) // refuses 0.0.0.0 without a token
	if err != nil {
		return
	}
	_ = hs.Serve(ctx) // on SIGINT/SIGTERM: drain, cancel the rest, return
}
