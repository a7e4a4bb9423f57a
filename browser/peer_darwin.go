package browser

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// canTellPeers is whether peerUID can tell who owns a connection here.
const canTellPeers = true

// peerUID returns the owner of the socket at the other end of a loopback
// TCP connection from local to remote, as lsof, which every macOS has,
// reports it: lsof lists only the sockets of processes its user may
// examine, so it is asked for a socket of this process's user from remote
// to local, and a connection for which it finds none is of another user.
func peerUID(l, r *net.TCPAddr) (int, error) {
	me := os.Geteuid()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/sbin/lsof", "-a", "-nP", "-u", strconv.Itoa(me),
		"-iTCP@"+r.IP.String()+":"+strconv.Itoa(r.Port), "-Fn").Output()
	if err != nil && len(out) == 0 {
		// lsof exits 1 when it finds nothing: no socket of this user.
		return -1, fmt.Errorf("lsof found no socket of user %d from %s to %s", me, r, l)
	}
	want := "n" + r.String() + "->" + l.String()
	for _, line := range strings.Split(string(out), "\n") {
		if line == want {
			return me, nil
		}
	}
	return -1, fmt.Errorf("lsof found no socket of user %d from %s to %s", me, r, l)
}
