package natsconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Conn is a connection to the NATS server a Config names, with what every
// fisk-mcp store on JetStream shares: credentials only from the Config, a
// server that cannot be reached at start is not an error, reconnection
// never gives up, a loss is announced to the uses waiting on the server,
// and bucket errors say what to do. Package elicit/natsstore keeps the
// replay record on one; package browser/natspending keeps pending
// approvals on another.
type Conn struct {
	role      string // what the connection serves, as logs and errors name it
	logKey    string // the role as a log attribute: replay_store
	bucket    Bucket
	where     string // the URL without credentials, and the bucket
	opTimeout time.Duration
	log       *slog.Logger
	nc        *nats.Conn
	js        jetstream.JetStream

	// denied is the last permissions violation the server reported: it
	// comes asynchronously, while the request it refused times out.
	denied atomic.Pointer[error]

	mu   sync.Mutex
	lost chan struct{} // closed while the connection is down
	down bool

	kvMu    sync.Mutex
	kv      jetstream.KeyValue // nil until the bucket is ensured, and after Forget
	created time.Time          // when the server created the bucket kv is
	checked time.Time          // when the bucket last passed Check
	// recheck is how long a checked bucket is used before it is looked at
	// again: an operator's edit of a live bucket is not a new connection.
	recheck time.Duration
}

// DefaultRecheck is how long a use trusts the bucket's last check before
// it examines the bucket again (see Conn.KeyValue).
const DefaultRecheck = 30 * time.Second

// Bucket is the bucket of the store a Conn serves.
type Bucket struct {
	// Config creates the bucket when it is absent; its Bucket is the name.
	Config jetstream.KeyValueConfig
	// Check, when set, refuses an existing bucket that the store cannot
	// use, with an error that says what to do.
	Check func(jetstream.KeyValueStatus) error
}

// Dial connects to the server of c for the store that logs and errors
// call role ("replay store") and that keeps its keys in b, and ensures
// the bucket. An unreachable server is not an error: uses fail with
// ErrUnavailable until it connects. Dial fails on what will not fix
// itself: a bad URL, unreadable or wrong credentials, a server without
// JetStream, missing permissions, a bucket that Check refuses.
func Dial(ctx context.Context, c Config, role string, b Bucket) (*Conn, error) {
	if err := c.withContext(); err != nil {
		return nil, err
	}
	where, err := CheckURL(c.URL)
	if err != nil {
		return nil, err
	}
	if !jetstreamName(b.Config.Bucket) {
		return nil, fmt.Errorf("%s bucket %q: use letters, digits, - and _ only", role, b.Config.Bucket)
	}
	cn := &Conn{role: role, logKey: strings.ReplaceAll(role, " ", "_"), bucket: b,
		where: where + " bucket " + b.Config.Bucket, opTimeout: c.OpTimeout, log: c.Logger, lost: make(chan struct{}), recheck: DefaultRecheck}
	if cn.opTimeout <= 0 {
		cn.opTimeout = DefaultOpTimeout
	}
	if c.Recheck > 0 {
		cn.recheck = c.Recheck
	}
	if cn.log == nil {
		cn.log = slog.New(slog.DiscardHandler)
	}
	opts, err := c.options(cn)
	if err != nil {
		return nil, err
	}
	cn.nc, err = nats.Connect(c.URL, opts...)
	if errors.Is(err, nats.ErrNoServers) || isNetwork(err) {
		cn.log.Warn("the "+role+" cannot be reached yet; approvals are refused until it is, ungated tools are served", cn.logKey, cn.where, "error", err)
		cn.setDown(true)
		cn.nc, err = nats.Connect(c.URL, append(opts, nats.RetryOnFailedConnect(true))...)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to the %s at %s: %w; check the URL and the store's credentials", role, where, err)
	}
	if cn.js, err = jetstream.New(cn.nc); err != nil {
		cn.nc.Close()
		return nil, fmt.Errorf("%s at %s: %w", role, where, err)
	}
	if cn.Connected() {
		_, _, err := cn.KeyValue(ctx)
		switch {
		case errors.Is(err, ErrUnavailable):
			cn.log.Warn("the "+role+" does not answer yet; approvals are refused until it does, ungated tools are served", cn.logKey, cn.where, "error", err)
		case err != nil:
			cn.nc.Close()
			return nil, err
		}
	}
	return cn, nil
}

// Where names the store for logs: its URL, without credentials, and bucket.
func (c *Conn) Where() string { return c.where }

// Close closes the connection.
func (c *Conn) Close() { c.nc.Close() }

// Connected reports whether the server is reachable now.
func (c *Conn) Connected() bool { return c.nc.IsConnected() }

// OpTimeout bounds one request to the server.
func (c *Conn) OpTimeout() time.Duration { return c.opTimeout }

// Lost returns a channel that is closed once the connection is down (at
// once if it is down now). A use that waits on the server, a watch say,
// selects on it: while the client reconnects nothing arrives, and the use
// must fail rather than hang.
func (c *Conn) Lost() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

func (c *Conn) setDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case down && !c.down:
		close(c.lost)
	case !down && c.down:
		c.lost = make(chan struct{})
	}
	c.down = down
}

// unavailableError is the error of a use that the server did not answer.
type unavailableError struct {
	role, where string
	err         error
}

func (e *unavailableError) Error() string {
	return fmt.Sprintf("the %s at %s cannot be reached (%v); it reconnects by itself once the NATS server answers", e.role, e.where, e.err)
}

func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unavailable is the error of a use that failed with err because the
// server cannot be reached or did not answer: it is ErrUnavailable.
func (c *Conn) Unavailable(err error) error {
	return &unavailableError{role: c.role, where: c.where, err: err}
}

// KeyValue returns the store's bucket, creating it when it is absent
// (when another store creates it first, that one is used), and when the
// server created it. The bucket is checked (Bucket.Check) when it is
// first ensured, again once it has been used for DefaultRecheck, and
// after Forget: an operator can edit or delete a live bucket. Errors say
// what to do; they are ErrUnavailable when the server cannot be reached
// or does not answer.
func (c *Conn) KeyValue(ctx context.Context) (jetstream.KeyValue, time.Time, error) {
	if !c.Connected() {
		return nil, time.Time{}, c.Unavailable(nats.ErrDisconnected)
	}
	c.kvMu.Lock()
	defer c.kvMu.Unlock()
	if c.kv != nil && time.Since(c.checked) < c.recheck {
		return c.kv, c.created, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.opTimeout)
	defer cancel()
	kv := c.kv
	if kv == nil {
		var err error
		if kv, err = c.ensure(ctx); err != nil {
			return nil, time.Time{}, err
		}
	}
	st, err := kv.Status(ctx)
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		// Deleted since it was last checked: create it again.
		c.kv = nil
		if kv, err = c.ensure(ctx); err == nil {
			st, err = kv.Status(ctx)
		}
	}
	if err != nil {
		c.kv = nil
		return nil, time.Time{}, c.Unavailable(err)
	}
	if c.bucket.Check != nil {
		if err := c.bucket.Check(st); err != nil {
			c.kv = nil
			return nil, time.Time{}, err
		}
	}
	if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		c.created = bs.StreamInfo().Created
	}
	c.kv, c.checked = kv, time.Now()
	return kv, c.created, nil
}

// Forget drops the bucket a use found wrong: the next use ensures and
// checks it again, creating it if it was deleted.
func (c *Conn) Forget() {
	c.kvMu.Lock()
	defer c.kvMu.Unlock()
	c.kv = nil
}

// Failed is the error of a use of the bucket that failed with err while
// the server was reachable: the bucket is forgotten (see Forget), so the
// next use finds out what is wrong with it, and the error says so.
func (c *Conn) Failed(err error) error {
	c.Forget()
	if !c.Connected() || isNetwork(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return c.Unavailable(err)
	}
	return fmt.Errorf("the %s at %s failed (%w); the bucket is examined again, and created again if it is gone, at the next use", c.role, c.where, err)
}

func (c *Conn) ensure(ctx context.Context) (jetstream.KeyValue, error) {
	kvc := c.bucket.Config
	kv, err := c.js.KeyValue(ctx, kvc.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = c.js.CreateKeyValue(ctx, kvc)
		switch {
		case err == nil:
			c.log.Info("created the "+c.role+" bucket", c.logKey, c.where)
		case errors.Is(err, jetstream.ErrBucketExists):
			kv, err = c.js.KeyValue(ctx, kvc.Bucket)
		}
	}
	if err == nil {
		return kv, nil
	}
	if denied := c.denied.Load(); denied != nil {
		return nil, fmt.Errorf("%s at %s: %w; allow the store's user $JS.API.> and $KV.%s.>", c.role, c.where, *denied, kvc.Bucket)
	}
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, nats.ErrNoResponders): // nothing answers the JetStream API
		return nil, fmt.Errorf("%s at %s: %w; start the server with JetStream (nats-server -js) and enable it for the store's account", c.role, c.where, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return nil, c.Unavailable(err)
	}
	return nil, fmt.Errorf("%s at %s: %w; the account needs JetStream and permission to create and use the bucket %s", c.role, c.where, err, kvc.Bucket)
}
