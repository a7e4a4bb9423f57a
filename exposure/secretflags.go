package exposure

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// Secret flags
//
// A flag whose value is a secret (a password, a token) must run with its
// value, but no person or log may read it: the command line a person
// approves, the log line and the result's command show the flag with its
// value replaced (--password=[redacted]), so the person still sees that a
// secret is passed and where. Which flags carry secrets is read from the
// flag's name, word by word (words split at "-", "_" and "."), never from
// any name containing "key": a KV key, a subject or a positional is what
// the person must see to decide. A flag is secret when
//
//   - one of its words is password, passwd, passphrase, pass, token,
//     secret, secrets, creds, credential, credentials, nkey, seed, jwt,
//     apikey or bearer;
//   - or a word key follows private, api, access, secret, signing,
//     encryption, client or master (--private-key, --api-key);
//   - or the operator names it (Policy.SecretFlags, --secret-flag).
//
// Positional values are never hidden from the command line.

var (
	secretFlagWords = []string{"password", "passwd", "passphrase", "pass", "token", "secret", "secrets", "creds",
		"credential", "credentials", "nkey", "seed", "jwt", "apikey", "bearer"}
	secretKeyQualifiers = []string{"private", "api", "access", "secret", "signing", "encryption", "client", "master"}
)

// IsSecretFlag reports whether the flag called name (without dashes)
// carries a secret by the rule above, or is one of named.
func IsSecretFlag(name string, named []string) bool {
	if slices.ContainsFunc(named, func(n string) bool { return strings.EqualFold(n, name) }) {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	for i, w := range words {
		if slices.Contains(secretFlagWords, w) {
			return true
		}
		if w == "key" && i > 0 && slices.Contains(secretKeyQualifiers, words[i-1]) {
			return true
		}
	}
	return false
}

// hideSecretFlags returns argv for display, the value of every secret
// flag's token replaced by execrunner.Redacted, and those values; display
// is nil when no flag of argv is secret. Before "--" a rendered argv holds
// only the command path and whole tokens of known flags, every value as
// --name=value (see schema.Command.Render), so a token's name is its flag's.
func hideSecretFlags(argv []string, named []string) (display, secrets []string) {
	for i, tok := range argv[1:] {
		if tok == "--" {
			break
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(tok, "--"), "=")
		if !ok || !strings.HasPrefix(tok, "--") || !IsSecretFlag(name, named) {
			continue
		}
		if display == nil {
			display = slices.Clone(argv)
		}
		display[i+1] = "--" + name + "=" + execrunner.Redacted
		secrets = append(secrets, value)
	}
	return display, secrets
}

// hideSecretValues returns err with the message of every violation about
// the value of a secret flag replaced by one that repeats nothing of it: a
// validation message quotes the value it rejects ("expected array, got
// string ...") and the call's secrets are not yet known to any Redactor,
// since the call was never prepared. The pointer is cut to the flag, since
// below it are the caller's own keys. A violation about a flag the input
// does not give, or that the tool does not have, quotes no value and is
// kept. Other errors pass as they are.
func hideSecretValues(err error, cmd *schema.Command, input json.RawMessage, named []string) error {
	var verr *schema.ValidationError
	if !errors.As(err, &verr) {
		return err
	}
	var given map[string]json.RawMessage
	var out *schema.ValidationError
	for i, v := range verr.Violations {
		tok, _, _ := strings.Cut(strings.TrimPrefix(v.Pointer, "/"), "/")
		name := unescapeToken(tok)
		if v.Pointer == "" || !IsSecretFlag(name, named) {
			continue
		}
		if given == nil && json.Unmarshal(input, &given) != nil {
			given = map[string]json.RawMessage{}
		}
		if _, ok := given[name]; !ok || !hasProperty(cmd, name) {
			continue
		}
		if out == nil {
			out = &schema.ValidationError{Violations: slices.Clone(verr.Violations)}
		}
		out.Violations[i] = schema.Violation{Pointer: "/" + tok, Message: secretValueMessage}
	}
	if out == nil {
		return err
	}
	return out
}

// hasProperty reports whether cmd's input schema has the property name.
func hasProperty(cmd *schema.Command, name string) (ok bool) {
	cmd.ReadInputSchema(func(s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		_, ok = props[name]
	})
	return ok
}

// secretValueMessage is what a violation under a secret flag says.
const secretValueMessage = "the value is not valid for this flag, and is not repeated because the flag carries a secret; " +
	"send a value of the type the tool's input schema gives for it"

// unescapeToken is a JSON pointer's reference token as the key it names
// (RFC 6901).
func unescapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
