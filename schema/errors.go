package schema

import (
	"fmt"
	"strings"
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
	return v.Pointer + ": " + v.Message
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
	for _, v := range e.Violations {
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
