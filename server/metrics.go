package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/telemetry"
)

// TelemetryConfig is what StartTelemetry needs beyond the OTEL_*
// environment.
type TelemetryConfig struct {
	// Metrics is the --metrics address; "" serves no /metrics.
	Metrics string
	// Token is the server's static bearer token, if any; a non-loopback
	// Metrics needs it (or InsecureNoAuth), as /mcp does.
	Token          string
	InsecureNoAuth bool
	// CommandLine puts the redacted command line on the run span.
	CommandLine bool
	// Version is the service version the telemetry reports.
	Version string
}

// StartTelemetry sets up the telemetry c and the OTEL_* environment ask
// for (nil when none) and serves --metrics. stop serves no more metrics
// and flushes what the exporters hold.
func StartTelemetry(ctx context.Context, c TelemetryConfig, log *slog.Logger) (_ *telemetry.Telemetry, stop func(), err error) {
	tel, err := telemetry.New(ctx, telemetry.Options{
		Prometheus:     c.Metrics != "",
		ServiceVersion: c.Version,
		CommandLine:    c.CommandLine,
		Logger:         log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: %w (docs/telemetry.md lists the settings)", err)
	}
	flush := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(ctx); err != nil {
			log.Warn("telemetry: flushing the exporters failed", "err", err)
		}
	}
	if c.Metrics == "" {
		return tel, flush, nil
	}
	closeMetrics, err := serveMetrics(c, tel.Metrics(), log)
	if err != nil {
		flush()
		return nil, nil, err
	}
	return tel, func() { closeMetrics(); flush() }, nil
}

// serveMetrics serves h at GET /metrics on c.Metrics. A port already
// taken is a warning, not a failed start: several stdio servers started
// by several clients share one configuration. A non-loopback address
// follows the rule of /mcp: it needs the server's token, which every
// scrape then presents, unless InsecureNoAuth.
func serveMetrics(c TelemetryConfig, h http.Handler, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", c.Metrics)
	if errors.Is(err, syscall.EADDRINUSE) {
		log.Warn("metrics not served: the address is taken, by another fisk-mcp perhaps; give each server its own --metrics address", "metrics", c.Metrics)
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %w", c.Metrics, err)
	}
	if !httpguard.IsLoopback(ln.Addr()) {
		token := c.Token
		if token == "" {
			token, _ = httpguard.TokenFromEnv()
		}
		switch {
		case token != "":
			guard, err := httpguard.New(httpguard.Config{Addr: c.Metrics, Auth: httpguard.NewBearer(token, log)})
			if err != nil {
				ln.Close()
				return nil, err
			}
			h = guard.Authenticate(h)
		case !c.InsecureNoAuth:
			ln.Close()
			return nil, fmt.Errorf("--metrics %s is not a loopback address and no token is set: set one (--token-file FILE or %s=TOKEN; scrapes then send it as a bearer token), or serve metrics on 127.0.0.1", c.Metrics, execrunner.TokenEnvVar)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() { srv.Close() }, nil
}
