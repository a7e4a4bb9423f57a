package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
)

// replayMemory is the --replay-store value of the per-process store, and
// replayFromContext the one that takes the NATS URL from
// --replay-store-context.
const (
	replayMemory      = "memory"
	replayFromContext = "nats"
)

// resolveReplayStore checks the replay store's settings; the connection is
// made when serving starts (openReplayStore).
func (p *plan) resolveReplayStore() []error {
	sp := p.Serving
	var errs []error
	switch v := sp.replayStore; {
	case v == replayMemory:
		c := sp.Replay
		for name, v := range map[string]string{"replay-store-creds": c.CredsFile, "replay-store-nkey": c.NKeySeedFile,
			"replay-store-user": c.User, "replay-store-password-file": c.PasswordFile, "replay-store-tls-ca": c.TLSCA,
			"replay-store-tls-cert": c.TLSCert, "replay-store-tls-key": c.TLSKey, "replay-store-context": c.Context} {
			if v != "" {
				errs = append(errs, fmt.Errorf("%s only applies to a NATS replay store: add --replay-store nats://HOST:PORT or remove it", p.set.Named(name)))
			}
		}
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	case v == replayFromContext:
		if sp.Replay.Context == "" {
			errs = append(errs, fmt.Errorf("%s nats takes the URL from a NATS context: add --replay-store-context NAME, or give nats://HOST:PORT", p.set.Named("replay-store")))
		}
	case strings.Contains(v, "://"):
		if _, err := natsstore.CheckURL(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.set.Named("replay-store"), err))
		}
		sp.Replay.URL = v
	default:
		errs = append(errs, fmt.Errorf("%s %q: give memory, or the URL of a NATS server with JetStream such as nats://127.0.0.1:4222", p.set.Named("replay-store"), v))
	}
	return errs
}

// openReplayStore opens the NATS replay store the plan names and installs
// it in the gate's options; with the memory store it does nothing but say
// so. close releases what it opened.
func openReplayStore(ctx context.Context, sp *servingPlan, log *slog.Logger) (closeStore func(), err error) {
	if sp.replayStore == replayMemory {
		log.Info("approvals are single-use within this process (replay store: memory)")
		return func() {}, nil
	}
	cfg := sp.Replay
	cfg.Logger = log
	s, err := natsstore.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	log.Info("approvals are single-use across every server sharing the replay store", "replay_store", s.Where())
	sp.Approval.Replay = s
	return s.Close, nil
}
