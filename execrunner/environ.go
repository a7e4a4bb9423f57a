package execrunner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"
)

// TokenEnvVar holds the bearer token of fisk-mcp's HTTP transport. It is a
// credential of the server, never of the commands it runs.
const TokenEnvVar = "FISK_MCP_TOKEN"

// CredentialVars names the well-known credential variables of LLM providers,
// clouds and code forges, plus the server's own token. A model-driven command
// has no business reading the keys of the agent that drives it, so they are
// removed from every child's environment, with every other variable the
// scrubbing rule finds secret (see envrule.go). An application's own
// credentials, the variables it declares for its flags, are kept for it.
var CredentialVars = []string{
	// LLM providers.
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"MISTRAL_API_KEY", "COHERE_API_KEY", "CO_API_KEY", "GROQ_API_KEY",
	"DEEPSEEK_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY",
	"PERPLEXITY_API_KEY", "FIREWORKS_API_KEY", "REPLICATE_API_TOKEN",
	"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "VOYAGE_API_KEY",
	// Clouds.
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS",
	"AZURE_CLIENT_SECRET", "AZURE_API_KEY", "DIGITALOCEAN_ACCESS_TOKEN",
	"CLOUDFLARE_API_TOKEN", "HEROKU_API_KEY",
	// Code forges.
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"GITLAB_TOKEN", "GITLAB_PRIVATE_TOKEN", "GITEA_TOKEN", "BITBUCKET_TOKEN",
	// fisk-mcp itself.
	TokenEnvVar,
}

// Environment is the server's environment sorted once by an EnvRule:
// what every command gets, what only the commands of an application that
// declares it get, and the values to redact. It is immutable and safe for
// concurrent use.
type Environment struct {
	common   []string          // kept for every command, then LLMFORMAT=1
	held     map[string]string // upper-cased name -> NAME=value, kept only for an app that declares it
	secrets  []string
	scrubbed []string // names removed for every command, sorted
	kept     []string // names --keep-env kept although they look secret, sorted
}

// NewEnvironment applies rule to base (NAME=value entries, as os.Environ
// returns them). LLMFORMAT is replaced by LLMFORMAT=1, which asks fisk
// applications for output meant for a model.
func NewEnvironment(base []string, rule EnvRule) *Environment {
	scrubNames, keepNames := upperSet(rule.Scrub), upperSet(rule.Keep)
	e := &Environment{common: make([]string, 0, len(base)+1), held: map[string]string{}}
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if name == "LLMFORMAT" {
			continue
		}
		v := decide(scrubNames, keepNames, name, value)
		switch v {
		case keep:
			e.common = append(e.common, kv)
			continue
		case keepOnPurpose:
			e.common = append(e.common, kv)
			e.kept = append(e.kept, name)
		case keepForApp:
			e.held[strings.ToUpper(name)] = kv
			e.scrubbed = append(e.scrubbed, name)
		case scrub:
			e.scrubbed = append(e.scrubbed, name)
		}
		e.secrets = append(e.secrets, secretsOf(value)...)
	}
	e.common = append(e.common, "LLMFORMAT=1")
	slices.Sort(e.scrubbed)
	slices.Sort(e.kept)
	return e
}

// secretsOf returns what of a secret-looking value a Redactor must hide:
// the value, and a URL's password on its own, when MinSecretLen long.
func secretsOf(value string) []string {
	var out []string
	for _, v := range []string{value, urlPassword(value)} {
		if utf8.RuneCountInString(v) >= MinSecretLen {
			out = append(out, v)
		}
	}
	return out
}

// For returns the environment of a command whose application declares
// the variables named in declared (its flags' Envar): every kept variable,
// plus those of declared the rule holds back for their application. The
// caller must not modify the result.
func (e *Environment) For(declared []string) []string {
	env := e.common
	added := false
	for _, name := range declared {
		if kv, ok := e.held[strings.ToUpper(name)]; ok {
			if !added {
				env = slices.Clone(e.common[:len(e.common)-1])
				added = true
			}
			env = append(env, kv)
		}
	}
	if added {
		env = append(env, "LLMFORMAT=1")
	}
	return slices.Clip(env)
}

// Secrets returns the values a Redactor must hide: those of every variable
// the rule found secret, whether it removed it or kept it.
func (e *Environment) Secrets() []string { return slices.Clone(e.secrets) }

// Scrubbed returns the names of the variables removed from every command's
// environment, sorted; For gives an application back those it declares.
func (e *Environment) Scrubbed() []string { return slices.Clone(e.scrubbed) }

// Kept returns the names of the variables kept on purpose (EnvRule.Keep)
// although the rule would remove them, sorted.
func (e *Environment) Kept() []string { return slices.Clone(e.kept) }

// HeldFor returns which of declared the rule removes but an application
// declaring them gets back: what the tools listing and the startup log say
// is kept for the app.
func (e *Environment) HeldFor(declared []string) []string {
	var out []string
	for _, name := range declared {
		if kv, ok := e.held[strings.ToUpper(name)]; ok {
			out = append(out, envName(kv))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Environ returns base under the rule with scrub as EnvRule.Scrub, for a
// command of an application that declares no variable: NewEnvironment's
// For(nil).
func Environ(base []string, scrub []string) []string {
	return NewEnvironment(base, EnvRule{Scrub: scrub}).For(nil)
}

// SecretValues returns the values, in base, that a Redactor must hide
// under the rule with scrub as EnvRule.Scrub: NewEnvironment's Secrets.
func SecretValues(base []string, scrub []string) []string {
	return NewEnvironment(base, EnvRule{Scrub: scrub}).Secrets()
}

func upperSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, name := range names {
		set[strings.ToUpper(name)] = true
	}
	return set
}

func envName(kv string) string {
	name, _, _ := strings.Cut(kv, "=")
	return name
}

// withPWD makes PWD name the directory the child starts in. Programs and
// shells trust PWD over getcwd when both name the same place; a stale PWD
// inherited from the server would make them report or use the wrong one.
func withPWD(env []string, dir string) []string {
	var (
		pwd string
		err error
	)
	if dir == "" {
		pwd, err = serverDir()
	} else {
		pwd, err = filepath.Abs(dir)
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if envName(kv) != "PWD" {
			out = append(out, kv)
		}
	}
	if err != nil {
		return out
	}
	return append(out, "PWD="+pwd)
}

// serverDir returns what os.Getwd would: the server's $PWD when it names the
// working directory, otherwise the directory getcwd(2) reports. It is asked
// on every run (the server may have changed directory since the last one),
// so it takes the short way when the answer is certain: getcwd alone, when
// $PWD is unset, relative, or the very same path. Only a $PWD that differs
// (a path through a symbolic link, or a stale one) needs os.Getwd's two
// stat calls to tell whether it still names the directory.
func serverDir() (string, error) {
	dir, err := syscall.Getwd()
	if err == nil {
		if pwd := os.Getenv("PWD"); pwd == "" || pwd[0] != '/' || pwd == dir {
			return dir, nil
		}
	}
	return os.Getwd()
}
