// Times the official TypeScript SDK client against `fisk-mcp serve`, with
// and without --output-schema, alternating in one run: connect (start,
// introspection and the handshake), the first tools/list and a second one.
// See README.md.
//
//   node bench.mjs ROUNDS FISK_MCP SERVE_ARGS... APP
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rounds, fiskMCP, ...serveArgs] = process.argv.slice(2);
if (!fiskMCP || serveArgs.length === 0) {
  console.error("usage: node bench.mjs ROUNDS FISK_MCP SERVE_ARGS... APP");
  process.exit(2);
}
const modes = { "default": [], "--output-schema": ["--output-schema"] };
const runs = {};
for (let r = 0; r < Number(rounds); r++) {
  for (const [mode, extra] of Object.entries(modes)) {
    const t0 = performance.now();
    const transport = new StdioClientTransport({ command: fiskMCP, args: ["serve", ...extra, ...serveArgs], stderr: "ignore" });
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
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
for (const [mode, m] of Object.entries(runs)) {
  console.log(`${mode}: ${m.tools} tools, result ${m.bytes} bytes; median ms over ${rounds}: ` +
    `connect ${median(m.connect)}, first tools/list ${median(m.first)}, second ${median(m.second)}, connect + first list ${median(m.total)}`);
}
