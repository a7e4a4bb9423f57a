package elicit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/canonical"
)

// hashArguments returns the hex SHA-256 of the canonical form of a tool
// call's arguments (see package canonical). Two argument documents hash
// alike exactly when encoding/json (which the command renderer uses) reads
// them alike: object keys are sorted, insignificant white space dropped,
// strings re-escaped; numbers keep their literal text. Absent arguments are
// the empty object.
//
// A document whose meaning depends on the reader is refused, because an
// approval must bind one meaning: a duplicate key (which one a reader keeps
// is a matter of implementation) and trailing data (a streaming reader
// takes the first value, Unmarshal refuses the document). Nesting is
// bounded (canonical.MaxDepth), so hostile arguments cannot exhaust the
// stack.
func hashArguments(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	h := sha256.New()
	e := canonical.NewEncoder(h)
	if err := e.JSON(raw); err != nil {
		return "", fmt.Errorf("canonicalising arguments: %w", err)
	}
	if err := e.Flush(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
