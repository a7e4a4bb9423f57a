package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
)

// The local page's address carries a one-time ticket, and the address
// reaches the browser on the opener's command line, which every user of
// the machine can read (/proc/PID/cmdline). A process of another user
// could take the ticket and approve before the person's browser arrives.
// So the listener serves only connections made by a process of the user
// fisk-mcp runs as: the kernel knows the owner of the connecting socket
// (peerUID), and a connection of anyone else is answered with a refusal
// that consumes nothing, whatever it sends.
//
// This does not stop a process of the same user: one that can read the
// opener's command line can also read the user's files and browser
// profile. Browser approval keeps a model out only where the agent
// cannot run commands as the person without asking.

// errNoPeerCheck is peerUID's error on a system where the owner of a
// loopback connection cannot be told.
var errNoPeerCheck = errors.New("this system cannot tell which user's process connects to a loopback port")

// peerKey is the context key of a connection's peer (see peerOf).
type peerKey struct{}

// peer is who made one connection to the listener.
type peer struct {
	uid int
	err error // the owner could not be told
}

// peerContext is the listener's http.Server.ConnContext: it finds the
// owner of the connecting socket once per connection.
func peerContext(ctx context.Context, c net.Conn) context.Context {
	p := peer{uid: -1}
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if ok1 && ok2 {
		p.uid, p.err = peerUID(local, remote)
	} else {
		p.err = fmt.Errorf("not a TCP connection: %s", c.RemoteAddr())
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// ownUser answers every request on a connection that is not of this
// process's user with a refusal, and passes the others to h.
func (l *Local) ownUser(h http.Handler) http.Handler {
	me := os.Geteuid()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := r.Context().Value(peerKey{}).(peer)
		switch {
		case ok && p.err == nil && p.uid == me:
			h.ServeHTTP(w, r)
			return
		case !ok:
			p.err = errors.New("the connection was not examined")
		}
		why := fmt.Sprintf("user %d", p.uid)
		if p.err != nil {
			why = "a user that could not be told (" + p.err.Error() + ")"
		}
		l.log.Warn("the approval page refused a connection of another user", "peer", why, "user", me)
		message(w, r, l.log, http.StatusForbidden, "Not your browser",
			"This approval page opens only in a browser running as the user who runs fisk-mcp. "+
				"Where the browser runs as another user or on another system (a Windows browser for WSL, a remote desktop), "+
				"approve through the client instead (--approval elicit) or on a shared server's /approvals page.", "", "")
	})
}
