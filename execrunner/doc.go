// Package execrunner runs one command as an argument vector, never through a
// shell, and captures its output within a fixed bound.
package execrunner

// Redactor replaces known secret values in text.
type Redactor struct{ secrets []string }
