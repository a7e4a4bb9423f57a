package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/echo"
)

// maxStdioLine bounds one line of the stdio transport: the SDK's own
// default frame limit, far above any request a client sends (tool
// arguments included). A longer line is discarded as it streams in, so it
// costs reading time but never more memory than this.
const maxStdioLine = mcp.DefaultMaxLineLength

// lineChecker stands between the client's input and the SDK. It passes on
// every line that holds one JSON-RPC message the SDK can read, and answers
// every other line itself, with the error JSON-RPC 2.0 prescribes and a
// null id, and keeps reading.
//
// The SDK ends the whole session on the first frame it cannot decode,
// cancelling every call in flight; a client that sends garbage must not
// take down a server other work depends on. So no line reaches the SDK
// before it decodes here with the SDK's own decoder:
//   - a line that is not valid JSON (nesting deeper than encoding/json's
//     10,000 levels included) gets a parse error (-32700);
//   - valid JSON that is not a message object gets an invalid request
//     (-32600): a scalar, a batch (MCP removed batches in 2025-06-18 and
//     the SDK refuses them from then on, so one rule holds for every
//     version), an object the SDK rejects (wrong version tag, an id that is
//     neither string nor number, nesting past the SDK's 1,000 levels), an
//     object whose numeric id the SDK would answer with another id (see
//     checkNumericID), and a line over maxStdioLine bytes;
//   - a blank line is skipped.
//
// The stdio transport forbids newlines inside a message, so a line is
// exactly one frame; surrounding spaces and a CR are trimmed, as the SDK
// would otherwise take them for trailing data. Every check is one pass over
// a line of bounded length, and Read hands over at most one line per call,
// so the SDK never buffers more than that line.
type lineChecker struct {
	in     io.Reader
	refuse func(code int64, message string) // answers a refused line; nil drops it
	log    *slog.Logger

	chunk   [32 << 10]byte
	unread  []byte // read from in, not yet split into lines
	line    []byte // the line being collected
	size    int    // its length so far, counting what an oversized line discarded
	ready   []byte // a checked line, with its newline, not yet handed over
	readErr error  // from in, returned once every line before it is handed over
}

func (c *lineChecker) Read(p []byte) (int, error) {
	for len(c.ready) == 0 {
		if len(c.unread) == 0 && c.readErr != nil {
			c.endLine() // a last line without its newline
			if len(c.ready) == 0 {
				return 0, c.readErr
			}
			break
		}
		c.next()
	}
	n := copy(p, c.ready)
	c.ready = c.ready[n:]
	return n, nil
}

// next ends the line unread holds the newline of, or collects all of
// unread and reads more.
func (c *lineChecker) next() {
	if i := bytes.IndexByte(c.unread, '\n'); i >= 0 {
		c.collect(c.unread[:i])
		c.unread = c.unread[i+1:]
		c.endLine()
		return
	}
	c.collect(c.unread)
	n, err := c.in.Read(c.chunk[:])
	c.unread, c.readErr = c.chunk[:n], err
}

// collect adds b to the current line unless the line is already over the
// bound; past it, the line's bytes are counted and dropped.
func (c *lineChecker) collect(b []byte) {
	c.size += len(b)
	if c.size > maxStdioLine {
		c.line = nil
		return
	}
	c.line = append(c.line, b...)
}

// endLine checks the line just completed: it becomes ready, or is
// answered and dropped.
func (c *lineChecker) endLine() {
	line, size := c.line, c.size
	c.line, c.size = nil, 0
	if size > maxStdioLine {
		c.refused(jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is %d bytes, over the limit of %d", size, maxStdioLine), nil, size)
		return
	}
	line = bytes.Trim(line, " \t\r")
	if len(line) == 0 {
		return
	}
	if code, reason := checkMessage(line); code != 0 {
		c.refused(code, reason, line, size)
		return
	}
	c.ready = append(line, '\n')
}

// checkMessage returns the JSON-RPC error code and the reason that line
// cannot be passed to the SDK, or 0 when it can.
func checkMessage(line []byte) (code int64, reason string) {
	// Unmarshal checks the syntax of the whole line before it decodes;
	// decoding into an empty struct keeps nothing.
	var syntax *json.SyntaxError
	if err := json.Unmarshal(line, &struct{}{}); errors.As(err, &syntax) {
		return jsonrpc.CodeParseError, fmt.Sprintf("%v (at byte %d)", err, syntax.Offset)
	}
	switch line[0] {
	case '{':
	case '[':
		return jsonrpc.CodeInvalidRequest, "batches are not supported; send one message per line"
	default:
		return jsonrpc.CodeInvalidRequest, "the message is not a JSON object"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, err.Error()
	}
	if reason := checkNumericID(line); reason != "" {
		return jsonrpc.CodeInvalidRequest, reason
	}
	return 0, ""
}

// maxExactID is the largest integer a float64 holds exactly, and so the
// largest numeric id the SDK, which decodes numbers as float64 and then
// keeps them as int64, answers with the id it was sent.
const maxExactID = 1<<53 - 1

// checkNumericID returns why the numeric id of a message the SDK decoded
// cannot be answered with that id, or "" when it can (or the id is not a
// number). The SDK answers an id of 1.5 as 1 and one past 2^63 as
// -2^63: a client could not match the answer to its request, and two
// requests could share an id. A literal that merely rounds to an integer
// (1.0000000000000001) is answered with that integer, equal to it as a
// float64.
func checkNumericID(line []byte) string {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 {
		return ""
	}
	if c := msg.ID[0]; c != '-' && (c < '0' || c > '9') {
		return ""
	}
	f, err := strconv.ParseFloat(string(msg.ID), 64)
	if err == nil && f == math.Trunc(f) && math.Abs(f) <= maxExactID {
		return ""
	}
	return fmt.Sprintf("the id %s cannot be answered as sent; use a string or an integer from %d to %d", logExcerpt(msg.ID), -maxExactID, maxExactID)
}

func (c *lineChecker) refused(code int64, reason string, line []byte, size int) {
	name := "Invalid Request"
	if code == jsonrpc.CodeParseError {
		name = "Parse error"
	}
	// Logged before it is answered, so a client that has its answer can
	// find the record.
	c.log.Warn("refused a malformed message from the client", "code", code, "reason", logExcerpt([]byte(reason)), "bytes", size, "line", logExcerpt(line))
	if c.refuse != nil {
		// The SDK's reason quotes what it could not take (a version tag,
		// say), as long as the client made it.
		if cut, ok := echo.Clip(reason, 2*echo.Max); ok {
			reason = cut + "…"
		}
		c.refuse(code, fmt.Sprintf("%s: %s; send each JSON-RPC 2.0 message as one JSON object on its own line", name, reason))
	}
}

// Close closes in if it can be closed, as the SDK expects of its reader.
func (c *lineChecker) Close() error {
	if cl, ok := c.in.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// excerptBytes bounds how much of a client's line a log line repeats.
const excerptBytes = 120

// logExcerpt returns the start of b fit for a log line: at most
// excerptBytes of it, every control, format (bidirectional overrides
// included) or invalid byte escaped as in a Go string literal, and a note
// of how much was left out.
func logExcerpt(b []byte) string {
	rest := 0
	if len(b) > excerptBytes {
		cut := excerptBytes
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b, rest = b[:cut], len(b)-cut
	}
	q := strconv.Quote(string(b))
	q = q[1 : len(q)-1]
	if rest > 0 {
		q += fmt.Sprintf("… (%d more bytes)", rest)
	}
	return q
}
