// Times the official TypeScript SDK client against `fisk-mcp serve`,
// alternating in one run: the bare `APP --fisk-introspect` (the floor: no
// server can answer before the binary has described itself), then for
// each mode connect (start, introspection and the handshake), the first
// tools/list and a second one. The modes are the arguments as given
// (deferred, for a large CLI with the default settings), `--defer never`
// and `--defer never --output-schema`, so SERVE_ARGS set neither; each
// is started first with nothing kept (a first start: the cache fisk-mcp
// keeps the first list and the binary's hash in is removed), then again,
// finding what that start kept (a restart, as a person's client does on
// every launch). The cache is the bench's own, removed at the end. See
// README.md.
//
// FISK_MCP may name several builds as NAME=PATH,NAME=PATH (before=...,
// after=...): each round then runs every mode for each build in turn, so
// one run compares them on the same machine at the same time.
//
//   node bench.mjs ROUNDS FISK_MCP SERVE_ARGS... APP
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rounds, fiskMCP, ...serveArgs] = process.argv.slice(2);
if (!fiskMCP || serveArgs.length === 0) {
  console.error("usage: node bench.mjs ROUNDS FISK_MCP SERVE_ARGS... APP");
  process.exit(2);
}
const app = serveArgs[serveArgs.length - 1];
const builds = fiskMCP.includes("=")
  ? fiskMCP.split(",").map((b) => b.split(/=(.*)/s).slice(0, 2))
  : [["", fiskMCP]];
const modes = {
  "as given": [],
  "--defer never": ["--defer", "never"],
  "--defer never --output-schema": ["--defer", "never", "--output-schema"],
};

// introspect runs the app as a load does and resolves with the time it
// took to print its description and exit.
function introspect() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(app, ["--fisk-introspect"], { stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => { bytes += chunk.length; });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || bytes === 0) reject(new Error(`${app} --fisk-introspect: exit ${code}, ${bytes} bytes`));
      else resolve(performance.now() - t0);
    });
  });
}

const cache = mkdtempSync(join(tmpdir(), "fisk-mcp-tsclient-bench-"));
const env = { ...process.env, XDG_CACHE_HOME: cache };
const floor = [];
const runs = {};
for (let r = 0; r < Number(rounds); r++) {
  floor.push(await introspect());
  for (const [given, extra] of Object.entries(modes)) for (const start of ["first start", "restart"]) for (const [build, bin] of builds) {
    const mode = `${build ? build + ": " : ""}${given}, ${start}`;
    if (start === "first start") rmSync(join(cache, "fisk-mcp"), { recursive: true, force: true });
    const t0 = performance.now();
    // The modes set --defer and --output-schema themselves: SERVE_ARGS must
    // not (fisk-mcp refuses a flag given twice).
    const transport = new StdioClientTransport({ command: bin, args: ["serve", ...extra, ...serveArgs], env, stderr: "ignore" });
    const client = new Client({ name: "fisk-mcp-tsclient-bench", version: "1.0.0" });
    await client.connect(transport);
    const t1 = performance.now();
    const first = await client.listTools();
    const t2 = performance.now();
    await client.listTools();
    const t3 = performance.now();
    await client.close();
    const m = (runs[mode] ??= { connect: [], first: [], second: [], total: [] });
    m.connect.push(t1 - t0); m.first.push(t2 - t1); m.second.push(t3 - t2); m.total.push(t2 - t0);
    m.tools = first.tools.length;
    m.bytes = Buffer.byteLength(JSON.stringify(first));
  }
}
rmSync(cache, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => x.toFixed(1);
const base = median(floor);
console.log(`bare ${app} --fisk-introspect: median ${ms(base)} ms over ${rounds}`);
for (const [mode, m] of Object.entries(runs)) {
  const total = median(m.total);
  console.log(`${mode}: ${m.tools} tools, result ${m.bytes} bytes; median ms over ${rounds}: ` +
    `connect ${ms(median(m.connect))}, first tools/list ${ms(median(m.first))}, second ${ms(median(m.second))}, ` +
    `connect + first list ${ms(total)} (${(total / base).toFixed(2)}x the bare introspection)`);
}
