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
// refuses every use with [natsconn.ErrUnavailable], so the gate fails
// closed while ungated tools keep working; the connection comes back by
// itself. Open fails only on what will not fix itself: a bad URL,
// unreadable or wrong credentials, a server without JetStream, missing
// permissions, a bucket that cannot keep every record as long as its
// state lives (see checkBucket).
//
// The bucket is examined again while the store runs (at least every
// natsconn.DefaultRecheck, and after any failed use), since an operator
// can edit or delete a live bucket: one edited so that it could forget a
// record early refuses every use, naming what is wrong; one deleted is
// created again, and every state issued before the new bucket was created
// is refused with [elicit.ErrIssuedBeforeStart] (the person is asked
// again), since the record of its use went with the old bucket.
//
// The connection and its handling are package natsconn's, shared with
// fisk-mcp's other store on NATS (the pending approvals of the shared
// approval page, package browser/natspending), so both are configured,
// reached and reported the same way.
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
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// DefaultBucket is the bucket's name when Config.Bucket is "".
const DefaultBucket = "fisk_mcp_approvals"

// DefaultSkew is how far apart the replicas' clocks may be: a used state
// is kept this long past its expiry, since a replica whose clock is behind
// still accepts it until then.
const DefaultSkew = time.Minute

// Config says where the bucket is and how to log in: the connection's
// Config, and what only the replay store has.
type Config struct {
	natsconn.Config
	Bucket string        // "" means DefaultBucket
	Skew   time.Duration // 0 means DefaultSkew
}

// Store is a ReplayStore on a JetStream bucket. It is safe for concurrent
// use.
type Store struct {
	conn *natsconn.Conn
	skew time.Duration
	// maxAge is the bucket's age limit at its last check (0: none): no
	// record may need to live longer.
	maxAge atomic.Int64
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
	s.conn, err = natsconn.Dial(ctx, c.Config, "replay store", natsconn.Bucket{
		Config: jetstream.KeyValueConfig{
			Bucket:         bucket,
			Description:    "fisk-mcp: approval request states already answered",
			History:        1,
			Storage:        jetstream.FileStorage,
			LimitMarkerTTL: s.skew,
		},
		Check: func(st jetstream.KeyValueStatus) error { return s.checkBucket(bucket, st) },
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// checkBucket refuses a bucket that could forget a used state before the
// state expires, which would let it be answered again: one without
// per-key TTLs (each record's lifetime), kept in memory (lost with the
// server), bounded in messages or bytes with the oldest discarded to make
// room, or with an age limit shorter than the skew plus a minute (a use
// checks its own record's lifetime against the limit too).
func (s *Store) checkBucket(bucket string, st jetstream.KeyValueStatus) error {
	fix := fmt.Sprintf("; delete it (nats kv del %s) so that fisk-mcp creates it as it needs, or name another with --replay-store-bucket", bucket)
	if st.LimitMarkerTTL() <= 0 {
		return fmt.Errorf("replay store bucket %s does not allow per-key TTLs%s", bucket, fix)
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return fmt.Errorf("replay store bucket %s: its configuration cannot be read%s", bucket, fix)
	}
	c := bs.StreamInfo().Config
	switch {
	case c.Storage == jetstream.MemoryStorage:
		return fmt.Errorf("replay store bucket %s is kept in memory, so a NATS server restart forgets which approvals were used%s", bucket, fix)
	case c.Discard == jetstream.DiscardOld && (c.MaxMsgs > 0 || c.MaxBytes > 0):
		return fmt.Errorf("replay store bucket %s holds at most %d records or %d bytes and discards the oldest to make room, which would let a used approval be answered again%s", bucket, c.MaxMsgs, c.MaxBytes, fix)
	case c.MaxAge > 0 && c.MaxAge < s.skew+time.Minute:
		return fmt.Errorf("replay store bucket %s forgets every record after %s, before the approvals it records expire%s", bucket, c.MaxAge, fix)
	}
	s.maxAge.Store(int64(c.MaxAge))
	return nil
}

// Where names the store for logs: its URL, without credentials, and bucket.
func (s *Store) Where() string { return s.conn.Where() }

// Close closes the connection.
func (s *Store) Close() { s.conn.Close() }

// Use implements elicit.ReplayStore.
func (s *Store) Use(ctx context.Context, u elicit.UsedState) (bool, error) {
	for again := true; ; again = false {
		kv, created, err := s.conn.KeyValue(ctx)
		if err != nil {
			return false, err
		}
		if u.Issued.Before(created) {
			return false, fmt.Errorf("%w (the replay store's bucket was created at %s, after the approval was asked for)", elicit.ErrIssuedBeforeStart, created.UTC().Format(time.RFC3339))
		}
		// A replica whose clock is behind this one's by up to the skew
		// still accepts the state until its own clock reaches the expiry.
		ttl := max(u.Expires.Sub(u.Now)+s.skew, time.Second)
		if limit := time.Duration(s.maxAge.Load()); limit > 0 && limit < ttl {
			return false, fmt.Errorf("the replay store's bucket forgets every record after %s, and this approval must be remembered for %s; raise the bucket's max age or remove it", limit, ttl)
		}
		octx, cancel := context.WithTimeout(ctx, s.conn.OpTimeout())
		_, err = kv.Create(octx, u.Nonce, []byte(u.Expires.UTC().Format(time.RFC3339Nano)), jetstream.KeyTTL(ttl))
		cancel()
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, jetstream.ErrKeyExists):
			return false, nil
		}
		err = s.conn.Failed(err)
		if !again || !s.conn.Connected() {
			return false, err
		}
		// The bucket may be gone, or changed: look at it again, once.
	}
}
