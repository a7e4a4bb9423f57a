package natsconn

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// options turns the configuration into connection options, reading every
// credential file now so that a missing one fails at start.
func (c *Config) options(s *Conn) ([]nats.Option, error) {
	opts := []nats.Option{
		nats.Name("fisk-mcp " + s.role),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.Timeout(2 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			s.setDown(true)
			s.log.Warn("lost the "+s.role+"; approvals are refused until it is back", s.logKey, s.where, "error", err)
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			s.setDown(false)
			s.log.Info("reconnected to the "+s.role, s.logKey, s.where)
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				s.denied.Store(&err)
			}
			s.log.Warn("the "+s.role+" reported an error", s.logKey, s.where, "error", err)
		}),
		nats.ClosedHandler(func(*nats.Conn) { s.setDown(true) }),
		nats.ConnectHandler(func(*nats.Conn) {
			s.setDown(false)
			s.log.Info("connected to the "+s.role, s.logKey, s.where)
		}),
	}
	readable := func(what, path string) error {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("replay store %s: %w; point it at a readable file", what, err)
		}
		return nil
	}
	if c.CredsFile != "" {
		if err := readable("credentials file", c.CredsFile); err != nil {
			return nil, err
		}
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.NKeySeedFile != "" {
		o, err := nats.NkeyOptionFromSeed(c.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("replay store nkey seed file: %w; point it at a file holding an nkey seed (SU...)", err)
		}
		opts = append(opts, o)
	}
	if c.password != "" {
		opts = append(opts, nats.UserInfo(c.User, c.password))
	} else if (c.User == "") != (c.PasswordFile == "") {
		return nil, errors.New("replay store: a user needs a password file and a password file a user; give both or neither")
	}
	if c.User != "" && c.password == "" {
		raw, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("replay store password file: %w; point it at a readable file holding the password", err)
		}
		pw := strings.TrimSpace(string(raw))
		if pw == "" {
			return nil, fmt.Errorf("replay store password file %s is empty; write the password into it", c.PasswordFile)
		}
		opts = append(opts, nats.UserInfo(c.User, pw))
	}
	if c.TLSCA != "" {
		if err := readable("TLS CA", c.TLSCA); err != nil {
			return nil, err
		}
		opts = append(opts, nats.RootCAs(c.TLSCA))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, errors.New("replay store: a TLS client certificate needs its key and a key its certificate; give both or neither")
	}
	if c.TLSCert != "" {
		for what, p := range map[string]string{"TLS certificate": c.TLSCert, "TLS key": c.TLSKey} {
			if err := readable(what, p); err != nil {
				return nil, err
			}
		}
		opts = append(opts, nats.ClientCert(c.TLSCert, c.TLSKey))
	}
	return opts, nil
}

// natsContext is the part of a NATS CLI context file the store uses.
type natsContext struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
	Creds    string `json:"creds"`
	NKey     string `json:"nkey"`
	Cert     string `json:"cert"`
	Key      string `json:"key"`
	CA       string `json:"ca"`
}

// withContext fills what c leaves empty from the named context. A name
// without a slash is looked up where the NATS CLI keeps contexts.
func (c *Config) withContext() error {
	if c.Context == "" {
		return nil
	}
	path := c.Context
	if !strings.ContainsRune(path, filepath.Separator) {
		dir, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("replay store context %q: %w; give the context file's path instead", c.Context, err)
		}
		path = filepath.Join(dir, "nats", "context", c.Context+".json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("replay store context %q: %w; create it with nats context save, or give the file's path", c.Context, err)
	}
	var nc natsContext
	if err := json.Unmarshal(raw, &nc); err != nil {
		return fmt.Errorf("replay store context %s: %w", path, err)
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&c.URL, nc.URL)
	fill(&c.CredsFile, nc.Creds)
	fill(&c.NKeySeedFile, nc.NKey)
	fill(&c.TLSCA, nc.CA)
	fill(&c.TLSCert, nc.Cert)
	fill(&c.TLSKey, nc.Key)
	if c.User == "" && c.PasswordFile == "" && nc.User != "" {
		c.User, c.password = nc.User, nc.Password
	}
	return nil
}

// isNetwork reports an error that a later attempt may not have: the
// server is down or unreachable, not refusing us.
func isNetwork(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe)
}
