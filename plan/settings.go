package plan

import (
	"fmt"
	"strconv"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// bind describes every setting p carries, once, each bound to the field of
// p it fills, in the order of --help: the selection (serve, tools and
// config), then what only a running server needs. Adding a setting is one
// entry here and its line in config.schema.json (a test keeps the two in
// step).
func (p *Plan) bind() *settings.Set {
	list := []*settings.Setting{
		{Name: "config", PlaceHolder: "FILE", Path: true, FlagOnly: true, Value: &p.ConfigFile,
			Help: "YAML file with the same settings: keys are the flag names with _ (confirm_tag, token_file, ...), lists for repeatable flags, and apps: [{path, prefix, global_flag, include, exclude, include_tag, exclude_tag}] whose selection applies to that app only; relative paths in it are relative to the file, and an app path without a slash is looked up in PATH; flags override it and repeatable flags add to it"},
		{Name: "include", PlaceHolder: "REGEX", Singular: true, Value: &p.include,
			Help: "Serve only tools whose name matches this regular expression (repeatable; any match keeps a tool)"},
		{Name: "exclude", PlaceHolder: "REGEX", Singular: true, Value: &p.exclude,
			Help: "Never serve tools whose name matches this regular expression (repeatable; wins over --include)"},
		{Name: "include-tag", PlaceHolder: "TAG", Value: &p.Policy.IncludeTags,
			Help: "Serve only tools carrying this tag themselves (repeatable; a tag inherited from a group does not include a tool; an empty value matches tools with no tags of their own)"},
		{Name: "exclude-tag", PlaceHolder: "TAG", Value: &p.Policy.ExcludeTags,
			Help: "Never serve tools carrying this tag, on the command or on any group above it (repeatable; an empty value excludes tools with no tags of their own)"},
		{Name: "confirm-tag", PlaceHolder: "TAG", Value: &p.Policy.ConfirmTags,
			Help: "Require a person's approval, through the client, for tools carrying this tag, in addition to ai:confirm (repeatable)"},
		{Name: "read-only-tag", PlaceHolder: "TAG", Value: &p.Policy.ReadOnlyTags,
			Help: "Treat this application tag like ai:read_only (repeatable)"},
		{Name: "additive-tag", PlaceHolder: "TAG", Value: &p.Policy.AdditiveTags,
			Help: "Treat this application tag like ai:additive (repeatable)"},
		{Name: "destructive-tag", PlaceHolder: "TAG", Value: &p.Policy.DestructiveTags,
			Help: "Treat this application tag like ai:destructive (repeatable)"},
		{Name: "idempotent-tag", PlaceHolder: "TAG", Value: &p.Policy.IdempotentTags,
			Help: "Treat this application tag like ai:idempotent (repeatable)"},
		{Name: "global-flag", PlaceHolder: "NAME", Value: &p.globalFlags,
			Help: "Expose this application-level flag of every app as a tool argument; required ones always are (repeatable)"},
		{Name: "secret-flag", PlaceHolder: "NAME", Value: &p.Policy.SecretFlags,
			Help: "Treat this flag's value as a secret: hidden (--NAME=[redacted]) in every command line shown to a person, in the log and in results, in addition to flags whose names say they carry one (password, token, secret, creds, nkey, seed, jwt, private-key, ...); the command still gets the value (repeatable)"},
		{Name: "scrub-env", PlaceHolder: "NAME", Singular: true, Value: &p.ScrubEnv,
			Help: "Remove this environment variable from the commands' environment and redact its value from their output, whatever else the scrubbing rule says (repeatable)"},
		{Name: "keep-env", PlaceHolder: "NAME", Singular: true, Value: &p.KeepEnv,
			Help: "Keep this environment variable in the commands' environment although the scrubbing rule would remove it (names like *TOKEN*, *SECRET*, *_KEY, URLs with a password, agent sockets); its value is still redacted from output (repeatable)"},
		{Name: "schema", Default: "restricted", Enum: []string{"restricted", "full"}, Value: (*string)(&p.Policy.Schema),
			Help: "Input schemas to advertise: restricted (what LLM tool APIs accept) or full (every constraint fisk knows)"},
		{Name: "defer", Default: string(server.DeferAuto), Enum: []string{string(server.DeferAuto), string(server.DeferAlways), string(server.DeferNever)}, Value: (*string)(&p.Defer),
			Help: "List only the ai:no_defer tools and the discovery tools (search_tools, describe_tools, call_read_only_tool, call_tool) instead of every tool: auto (when more than --defer-threshold tools are served, judged again on every reload), always or never; every tool stays callable by name"},
		{Name: "defer-threshold", PlaceHolder: "N", Default: strconv.Itoa(server.DefaultDeferThreshold), Value: &p.DeferThreshold,
			Help: "With --defer auto, defer when more than this many tools are served (VS Code takes at most 128 tools, Cursor 80, Windsurf 50, over all servers)"},
		{Name: "log-level", Default: "info", Enum: []string{"debug", "info", "warn", "error"}, Value: &p.LogLevel,
			Help: "Log level: debug, info, warn or error"},
		{Name: "log-format", Default: "text", Enum: []string{"text", "json"}, Value: &p.LogFormat,
			Help: "Log format on stderr: text (coloured on a terminal) or json"},
	}
	if sp := p.Serving; sp != nil {
		list = append(list, []*settings.Setting{
			{Name: "http", Commands: serveOnly, PlaceHolder: "ADDR", Value: &sp.HTTP.Addr,
				Help: "Serve streamable HTTP on this address (endpoint /mcp, health check GET /healthz) instead of stdio; port 0 picks a free port, logged at startup"},
			{Name: "metrics", PlaceHolder: "ADDR", Value: &sp.Metrics,
				Help: "Serve Prometheus metrics at GET /metrics on this address, over stdio as over HTTP (127.0.0.1:9464; docs/telemetry.md); a port already taken, as by another stdio server, is a warning; a non-loopback address needs the token of --token-file or FISK_MCP_TOKEN, as /mcp does, unless --insecure-no-auth"},
			{Name: "trace-command-line", Value: &sp.TraceCommandLine,
				Help: "Put each call's command line, redacted as the log writes it, on its trace span (fisk_mcp.command_line); off by default: arguments may say more than a trace backend should hold"},
			{Name: "stateless", Commands: serveOnly, Value: &sp.HTTP.Stateless,
				Help: "Serve HTTP without sessions (approval then cannot be asked of legacy clients, so gated tools are refused to them)"},
			{Name: "token-file", Commands: serveOnly, PlaceHolder: "FILE", Path: true, Value: &sp.tokenFile,
				Help: "File holding the bearer token HTTP clients must send, at least 16 characters (openssl rand -hex 32); the FISK_MCP_TOKEN environment variable may hold the token itself instead"},
			{Name: "oauth-issuer", Commands: serveOnly, PlaceHolder: "URL", Value: &sp.HTTP.OAuth.Issuer,
				Help: "Admit HTTP clients with OAuth access tokens of this authorization server (its issuer identifier, as its tokens' iss claim writes it) instead of a shared token: fisk-mcp serves the protected resource metadata that leads clients to it and checks each token's signature, issuer, audience and expiry"},
			{Name: "oauth-resource", Commands: serveOnly, PlaceHolder: "URL", Value: &sp.HTTP.OAuth.Resource,
				Help: "With --oauth-issuer: this server's resource identifier, the URL clients connect to (https://mcp.example.com/mcp), which every token's audience must name; required unless --http is a loopback address, where it defaults to http://ADDR/mcp"},
			{Name: "oauth-audience", Commands: serveOnly, PlaceHolder: "AUD", Value: &sp.HTTP.OAuth.Audiences,
				Help: "With --oauth-issuer: an audience a token may name instead of the resource URL (repeatable), for authorization servers that write another identifier there, such as Microsoft Entra ID's application ID (docs/teams.md)"},
			{Name: "oauth-scope", Commands: serveOnly, PlaceHolder: "SCOPE", Value: &sp.HTTP.OAuth.Scopes,
				Help: "With --oauth-issuer: a scope every access token must hold (repeatable); a token without it gets 403 insufficient_scope"},
			{Name: "policy", PlaceHolder: "FILE", Path: true, Value: &sp.PolicyFile,
				Help: "Decide per caller which tools it may list and call, by this Cedar policy file (docs/teams.md): with it, nothing is allowed that a policy does not permit; validated at start against policy/schema.cedarschema and reloaded with the binaries (--watch, SIGHUP)"},
			{Name: "policy-groups-claim", PlaceHolder: "CLAIM", Value: &sp.PolicyClaims.Groups,
				Help: "With --policy: the token claim holding the caller's groups (default groups; roles for providers that call them so)"},
			{Name: "policy-email-claim", PlaceHolder: "CLAIM", Value: &sp.PolicyClaims.Email,
				Help: "With --policy: the token claim holding the caller's email (default email)"},
			{Name: "policy-username-claim", PlaceHolder: "CLAIM", Value: &sp.PolicyClaims.Username,
				Help: "With --policy: the token claim holding the caller's user name (default preferred_username)"},
			{Name: "allow-origin", Commands: serveOnly, PlaceHolder: "ORIGIN", Value: &sp.HTTP.AllowOrigins,
				Help: "Accept browser requests from this Origin (repeatable); other cross-origin requests are refused"},
			{Name: "allow-host", Commands: serveOnly, PlaceHolder: "HOST", Value: &sp.HTTP.AllowHosts,
				Help: "Accept HTTP requests naming this host in their Host header (repeatable); without a token, a non-loopback server answers only its IP addresses and the host of --http, so that web pages cannot reach it through DNS rebinding; with a token, listing hosts turns that check on"},
			{Name: "insecure-no-auth", Commands: serveOnly, Value: &sp.HTTP.InsecureNoAuth,
				Help: "Allow serving HTTP on a non-loopback address without a token"},
			{Name: "max-sessions", Commands: serveOnly, Default: strconv.Itoa(server.DefaultMaxSessions), Value: &sp.HTTP.MaxSessions,
				Help: "Most HTTP sessions held at once (an idle one costs about 15 KiB of memory); a client opening one more gets 503 until a session is deleted or expires after 30 minutes idle"},
			{Name: "timeout", Default: server.DefaultTimeout.String(), Value: &sp.Server.Timeout,
				Help: "Longest a command may run before its process group is killed"},
			{Name: "raw-output", Value: &sp.Server.RawOutput,
				Help: "Hand commands' output to clients as written, escape sequences and control characters included; by default they are removed (newline and tab kept) and bidirectional overrides replaced"},
			{Name: "concurrency", Default: strconv.Itoa(server.DefaultConcurrency), Value: &sp.Server.Concurrency,
				Help: "Most commands running at once; further calls wait for a slot"},
			{Name: "client-concurrency", Value: &sp.Server.ClientConcurrency,
				Help: "Most commands one HTTP client (a session; without sessions, an address and token) may run at once, so that no client can hold every slot; default half of --concurrency, rounded up"},
			{Name: "approval", Default: string(elicit.ModeElicit), Enum: modeNames(), Value: (*string)(&sp.Approval.Mode),
				Help: "How a person approves gated calls: elicit (through the client; refused when it cannot ask), browser (always in the person's browser, for clients that declare elicitation but drop or auto-decline it) or elicit-or-browser (through the client when it can, else in the browser); a decline through the client is final"},
			{Name: "approval-opener", PlaceHolder: "CMD", Value: &sp.approvalOpener,
				Help: "Command that opens the approval page, its words separated by spaces, the page's address appended (default xdg-open, or open on macOS); it runs without a shell"},
			{Name: "approver-token-file", PlaceHolder: "FILE", Path: true, Value: &sp.approverTokenFile,
				Help: "For a shared HTTP server without --oauth-issuer: file holding the token a person enters at /approvals to list and decide pending approvals, at least 16 characters and not the clients' token; without it, approvals open on this machine's desktop"},
			{Name: "approvals-client-id", Commands: serveOnly, PlaceHolder: "ID", Value: &sp.approvalsClientID,
				Help: "With --oauth-issuer: the OAuth client ID of the /approvals page, which signs people in with the authorization server (authorization code with PKCE; register the redirect URI ORIGIN/approvals/callback, ORIGIN that of --oauth-resource); who may approve what is the policy's approve action, and without --policy anyone signed in but the caller"},
			{Name: "approvals-client-secret-file", Commands: serveOnly, PlaceHolder: "FILE", Path: true, Value: &sp.approvalsSecretFile,
				Help: "With --approvals-client-id: file holding the page's client secret, for a confidential client; without it the page is a public client"},
			{Name: "elicit-timeout", PlaceHolder: "DURATION", Value: &sp.Approval.Timeout,
				Help: fmt.Sprintf("Longest to wait for a person to approve a gated call; no answer is a refusal (default %s through the client, %s in the browser, where the call waits inside the client's request, which most clients abandon after %s)", elicit.DefaultTimeout, elicit.DefaultBrowserTimeout, elicit.ClientRequestTimeout)},
			{Name: "name", Value: &sp.Server.Name,
				Help: "Server name shown to clients and in approval prompts (default fisk-mcp)"},
			{Name: "instructions", PlaceHolder: "TEXT", Value: &sp.Server.Instructions,
				Help: "Instructions for the model, sent to clients at initialization"},
			{Name: "output-schema", Value: &sp.Server.OutputSchema,
				Help: "Advertise the command result's JSON schema as every command tool's outputSchema; off by default, since models never see it and some clients compile a validator per tool on every tools/list (results carry structuredContent either way)"},
			{Name: "search-requests", PlaceHolder: "FILE", Path: true, Singular: true, Value: &sp.SearchRequestFiles,
				Help: "YAML or JSON file of what people ask of an application's commands in their own words, which search_tools also matches (repeatable): application: NAME (the name it gives itself, such as nats) and commands: {COMMAND PATH: [REQUEST, ...]}, a path without the application's name (stream ls); nats's are built in"},
			{Name: "watch", Value: &sp.Watch,
				Help: "Reload the tools when an app binary changes or on SIGHUP; clients are told the list changed"},
			{Name: "state-key-file", PlaceHolder: "FILE", Path: true, Value: &sp.StateKeyFile,
				Help: "File holding the key that signs approval state, hex (openssl rand -hex 32) or raw random bytes; share it between replicas behind one load balancer; default: a random key per process"},
			{Name: "replay-store", PlaceHolder: "URL", Default: natsstore.Memory, Value: &sp.ReplayStore,
				Help: "Where the record of used approvals is kept, so that each approval runs at most once: memory (this process only; states issued before it started are refused) or nats://HOST:PORT, a NATS JetStream server shared by every replica with one --state-key-file; when the store cannot be reached approvals are refused and ungated tools still work. Its account must not be reachable by the served tools"},
			{Name: "replay-store-bucket", PlaceHolder: "NAME", Default: natsstore.DefaultBucket, Value: &sp.Replay.Bucket,
				Help: "JetStream key-value bucket of the replay store, created (file storage, per-key TTL) when absent"},
			{Name: "replay-store-creds", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.CredsFile,
				Help: "NATS credentials file (user JWT and seed) for the replay store"},
			{Name: "replay-store-nkey", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.NKeySeedFile,
				Help: "File holding the NATS nkey seed for the replay store"},
			{Name: "replay-store-user", PlaceHolder: "USER", Value: &sp.Replay.User,
				Help: "NATS user for the replay store, with --replay-store-password-file"},
			{Name: "replay-store-password-file", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.PasswordFile,
				Help: "File holding the password of --replay-store-user"},
			{Name: "replay-store-tls-ca", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.TLSCA,
				Help: "CA bundle that verifies the replay store's NATS server"},
			{Name: "replay-store-tls-cert", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.TLSCert,
				Help: "TLS client certificate for the replay store, with --replay-store-tls-key"},
			{Name: "replay-store-tls-key", PlaceHolder: "FILE", Path: true, Value: &sp.Replay.TLSKey,
				Help: "Key of --replay-store-tls-cert"},
			{Name: "replay-store-context", PlaceHolder: "NAME", Value: &sp.Replay.Context,
				Help: "NATS CLI context (a name saved by nats context save, or a context file's path) supplying the replay store's URL and credentials that the flags above leave unset; the NATS_* environment variables and the selected context are never used"},
		}...)
	}
	return &settings.Set{List: list}
}

// serveOnly is the Commands of the settings of streamable HTTP: config and
// bundle make clients start the server over stdio.
var serveOnly = []string{"serve"}

// modeNames are the values of --approval.
func modeNames() []string {
	names := make([]string, len(elicit.Modes))
	for i, m := range elicit.Modes {
		names[i] = string(m)
	}
	return names
}
