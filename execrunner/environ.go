package execrunner

import (
	"os"
	"path/filepath"
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
// removed from every child's environment. Applications' own credentials (a
// CLI's password or token variables) are not listed: the commands need them,
// and the operator names the rest with --scrub-env.
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

// Environ returns base without the variables named in CredentialVars and
// scrub, with LLMFORMAT=1 added (it asks fisk applications for output meant
// for a model). Names match case-insensitively: removing a differently-cased
// twin of a credential costs nothing, keeping it could leak it.
func Environ(base []string, scrub []string) []string {
	drop := scrubSet(scrub)
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		name := envName(kv)
		if drop[strings.ToUpper(name)] || name == "LLMFORMAT" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LLMFORMAT=1")
}

// SecretValues returns the values, in base, of the variables that Environ
// removes, when they are at least MinSecretLen characters long: the values a
// Redactor must hide, since a command may still come to know them (a config
// file, a credential helper) and print them.
func SecretValues(base []string, scrub []string) []string {
	drop := scrubSet(scrub)
	var values []string
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if drop[strings.ToUpper(name)] && utf8.RuneCountInString(value) >= MinSecretLen {
			values = append(values, value)
		}
	}
	return values
}

func scrubSet(scrub []string) map[string]bool {
	set := make(map[string]bool, len(CredentialVars)+len(scrub))
	for _, names := range [][]string{CredentialVars, scrub} {
		for _, name := range names {
			set[strings.ToUpper(name)] = true
		}
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
