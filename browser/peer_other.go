//go:build !linux && !darwin

package browser

import "net"

// peerUID cannot tell the owner of a connection on this system.
func peerUID(net.Addr, net.Addr) (int, error) { return -1, errNoPeerCheck }
