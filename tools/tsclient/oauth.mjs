// Signs in to an MCP server that asks for OAuth, as a client built on the
// official TypeScript SDK does (Claude Code, VS Code, the MCP Inspector,
// ...), with the SDK's own OAuth flow: the 401 names the protected resource
// metadata, which names the authorization server; the client reads that
// server's metadata, registers itself (RFC 7591), sends the person's
// browser to the authorization endpoint with PKCE and the RFC 8707
// resource, takes the code at its loopback callback, exchanges it for a
// token, and connects again with it. Then it lists the tools and makes the
// calls given.
//
//   node oauth.mjs URL OPENER CALLS
//
// OPENER is a program run with the authorization URL, the person's browser
// (the SDK leaves opening it to the application). CALLS is a JSON array of
// {"name": ..., "arguments": {...}}. Everything is reported on stdout as
// JSON lines: {"fetch": "METHOD URL"} for each request the SDK makes,
// {"registered": CLIENT_ID}, {"tools": [NAMES]}, and per call {"call": NAME,
// "isError": ..., "text": ...} or {"call": NAME, "error": MESSAGE}. It
// exits 1, saying why on stderr, when the sign-in fails. See README.md.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [url, opener, calls = "[]"] = process.argv.slice(2);
if (!url || !opener) {
  console.error("usage: node oauth.mjs URL OPENER [CALLS]");
  process.exit(2);
}
const report = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// The loopback callback the authorization server sends the browser back
// to, with the code, or with the error it refused with.
let codeArrived;
const code = new Promise((resolve, reject) => { codeArrived = { resolve, reject }; });
const callback = createServer((req, res) => {
  const q = new URL(req.url, "http://127.0.0.1").searchParams;
  if (q.get("code") && q.get("state") === kept.state) {
    res.end("Signed in; you may close this window.");
    codeArrived.resolve(q.get("code"));
  } else {
    res.statusCode = 400;
    res.end("Sign-in failed.");
    codeArrived.reject(new Error(q.get("error")
      ? `the authorization server answered ${q.get("error")}: ${q.get("error_description")}`
      : "the callback's state is not the one sent"));
  }
});
await new Promise((resolve) => callback.listen(0, "127.0.0.1", resolve));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;

// An OAuthClientProvider that keeps everything in memory, as a one-shot
// run needs nothing kept.
const kept = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: "fisk-mcp oauth.mjs", redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  // Hydra refuses a request without a state of 8 characters or more.
  state: () => (kept.state = randomBytes(16).toString("hex")),
  clientInformation: () => kept.client,
  saveClientInformation: (info) => { kept.client = info; report({ registered: info.client_id }); },
  tokens: () => kept.tokens,
  saveTokens: (tokens) => { kept.tokens = tokens; },
  saveCodeVerifier: (v) => { kept.verifier = v; },
  codeVerifier: () => kept.verifier,
  redirectToAuthorization: (authorizationUrl) => {
    spawn(opener, [authorizationUrl.href], { stdio: "ignore" }).on("error", (err) => codeArrived.reject(err));
  },
};

const recordingFetch = (input, init) => {
  report({ fetch: `${init?.method ?? "GET"} ${input instanceof Request ? input.url : String(input)}` });
  return fetch(input, init);
};
const transport = () => new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch });
const client = new Client({ name: "fisk-mcp-oauth", version: "1" });

try {
  const first = transport();
  try {
    await client.connect(first);
    throw new Error("the server admitted a client without a token");
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  await first.finishAuth(await code);
  await client.connect(transport());
  const { tools } = await client.listTools();
  report({ tools: tools.map((t) => t.name) });
  for (const call of JSON.parse(calls)) {
    try {
      const res = await client.callTool(call);
      report({ call: call.name, isError: !!res.isError, text: res.content.map((c) => c.text ?? "").join("\n") });
    } catch (err) {
      report({ call: call.name, error: err.message });
    }
  }
  await client.close();
} catch (err) {
  console.error(`oauth.mjs: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  callback.close();
}
