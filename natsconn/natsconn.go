// Package natsconn is the connection to a NATS server that fisk-mcp's
// stores on JetStream key-value share: the replay record of used approval
// states (package elicit/natsstore) and the pending approvals of the
// shared approval page (package browser/natspending). Both are configured,
// reached and reported the same way, by the --replay-store-* settings.
//
// A server that cannot be reached at start is not an error, reconnection
// never gives up, and while the server is down every use fails with an
// error matching [ErrUnavailable], so the gate fails closed while ungated
// tools keep working. [Dial] fails only on what will not fix itself: a bad
// URL, unreadable or wrong credentials, a server without JetStream,
// missing permissions, a bucket its store refuses.
//
// It deliberately holds no store's keys or values: each store owns its
// bucket's layout and what its errors mean to a caller.
package natsconn

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// DefaultOpTimeout bounds one request to the server.
const DefaultOpTimeout = 5 * time.Second

// ErrUnavailable is matched (errors.Is) by the error of a use a store on
// NATS could not record: the server cannot be reached or did not answer.
// The error itself names the store and its server.
var ErrUnavailable = errors.New("the store cannot be reached")

// Config says which server to reach and how to log in. Only these fields
// configure the connection: the NATS_* environment variables and the
// NATS CLI's selected context are not read, so the stores' credentials
// come only from what fisk-mcp is given, which the commands it runs never
// see.
type Config struct {
	URL string // nats://host:port, comma-separated for several servers

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

	OpTimeout time.Duration // 0 means DefaultOpTimeout
	// Recheck is how long a use trusts the bucket's last check; 0 means
	// DefaultRecheck.
	Recheck time.Duration
	Logger  *slog.Logger // nil discards
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
