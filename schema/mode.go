package schema

import "fmt"

// Mode selects which of fisk's precomputed schemas a tool advertises.
type Mode string

const (
	// Restricted advertises fisk's restricted_schema: the JSON Schema subset
	// LLM tool APIs accept. The default.
	Restricted Mode = "restricted"
	// Full advertises fisk's complete schema (integer ranges, oneOf, ...).
	Full Mode = "full"
)

// ParseMode accepts "restricted", "full", or "" (Restricted).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Restricted:
		return Restricted, nil
	case Full:
		return Full, nil
	}
	return "", fmt.Errorf("unknown schema mode %q: use %q or %q", s, Restricted, Full)
}
