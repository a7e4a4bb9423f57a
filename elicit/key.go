package elicit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MinKeyLen is the shortest signing key the gate accepts, in bytes.
const MinKeyLen = 32

// maxKeyFile bounds what LoadKey reads: a key file is small, anything
// larger is the wrong file.
const maxKeyFile = 4 << 10

// minDistinctBytes rejects keys made of a repeated pattern ("0000...",
// "abab..."). 32 random bytes have about 30 distinct values; fewer than 16
// does not happen by chance.
const minDistinctBytes = 16

// LoadKey reads the request-state signing key from path, so that several
// replicas behind one load balancer verify each other's approval states.
//
// The file holds either hexadecimal text (surrounding whitespace and a
// trailing newline are ignored), as written by
//
//	openssl rand -hex 32 > state.key
//
// or raw random bytes. Either way the decoded key must be at least MinKeyLen
// bytes and must not be a repeated pattern. A raw file made only of
// printable text is refused: it is a passphrase or an encoding (base64, ...)
// rather than random bytes, and would be a weak HMAC key.
func LoadKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading state key: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading state key %q: %w", path, err)
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("state key %q: file is larger than %d bytes; it should hold one key (e.g. openssl rand -hex 32 > %s)", path, maxKeyFile, path)
	}
	key, err := parseKey(data)
	if err != nil {
		return nil, fmt.Errorf("state key %q: %w", path, err)
	}
	return key, nil
}

// parseKey decodes the contents of a key file.
func parseKey(data []byte) ([]byte, error) {
	text := strings.TrimSpace(string(data))
	if text == "" {
		return nil, errors.New("file is empty; write a key with: openssl rand -hex 32")
	}
	if isHex(text) {
		if len(text)%2 != 0 {
			return nil, errors.New("hex key has an odd number of digits; write a key with: openssl rand -hex 32")
		}
		key, err := hex.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("decoding hex key: %w", err)
		}
		return key, checkKey(key)
	}
	if isText(data) {
		return nil, errors.New("file holds text that is not hexadecimal (a passphrase or base64?); " +
			"the key must be random bytes, written as hex: openssl rand -hex 32")
	}
	return data, checkKey(data)
}

// checkKey rejects keys too short or too regular to be random.
func checkKey(key []byte) error {
	if len(key) < MinKeyLen {
		return fmt.Errorf("key is %d bytes, need at least %d random bytes (openssl rand -hex 32)", len(key), MinKeyLen)
	}
	var seen [256]bool
	distinct := 0
	for _, b := range key {
		if !seen[b] {
			seen[b] = true
			distinct++
		}
	}
	if distinct < minDistinctBytes {
		return fmt.Errorf("key has only %d distinct byte values, so it is a pattern rather than random bytes; generate one with: openssl rand -hex 32", distinct)
	}
	return nil
}

// randomKey returns a fresh per-process key.
func randomKey() ([]byte, error) {
	key := make([]byte, MinKeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generating a state key: %w", err)
	}
	return key, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isText reports whether data is only printable ASCII and whitespace.
func isText(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
