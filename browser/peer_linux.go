package browser

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// canTellPeers is whether peerUID can tell who owns a connection here.
const canTellPeers = true

// peerUID returns the owner of the socket at the other end of a loopback
// TCP connection from local to remote: the entry of /proc/net/tcp (or
// tcp6) whose local address is remote and whose remote address is local,
// that is, the client's own socket.
func peerUID(l, r *net.TCPAddr) (int, error) {
	file, want := "/proc/net/tcp", procAddr4
	if l.IP.To4() == nil {
		file, want = "/proc/net/tcp6", procAddr6
	}
	f, err := os.Open(file)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	self, peer := want(r), want(l)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 8 || string(fields[1]) != self || string(fields[2]) != peer {
			continue
		}
		uid, err := strconv.Atoi(string(fields[7]))
		if err != nil {
			return -1, fmt.Errorf("%s: uid %q: %w", file, fields[7], err)
		}
		return uid, nil
	}
	if err := sc.Err(); err != nil {
		return -1, err
	}
	return -1, fmt.Errorf("no socket of %s to %s in %s", r, l, file)
}

// procAddr4 is a as /proc/net/tcp writes it: the address's four bytes as
// a little-endian word in hex, a colon, the port in hex.
func procAddr4(a *net.TCPAddr) string {
	ip := a.IP.To4()
	return fmt.Sprintf("%08X:%04X", binary.LittleEndian.Uint32(ip), a.Port)
}

// procAddr6 is a as /proc/net/tcp6 writes it: each of the address's four
// words as /proc/net/tcp writes one, a colon, the port in hex.
func procAddr6(a *net.TCPAddr) string {
	ip := a.IP.To16()
	var s strings.Builder
	for i := 0; i < 16; i += 4 {
		fmt.Fprintf(&s, "%08X", binary.LittleEndian.Uint32(ip[i:]))
	}
	return fmt.Sprintf("%s:%04X", s.String(), a.Port)
}
