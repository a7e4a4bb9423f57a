// Package logging builds fisk-mcp's process logger: JSON or text lines at
// a chosen level, coloured only on a terminal that wants colour. It never
// writes anywhere but the writer it is given (stderr in practice): in
// stdio mode stdout is the protocol stream.
//
// What is logged is the callers', and much of it a client chose (a tool's
// name, a client's name, a rejected value). The logger is the one place
// that keeps such text from acting on the terminal or the viewer that
// shows the log: no escape sequence, control or formatting character
// (a bidirectional override, say) is written as itself, in either format
// (see neutral.go). Redacting secrets and bounding sizes stay the callers'.
package logging

import (
	"io"
	"log/slog"
	"os"

	"github.com/lmittmann/tint"
)

// New builds the process logger. It always writes to w (stderr in
// practice): in stdio mode stdout is the protocol stream and must carry
// nothing else. An unknown level is info; a format other than json is text.
func New(w io.Writer, level, format string) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		lvl = slog.LevelInfo
	}
	return slog.New(handler(w, lvl, format, colourful(w)))
}

// handler is the handler New builds, colour decided by the caller.
func handler(w io.Writer, lvl slog.Level, format string, colour bool) slog.Handler {
	if format == "json" {
		return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: neutralJSON})
	}
	return tint.NewTextHandler(w, &tint.Options{
		Level:       lvl,
		TimeFormat:  "15:04:05.000",
		NoColor:     !colour,
		ReplaceAttr: neutralText,
	})
}

// colourful reports whether w is a terminal that wants colour: a
// terminal, and the user has not opted out through NO_COLOR or TERM=dumb.
func colourful(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && IsTerminal(f)
}
