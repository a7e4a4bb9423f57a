package execrunner

import (
	"slices"
	"strings"
)

// The scrubbing rule
//
// A command a model drives gets the server's environment minus what would
// let it act as the person or the agent beyond the application it runs.
// Each variable is decided once, by the first of these that applies:
//
//  1. FISK_MCP_TOKEN, the server's own token, and OTEL_EXPORTER_*, the
//     server's own telemetry exporters' settings (OTEL_EXPORTER_OTLP_HEADERS
//     holds a collector's key): scrubbed, always.
//  2. A name in EnvRule.Scrub (--scrub-env): scrubbed.
//  3. A name in EnvRule.Keep (--keep-env): kept.
//  4. A name the served application declares as the environment variable
//     of one of its flags or arguments (fisk's Envar): kept for that
//     application's commands, scrubbed for the others'. It is the
//     application's own setting (the NATS CLI's NATS_URL, NATS_PASSWORD,
//     NATS_CREDS...), and scrubbing it would stop the CLI from reaching its
//     own server.
//  5. What CLIs need to run (essentialVar): kept.
//  6. Scrubbed when it looks like a credential (looksSecret): a name in
//     CredentialVars; a name containing TOKEN, SECRET, PASSWORD, PASSWD,
//     PASSPHRASE, CREDENTIAL or PRIVATE, or APIKEY or API_KEY; a name with
//     a "_"-separated word KEY, PASS, AUTH, CREDS, DSN or COOKIE; an agent
//     or IPC socket (a name ending in SOCK or SOCKET, SSH_AGENT_PID,
//     GPG_AGENT_INFO, DBUS_SESSION_BUS_ADDRESS) or KUBECONFIG; a value that
//     is a URL with a password (scheme://user:password@host).
//  7. Anything else: kept.
//
// Names are compared in upper case: removing a differently-cased twin of a
// credential costs nothing, keeping it could leak it. The values of the
// variables scrubbed by 1, 2 and 6, and of those kept by 3 and 4 that 6
// would scrub, are the secrets a Redactor hides (Environment.Secrets), and
// so is the password of a URL among them: kept or not, a command may come
// to know them and print them.

// EnvRule is the operator's part of the scrubbing rule (see above). The
// zero value is the built-in rule alone.
type EnvRule struct {
	// Scrub names variables removed whatever else holds (--scrub-env).
	Scrub []string
	// Keep names variables kept although the rule would remove them
	// (--keep-env). FISK_MCP_TOKEN is never kept.
	Keep []string
}

// RuleText describes the built-in part of the rule in one line, for the
// tools listing and the startup log.
const RuleText = "scrubbed: the built-in credential names; OTEL_EXPORTER_* (the server's own telemetry settings); names containing TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, PRIVATE, APIKEY or API_KEY, or with a _-separated word KEY, PASS, AUTH, CREDS, DSN or COOKIE; agent and IPC sockets (*SOCK, *SOCKET, SSH_AGENT_PID, GPG_AGENT_INFO, DBUS_SESSION_BUS_ADDRESS) and KUBECONFIG; URLs with a password. Kept: PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, COLORTERM, TZ, TMPDIR, XDG_*, the variables an app declares for its own flags, and --keep-env names; --scrub-env names are always scrubbed"

// verdict is what the rule decided for one variable.
type verdict int

const (
	keep          verdict = iota // kept: nothing says otherwise
	scrub                        // removed, value redacted
	keepOnPurpose                // kept by --keep-env although it looks secret, value redacted
	keepForApp                   // removed unless the command's app declares it, value redacted
)

// decide applies steps 1 to 7, with the rule's Scrub and Keep names in
// upper case, but 4, which depends on the command: a
// variable an app may declare that would otherwise be removed is
// keepForApp. keepOnPurpose and keepForApp are set only for variables that
// look secret; others are plain keeps.
func decide(scrubNames, keepNames map[string]bool, name, value string) verdict {
	upper := strings.ToUpper(name)
	switch {
	case upper == TokenEnvVar, strings.HasPrefix(upper, "OTEL_EXPORTER_"):
		return scrub
	case scrubNames[upper]:
		return scrub
	case essentialVar(upper):
		return keep
	case !looksSecret(upper, value):
		return keep
	case keepNames[upper]:
		return keepOnPurpose
	}
	return keepForApp
}

// essentialVar reports whether a CLI needs the variable to run at all: to
// find programs, its home and temporary directories, the user, the
// language and terminal. The rule never removes these by itself.
func essentialVar(upper string) bool {
	switch upper {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE",
		"TERM", "COLORTERM", "TZ", "TMPDIR", "PWD", "LLMFORMAT":
		return true
	}
	return strings.HasPrefix(upper, "LC_") || strings.HasPrefix(upper, "XDG_")
}

var (
	secretSubstrings = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "APIKEY", "API_KEY"}
	secretWords      = []string{"KEY", "PASS", "AUTH", "CREDS", "DSN", "COOKIE"}
	agentVars        = []string{"SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "KUBECONFIG"}
)

// looksSecret is step 6 of the rule, on the upper-cased name.
func looksSecret(upper, value string) bool {
	if slices.Contains(CredentialVars, upper) || slices.Contains(agentVars, upper) {
		return true
	}
	for _, s := range secretSubstrings {
		if strings.Contains(upper, s) {
			return true
		}
	}
	for w := range strings.SplitSeq(upper, "_") {
		if slices.Contains(secretWords, w) {
			return true
		}
	}
	if strings.HasSuffix(upper, "SOCK") || strings.HasSuffix(upper, "SOCKET") {
		return true
	}
	return urlPassword(value) != ""
}

// urlPassword returns the password of a URL's user information
// (scheme://user:password@host...), or "" when value has none.
func urlPassword(value string) string {
	_, rest, ok := strings.Cut(value, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return ""
	}
	_, password, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return ""
	}
	return password
}
