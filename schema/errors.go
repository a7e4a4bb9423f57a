package schema

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Violation is one problem with a call's arguments: where (a JSON pointer
// into the arguments, "" for the whole object) and what, in words a model
// can fix its call with.
type Violation struct {
	Pointer string
	Message string
}

func (v Violation) String() string {
	if v.Pointer == "" {
		return "arguments: " + v.Message
	}
	return showPointer(v.Pointer) + ": " + v.Message
}

// maxShownPointer bounds, in characters, a pointer as a message shows it,
// and maxShownViolations the violations a message lists: a pointer holds
// the caller's keys, and a call may give any number of them.
const (
	maxShownPointer    = 120
	maxShownViolations = 20
)

// showPointer is a pointer as a message shows it: shortened, and quoted
// and escaped when it holds a character that is not printable (a control
// or format character in a key the caller gave), so none reaches the
// reader raw.
func showPointer(p string) string {
	p = truncate(p, maxShownPointer)
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// ValidationError lists every violation of one call, sorted by pointer.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	if len(e.Violations) == 1 {
		return "invalid arguments: " + e.Violations[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid arguments (%d problems):", len(e.Violations))
	for i, v := range e.Violations {
		if i == maxShownViolations {
			fmt.Fprintf(&b, "\nand %d more", len(e.Violations)-i)
			break
		}
		b.WriteString("\n")
		b.WriteString(v.String())
	}
	return b.String()
}

// pointer appends one reference token to a JSON pointer (RFC 6901).
func pointer(base, token string) string {
	token = strings.ReplaceAll(token, "~", "~0")
	token = strings.ReplaceAll(token, "/", "~1")
	return base + "/" + token
}
