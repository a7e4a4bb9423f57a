package server

import "github.com/fisk-mcp/fisk-mcp/internal/echo"

// maxEchoed, echoed and clipped bound what an answer of the server
// repeats of what a caller gave (see package echo).
const maxEchoed = echo.Max

func echoed(s string) string { return echo.Quoted(s) }

func clipped(s string, max int) (string, bool) { return echo.Clip(s, max) }
