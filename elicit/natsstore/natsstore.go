// Package natsstore keeps fisk-mcp's record of used approval states in a
// NATS JetStream key-value bucket, so that replicas sharing a state key
// also share single use: an approval answered on one replica is refused by
// every other one, and by the same one after a restart.
//
// Each answered state is one key, its nonce, written with Create (create if
// absent): of two replicas racing on one state exactly one is told it is
// fresh. The key lives for the state's remaining lifetime plus the allowed
// clock skew between replicas (a per-key TTL), in a file-backed bucket that
// Open creates when it is absent.
//
// When the NATS server cannot be reached, at start or later, the store
// refuses every use with [ErrUnavailable], so the gate fails closed while
// ungated tools keep working; the connection comes back by itself. Open
// fails only on what will not fix itself: a bad URL, unreadable or wrong
// credentials, a server without JetStream, missing permissions, a bucket
// that cannot hold per-key TTLs.
//
// The connection and its handling, [Conn], serve fisk-mcp's other store
// on NATS as well (the pending approvals of the shared approval page,
// package browser/natspending), so both are configured, reached and
// reported the same way.
//
// CheckSetting and OpenSetting take the store from fisk-mcp's
// --replay-store setting: memory (the gate's per-process store) or NATS.
//
// It deliberately does not read the NATS_* environment variables or the
// NATS CLI's selected context: the store's credentials come only from the
// files and names in Config, which commands run by the server never see.
// It does not bound what a client can make the bucket hold: the account's
// JetStream limits do.
package natsstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// DefaultBucket is the bucket's name when Config.Bucket is "".
const DefaultBucket = "fisk_mcp_approvals"

// DefaultSkew is how far apart the replicas' clocks may be: a used state
// is kept this long past its expiry, since a replica whose clock is behind
// still accepts it until then.
const DefaultSkew = time.Minute

// DefaultOpTimeout bounds one request to the server.
const DefaultOpTimeout = 5 * time.Second

// ErrUnavailable is matched (errors.Is) by the error of a use a store on
// NATS could not record: the server cannot be reached or did not answer.
// The error itself names the store and its server.
var ErrUnavailable = errors.New("the store cannot be reached")

// Config says where the bucket is and how to log in. Only these fields
// configure the connection.
type Config struct {
	URL    string // nats://host:port, comma-separated for several servers
	Bucket string // "" means DefaultBucket

	CredsFile    string // a user JWT and nkey seed, as nsc writes
	NKeySeedFile string // an nkey seed
	User         string // with PasswordFile
	PasswordFile string
	TLSCA        string // CA bundle to verify the server with
	TLSCert      string // client certificate, with TLSKey
	TLSKey       string
	// Context names a NATS CLI context (or is the path of its JSON file)
	// supplying what the fields above leave empty.
	Context string

	password string // from Context

	Skew      time.Duration // 0 means DefaultSkew
	OpTimeout time.Duration // 0 means DefaultOpTimeout
	Logger    *slog.Logger  // nil discards
}

// Store is a ReplayStore on a JetStream bucket. It is safe for concurrent
// use.
type Store struct {
	conn *Conn
	skew time.Duration
}

var _ elicit.ReplayStore = (*Store)(nil)

// Open connects and ensures the bucket. An unreachable server is not an
// error: the store refuses uses until it connects.
func Open(ctx context.Context, c Config) (*Store, error) {
	bucket := c.Bucket
	if bucket == "" {
		bucket = DefaultBucket
	}
	s := &Store{skew: c.Skew}
	if s.skew <= 0 {
		s.skew = DefaultSkew
	}
	// Only a bucket that records per-key TTLs will do: without them a used
	// state would be kept forever or, under a bucket-wide age, possibly
	// too briefly.
	var err error
	s.conn, err = Dial(ctx, c, "replay store", Bucket{
		Config: jetstream.KeyValueConfig{
			Bucket:         bucket,
			Description:    "fisk-mcp: approval request states already answered",
			History:        1,
			Storage:        jetstream.FileStorage,
			LimitMarkerTTL: s.skew,
		},
		Check: func(st jetstream.KeyValueStatus) error {
			if st.LimitMarkerTTL() <= 0 {
				return fmt.Errorf("replay store bucket %s exists but does not allow per-key TTLs; delete it (nats kv del %s) so that fisk-mcp creates it, or name another with --replay-store-bucket", bucket, bucket)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Where names the store for logs: its URL, without credentials, and bucket.
func (s *Store) Where() string { return s.conn.Where() }

// Close closes the connection.
func (s *Store) Close() { s.conn.Close() }

// Use implements elicit.ReplayStore.
func (s *Store) Use(ctx context.Context, u elicit.UsedState) (bool, error) {
	kv, err := s.conn.KeyValue(ctx)
	if err != nil {
		return false, err
	}
	// A replica whose clock is behind this one's by up to the skew still
	// accepts the state until its own clock reaches the expiry.
	ttl := max(u.Expires.Sub(u.Now)+s.skew, time.Second)
	ctx, cancel := context.WithTimeout(ctx, s.conn.OpTimeout())
	defer cancel()
	_, err = kv.Create(ctx, u.Nonce, []byte(u.Expires.UTC().Format(time.RFC3339Nano)), jetstream.KeyTTL(ttl))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	}
	return false, s.conn.Unavailable(err)
}

// CheckURL validates a comma-separated server list and returns it without
// user information, for logs and messages.
func CheckURL(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("replay store URL is empty: give nats://host:port")
	}
	var shown []string
	for _, part := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			return "", fmt.Errorf("replay store URL %q: %w; give nats://host:port", part, err)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return "", fmt.Errorf("replay store URL %q: the scheme must be nats, tls, ws or wss, as in nats://host:4222", u.Redacted())
		}
		if u.Hostname() == "" {
			return "", fmt.Errorf("replay store URL %q names no host: give nats://host:port", u.Redacted())
		}
		if u.User != nil {
			return "", fmt.Errorf("replay store URL %q carries credentials: give them with --replay-store-user and --replay-store-password-file (or a creds file) instead", u.Redacted())
		}
		shown = append(shown, u.String())
	}
	return strings.Join(shown, ","), nil
}

// jetstreamName reports whether name is a valid bucket name.
func jetstreamName(name string) bool {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return name != ""
}
