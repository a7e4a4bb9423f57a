package natsstore

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// The values of fisk-mcp's --replay-store setting that are not a URL:
// Memory is the per-process store (elicit's own), FromContext takes the
// URL from Config.Context.
const (
	Memory      = "memory"
	FromContext = "nats"
)

// CheckSetting checks store, the value of the replay-store setting,
// against c, which the replay-store-* settings fill: their credentials go
// only with a NATS store, FromContext needs a context, and a URL must be
// one natsconn.CheckURL accepts (it is put in c.URL). named names a setting by its
// flag name (replay-store, replay-store-creds, ...) as a message should.
// Nothing is connected: OpenSetting does that when serving starts.
func CheckSetting(store string, c *Config, named func(string) string) []error {
	var errs []error
	switch v := store; {
	case v == Memory:
		for name, v := range map[string]string{"replay-store-creds": c.CredsFile, "replay-store-nkey": c.NKeySeedFile,
			"replay-store-user": c.User, "replay-store-password-file": c.PasswordFile, "replay-store-tls-ca": c.TLSCA,
			"replay-store-tls-cert": c.TLSCert, "replay-store-tls-key": c.TLSKey, "replay-store-context": c.Context} {
			if v != "" {
				errs = append(errs, fmt.Errorf("%s only applies to a NATS replay store: add --replay-store nats://HOST:PORT or remove it", named(name)))
			}
		}
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	case v == FromContext:
		if c.Context == "" {
			errs = append(errs, fmt.Errorf("%s nats takes the URL from a NATS context: add --replay-store-context NAME, or give nats://HOST:PORT", named("replay-store")))
		}
	case strings.Contains(v, "://"):
		if _, err := natsconn.CheckURL(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", named("replay-store"), err))
		}
		c.URL = v
	default:
		errs = append(errs, fmt.Errorf("%s %q: give memory, or the URL of a NATS server with JetStream such as nats://127.0.0.1:4222", named("replay-store"), v))
	}
	return errs
}

// OpenSetting opens the store that store, a replay-store value CheckSetting
// accepted, names, and logs which it is: nil for Memory (the gate then
// keeps its own), else the NATS store of c. closeStore releases what it
// opened.
func OpenSetting(ctx context.Context, store string, c Config, log *slog.Logger) (replay elicit.ReplayStore, closeStore func(), err error) {
	if store == Memory {
		log.Info("approvals are single-use within this process (replay store: memory)")
		return nil, func() {}, nil
	}
	c.Logger = log
	s, err := Open(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	log.Info("approvals are single-use across every server sharing the replay store", "replay_store", s.Where())
	return s, s.Close, nil
}
