package listing

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// EnvReport is what the scrubbing rule does to the server's environment,
// by name only, never a value: `tools` prints it and serve logs it at
// startup, so the operator sees what the commands will and will not get.
type EnvReport struct {
	Rule string `json:"rule"`
	// Scrubbed is removed from every command's environment.
	Scrubbed []string `json:"scrubbed"`
	// Kept are kept on purpose (--keep-env) although the rule removes them.
	Kept []string `json:"kept"`
	// Apps are, per app (its prefix, else its binary's name), the
	// variables the rule would remove that the app declares for its own
	// flags: kept for its commands, removed from the other apps'.
	Apps map[string][]string `json:"apps"`
}

// Environment reports what env, the commands' environment, does for the
// apps whose tools set holds.
func Environment(set *exposure.ToolSet, apps []exposure.App, env *execrunner.Environment) EnvReport {
	r := EnvReport{Rule: execrunner.RuleText, Kept: nonNil(env.Kept()), Apps: map[string][]string{}}
	declared := map[string]bool{}
	for _, app := range apps {
		for _, t := range AppTools(set, app, apps) {
			if d, ok := t.(exposure.EnvDeclarer); ok {
				held := env.HeldFor(d.Envars())
				if len(held) > 0 {
					r.Apps[AppLabel(t, apps)] = held
				}
				for _, name := range held {
					declared[name] = true
				}
				break
			}
		}
	}
	r.Scrubbed = []string{}
	for _, name := range env.Scrubbed() {
		if !declared[name] {
			r.Scrubbed = append(r.Scrubbed, name)
		}
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Write prints the report under the tools table.
func (r EnvReport) Write(w io.Writer) error {
	list := func(names []string) string {
		if len(names) == 0 {
			return "none"
		}
		return strings.Join(names, ", ")
	}
	_, err := fmt.Fprintf(w, "\nenvironment of the commands\n  rule: %s\n  scrubbed: %s\n  kept by --keep-env: %s\n", r.Rule, list(r.Scrubbed), list(r.Kept))
	for app, names := range r.Apps {
		if err == nil {
			_, err = fmt.Fprintf(w, "  kept for app %s, which declares them: %s\n", app, list(names))
		}
	}
	return err
}

// Log writes the report as one short startup line: the names, and where
// the rule is shown in full (fisk-mcp tools), leaving out what is empty.
func (r EnvReport) Log(log *slog.Logger) {
	var attrs []any
	if len(r.Scrubbed) > 0 {
		attrs = append(attrs, "scrubbed", r.Scrubbed)
	}
	if len(r.Kept) > 0 {
		attrs = append(attrs, "kept", r.Kept)
	}
	if len(r.Apps) > 0 {
		attrs = append(attrs, "kept_for_apps", r.Apps)
	}
	log.Info(fmt.Sprintf("environment: %d variables scrubbed as credentials; fisk-mcp tools --json shows the rule", len(r.Scrubbed)), attrs...)
}
