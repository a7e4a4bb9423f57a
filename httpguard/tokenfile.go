package httpguard

import (
	"fmt"
	"os"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// MinTokenLen is the shortest bearer token accepted, in bytes. A token is
// the only thing between the network and the tools; a short one can be
// guessed, by many addresses or over a long time, however the [Limiter]
// bounds the guesses of one.
const MinTokenLen = 16

// ReadTokenFile reads a bearer token file; setting names it in messages
// (e.g. --token-file). Surrounding whitespace is ignored (the trailing
// newline of echo or an editor, and a CRLF line end), as the server also
// ignores it around the token a client sends; an empty, a multi-line or a
// short token is refused.
func ReadTokenFile(setting, path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w; point it at a readable file holding the bearer token", setting, err)
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" {
		return "", fmt.Errorf("%s %s is empty; write the bearer token into it", setting, path)
	}
	if strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("%s %s holds more than one line; write only the bearer token", setting, path)
	}
	if len(tok) < MinTokenLen {
		return "", fmt.Errorf("%s %s holds a token of %d characters; a bearer token needs at least %d, or it can be guessed: make one with: openssl rand -hex 32 > %s", setting, path, len(tok), MinTokenLen, path)
	}
	return tok, nil
}

// TokenFromEnv returns the bearer token execrunner.TokenEnvVar holds,
// without surrounding whitespace; "" when unset, and an error for one
// shorter than MinTokenLen.
func TokenFromEnv() (string, error) {
	const env = execrunner.TokenEnvVar
	tok := strings.TrimSpace(os.Getenv(env))
	if tok != "" && len(tok) < MinTokenLen {
		return tok, fmt.Errorf("%s holds %d characters; a bearer token needs at least %d, or it can be guessed: set it to a random one, e.g. %s=$(openssl rand -hex 32)", env, len(tok), MinTokenLen, env)
	}
	return tok, nil
}
