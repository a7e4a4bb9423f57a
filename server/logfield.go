package server

import (
	"strconv"
	"unicode/utf8"
)

// MaxLogField bounds, in bytes, what one field of a log line may carry: a
// call's argv, its error text, the gate's detail, a panic. A call's argv
// is the model's to choose, and a million-item list would otherwise make
// a line of megabytes that log pipelines truncate or drop, taking the rest
// of the line (the decision, the result) with it.
const MaxLogField = 4 << 10

// logField returns s when it fits in MaxLogField bytes; otherwise its
// first three quarters and its last quarter of that bound, cut between
// characters, around a marker saying how many bytes were elided. The head
// names the command and its first arguments, the tail an error's cause.
func logField(s string) string {
	if len(s) <= MaxLogField {
		return s
	}
	head := runeStart(s, MaxLogField*3/4)
	tail := len(s) - MaxLogField/4
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + " …[" + strconv.Itoa(tail-head) + " bytes elided]… " + s[tail:]
}

// runeStart returns the largest i <= n at which a character of s starts.
func runeStart(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
