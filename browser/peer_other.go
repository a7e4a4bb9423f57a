//go:build !linux && !darwin

package browser

import "net"

// canTellPeers is whether peerUID can tell who owns a connection here.
const canTellPeers = false

// peerUID cannot tell the owner of a connection on this system.
func peerUID(_, _ *net.TCPAddr) (int, error) { return -1, errNoPeerCheck }
