package main

import (
	"log/slog"

	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/listing"
	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// announce logs what is being served, so an operator reading stderr knows
// which tools exist, which are gated and how gating behaves, and, for HTTP,
// where to connect. The token is never printed: only a placeholder.
func announce(log *slog.Logger, p *plan.Plan, l plan.Loader, set *exposure.ToolSet, addr string) {
	sp := p.Serving
	for _, w := range set.Warnings() {
		log.Warn(w)
	}
	listing.LogApps(log, set, l.Apps)
	if r := sp.Server.SearchRequests; r.Len() > 0 {
		log.Info("search_tools also matches the requests given", "requests", r.Len())
		if unused := r.Unused(set); len(unused) > 0 {
			shown := unused[:min(len(unused), 10)]
			log.Warn("requests were given for commands no served tool runs, and are not used: check each command path (the command without the application's name, such as stream ls) and the application's name", "commands", shown, "of", len(unused))
		}
	}
	gated := listing.Gated(set)
	log.Info("tools ready", "tools", set.Len(), "gated", len(gated))
	listing.Assess(set, l.Policy).Log(log)
	listing.Environment(set, l.Apps, l.Env).Log(log)
	if len(gated) > 0 {
		how, wait := approvalHow(sp)
		log.Info("gated tools need a person's approval", "tools", gated, "how", how, "wait", wait)
	}
	if addr != "" && sp.SharesApprovals() {
		log.Info("approvals are decided on the approval page, "+sp.ApproverSignIn(), "url", "http://"+server.ConnectAddr(addr)+"/approvals")
	}
	if addr == "" {
		log.Info("serving MCP over stdio", "timeout", sp.Server.Timeout, "concurrency", sp.Server.Concurrency)
		return
	}
	url := "http://" + server.ConnectAddr(addr) + "/mcp"
	log.Info("serving MCP over streamable HTTP", "url", url, "healthz", "http://"+server.ConnectAddr(addr)+"/healthz",
		"stateless", sp.HTTP.Stateless, "auth", sp.HTTP.Token != "", "timeout", sp.Server.Timeout, "concurrency", sp.Server.Concurrency)
	argv := []string{"mcp", "add", "--transport", "http", clients.ServerKey(sp.Server.Name, p.Apps), url}
	if sp.HTTP.Token != "" {
		argv = append(argv, "--header", "Authorization: Bearer ...")
	}
	if sp.HTTP.Token == "" {
		log.Info("add it to Claude Code", "command", execrunner.DisplayCommandLine("claude", argv))
		return
	}
	log.Info("add it to Claude Code", "command", execrunner.DisplayCommandLine("claude", argv),
		"note", "replace ... with the bearer token from "+tokenSource(sp))
}

func tokenSource(sp *plan.Serving) string {
	if sp.TokenFromFile {
		return "--token-file"
	}
	return execrunner.TokenEnvVar
}

// approvalHow says how gated calls reach a person under sp, and how long
// they wait.
func approvalHow(sp *plan.Serving) (how, wait string) {
	a := sp.Approval
	elicitWait, browserWait := a.Timeout, a.Timeout
	if a.Timeout == 0 {
		elicitWait, browserWait = elicit.DefaultTimeout, elicit.DefaultBrowserTimeout
	}
	page := "a page opened in this machine's browser"
	if sp.SharesApprovals() {
		page = "the approval page of this server (/approvals, " + sp.ApproverSignIn() + ")"
	}
	switch a.Mode {
	case elicit.ModeBrowser:
		return "each call waits for a click on Approve on " + page + " and runs only then; the client is never asked", browserWait.String()
	case elicit.ModeElicitOrBrowser:
		return "each call asks the person through the client's elicitation, or, when the client cannot ask, on " + page + "; it runs only on approval, and a decline through the client is final", elicitWait.String() + " through the client, " + browserWait.String() + " in the browser"
	}
	if sp.HTTP.Stateless {
		return "each call asks the person through the client's elicitation and runs only on approval; stateless HTTP cannot ask clients older than 2026-07-28, so they are refused", elicitWait.String()
	}
	return "each call asks the person through the client's elicitation and runs only on approval; clients that cannot ask are refused", elicitWait.String()
}
