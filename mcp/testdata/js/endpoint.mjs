// Drives stategraph's /mcp endpoint with the official TypeScript MCP
// client (see server/mcp_ts_test.go): node endpoint.mjs URL USER
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, user] = process.argv.slice(2);

async function connect(headers) {
  const client = new Client({ name: "stategraph-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

// Without credentials the server's auth hook refuses the connection.
await assert.rejects(connect({}), "a client without X-User must be refused");

const client = await connect({ "X-User": user });
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ["echo", "gate", "review"]);
const echo = tools.find((t) => t.name === "echo");
assert.equal(echo.inputSchema.type, "object");
assert.ok(echo.inputSchema.properties.input, "the graph's input field is in the schema");
assert.match(echo.description, /assistant "echo"/);

const ok = await client.callTool({ name: "echo", arguments: { input: "from typescript" } });
assert.ok(!ok.isError, JSON.stringify(ok));
assert.deepEqual(JSON.parse(ok.content[0].text), { input: "from typescript", replies: ["echo: from typescript"] });
assert.deepEqual(ok.structuredContent.replies, ["echo: from typescript"]);

const failed = await client.callTool({ name: "echo", arguments: { input: "fail" } });
assert.equal(failed.isError, true);
assert.match(failed.content[0].text, /echo was asked to fail/);

const bad = await client.callTool({ name: "echo", arguments: { nope: 1 } });
assert.equal(bad.isError, true);
assert.match(bad.content[0].text, /"nope"/);

const stopped = await client.callTool({ name: "review", arguments: { topic: "mcp" } });
assert.equal(stopped.isError, true);
assert.match(stopped.content[0].text, /stopped at an interrupt/);
assert.match(stopped.content[0].text, /publish\?/);

await client.close();
console.log("all ok");
