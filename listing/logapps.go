package listing

import (
	"log/slog"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// LogApps logs, for each of apps, how many of set's tools serve it, and
// warns about an app that serves none: serve says so at startup.
func LogApps(log *slog.Logger, set *exposure.ToolSet, apps []exposure.App) {
	for _, app := range apps {
		attrs := []any{"app", app.Path}
		if app.Prefix != "" {
			attrs = append(attrs, "prefix", app.Prefix)
		}
		tools := AppTools(set, app, apps)
		if len(tools) == 0 {
			warnNoTools(log, app)
			continue
		}
		log.Info("serving app", append(attrs, "tools", len(tools))...)
	}
}

// WarnEmptyApps warns about every app that exposes no tools in set, as
// LogApps does at startup; a reload calls it, since an upgraded binary can
// leave an app with no tools the selection keeps.
func WarnEmptyApps(log *slog.Logger, set *exposure.ToolSet, apps []exposure.App) {
	for _, app := range apps {
		if len(AppTools(set, app, apps)) == 0 {
			warnNoTools(log, app)
		}
	}
}

func warnNoTools(log *slog.Logger, app exposure.App) {
	attrs := []any{"app", app.Path}
	if app.Prefix != "" {
		attrs = append(attrs, "prefix", app.Prefix)
	}
	log.Warn("app exposes no tools; check --include, --exclude and the tag filters", attrs...)
}

// Gated names the tools of set a client can see that are gated.
func Gated(set *exposure.ToolSet) []string {
	var gated []string
	for _, t := range set.Tools() {
		if _, ok := Gate(t); ok && t.MCPExposable() {
			gated = append(gated, t.Name())
		}
	}
	return gated
}
