// Package natspending keeps the pending approvals of the shared approval
// page in a NATS JetStream key-value bucket, so that with replicas any
// replica's page lists and decides them, and the replica whose call waits
// learns the decision whichever replica took it. It implements
// [browser.Store] and passes browser/storetest's Run and RunShared.
//
// One key per approval, its ID (the gate's nonce: letters, digits, -, _
// and =); the value is JSON, {"pending": the Pending, "outcome": "" until
// decided}. Put is Create, so an ID is taken once. Decide is a
// compare-and-set on the entry's revision: of decisions racing on one
// replica or several exactly one is taken, the others are told ok false.
// Wait learns the decision from the one watch over the bucket that each
// replica keeps while anything waits on it, so the server pushes the
// decision to the waiting replica; nothing polls, and a replica holds one
// consumer however many approvals wait on it. The bucket keeps an entry at most MaxAge after
// its last change, so the entries nobody deletes (a replica that died while
// waiting) vanish by themselves.
//
// The connection is natsconn's ([natsconn.Dial]): the same Config and
// credentials as the replay store, reconnection that never gives up, and
// while the server cannot be reached every use, a Wait in progress too,
// fails with an error matching [natsconn.ErrUnavailable] rather than
// hang; the asker then refuses the call.
//
// It deliberately decides nothing by itself: timing out an approval past
// its deadline is the asker's (List only hides it). It does not bound how
// many approvals the bucket holds: each replica's asker bounds those
// waiting through it (browser.SharedOptions), the account's JetStream
// limits the rest.
package natspending

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// DefaultBucket is the bucket's name when Config.Bucket is "". It is not
// the replay store's bucket: the two hold different things, and one
// server may hold both.
const DefaultBucket = "fisk_mcp_pending_approvals"

// DefaultMaxAge is how long the bucket keeps an entry after its last
// change when Config.MaxAge is 0: far longer than an approval may wait.
const DefaultMaxAge = time.Hour

// Config says where the bucket is and how to log in.
type Config struct {
	// NATS is the server and its credentials, in fisk-mcp the replay
	// store's.
	NATS   natsconn.Config
	Bucket string // "" means DefaultBucket
	// MaxAge is how long the bucket keeps an entry after its last change,
	// set when Open creates the bucket. 0 means DefaultMaxAge, or twice
	// LongestWait when that is longer.
	MaxAge time.Duration
	// LongestWait is the longest an approval waits for a person. Open
	// refuses a bucket that already exists and keeps its entries for less:
	// an approval would vanish from every page before its time was up.
	LongestWait time.Duration
}

// Store is a browser.Store on a JetStream bucket. It is safe for
// concurrent use.
type Store struct {
	conn *natsconn.Conn
	hub  hub
}

var _ browser.ApproverStore = (*Store)(nil)

// record is the value of an approval's key.
type record struct {
	Pending browser.Pending `json:"pending"`
	Outcome browser.Outcome `json:"outcome"`
	// By is who decided, when the page named them.
	By string `json:"by,omitempty"`
}

// Open connects and ensures the bucket. An unreachable server is not an
// error: the store fails every use until it connects.
func Open(ctx context.Context, c Config) (*Store, error) {
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.MaxAge <= 0 {
		c.MaxAge = max(DefaultMaxAge, 2*c.LongestWait)
	}
	conn, err := natsconn.Dial(ctx, c.NATS, "approval store", natsconn.Bucket{
		Config: jetstream.KeyValueConfig{
			Bucket:      c.Bucket,
			Description: "fisk-mcp: approvals waiting for a person on the approval page",
			History:     1,
			TTL:         c.MaxAge,
			Storage:     jetstream.FileStorage,
		},
		// The age is set only when the bucket is created: one made before,
		// by a server that waited less, may keep entries too briefly.
		Check: func(st jetstream.KeyValueStatus) error {
			if age := st.TTL(); age > 0 && age < c.LongestWait {
				return fmt.Errorf("the pending approvals bucket %s keeps an entry %s, less than the %s an approval may wait; delete it (nats kv del %s) so that fisk-mcp creates it again, or wait less for a person (--elicit-timeout)", c.Bucket, age, c.LongestWait, c.Bucket)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return &Store{conn: conn}, nil
}

// Where names the store for logs: its URL, without credentials, and bucket.
func (s *Store) Where() string { return s.conn.Where() }

// Close closes the connection; a Wait in progress returns an error.
func (s *Store) Close() { s.conn.Close() }

// failed is the error of a use that err ended: ctx's own when the caller
// gave up, else the store's (see natsconn.Conn.Failed).
func (s *Store) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.conn.Failed(err)
}

// op bounds one request to the server.
func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.conn.OpTimeout())
}

// validID reports whether id can be a key: the gate's nonces (hex or
// base64url) can. Dots and slashes, which the bucket would also take,
// are refused: they make a key a path of subject tokens.
func validID(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	return strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=") == ""
}

func unknown(id string) error {
	return fmt.Errorf("approval %.64q: %w (never put, deleted, or older than the bucket keeps entries)", id, browser.ErrUnknown)
}

// Put implements browser.Store. A zero Created is set to now.
func (s *Store) Put(ctx context.Context, p browser.Pending) error {
	if !validID(p.ID) {
		return fmt.Errorf("approval ID %.64q: use 1 to 256 letters, digits, -, _ and =, as the gate's nonces do", p.ID)
	}
	if p.Created.IsZero() {
		p.Created = time.Now()
	}
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return err
	}
	value, err := json.Marshal(record{Pending: p})
	if err != nil {
		return err
	}
	octx, cancel := s.op(ctx)
	defer cancel()
	_, err = kv.Create(octx, p.ID, value)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrKeyExists):
		return fmt.Errorf("approval %s is already in the approval store: every approval needs an ID of its own", p.ID)
	}
	return s.failed(ctx, err)
}

// List implements browser.Store. It reads every entry in one pass over
// the bucket; entries that do not decode (not written by this package)
// are skipped.
func (s *Store) List(ctx context.Context) ([]browser.Pending, error) {
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return nil, err
	}
	lost := s.conn.Lost()
	octx, cancel := s.op(ctx)
	defer cancel()
	w, err := kv.WatchAll(octx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, s.failed(ctx, err)
	}
	defer w.Stop()
	now := time.Now()
	var list []browser.Pending
	for {
		select {
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				return nil, s.failed(ctx, nats.ErrConnectionClosed)
			case e == nil: // every entry there was has been delivered
				slices.SortFunc(list, func(a, b browser.Pending) int {
					return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
				})
				return list, nil
			}
			var r record
			if json.Unmarshal(e.Value(), &r) == nil && r.Outcome == "" && (r.Pending.Deadline.IsZero() || now.Before(r.Pending.Deadline)) {
				list = append(list, r.Pending)
			}
		case <-lost:
			return nil, s.conn.Unavailable(nats.ErrDisconnected)
		case <-octx.Done():
			return nil, s.failed(ctx, octx.Err())
		}
	}
}

// Delete implements browser.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if !validID(id) {
		return nil // never a key, so nothing to forget
	}
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return err
	}
	octx, cancel := s.op(ctx)
	defer cancel()
	if err := kv.Delete(octx, id); err != nil {
		return s.failed(ctx, err)
	}
	return nil
}
