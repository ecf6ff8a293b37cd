// The contract tools on the TypeScript SDK v2 (@modelcontextprotocol/server 2.x McpServer),
// served by createMcpHandler behind node:http at /mcp on 127.0.0.1 (--port N, or env PORT),
// the way the v2 docs mount it: the 2026-07-28 revision per request, and 2025-era traffic by the
// default stateless legacy fallback (no Mcp-Session-Id; GET/DELETE answer 405).
import { createServer } from "node:http";
import { parseArgs } from "node:util";

import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

// What a user's server would call itself: nothing in it names the SDK.
const SERVER_NAME = "acme-tools";
const SERVER_VERSION = "1.4.0";
const { values } = parseArgs({ options: { port: { type: "string" } }, strict: false });
const port = Number(values.port ?? process.env.PORT ?? 8000);
const count = z.object({ count: z.number() });

function factory() {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
  server.registerTool(
    "echo",
    { description: "Echo the text back.", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "broken_schema",
    {
      description: "Declares an output schema but returns no structured content.",
      inputSchema: z.object({ query: z.string() }),
      outputSchema: count,
    },
    async ({ query }) => ({ content: [{ type: "text", text: `no structure for ${query}` }] }),
  );
  server.registerTool(
    "wrong_type",
    {
      description: 'Declares {"count": number} and returns {"count": "three"}.',
      inputSchema: z.object({ query: z.string() }),
      outputSchema: count,
    },
    async () => ({
      content: [{ type: "text", text: '{"count": "three"}' }],
      structuredContent: { count: "three" },
    }),
  );
  server.registerTool(
    "bad_content",
    {
      description: 'Returns a content block of a type MCP does not have ({"type": "json"}).',
      inputSchema: z.object({ query: z.string() }),
    },
    async ({ query }) => ({ content: [{ type: "json", json: { query } }] }),
  );
  server.registerTool(
    "slow",
    { description: "Sleeps that long, then answers.", inputSchema: z.object({ seconds: z.number() }) },
    async ({ seconds }) => {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      return { content: [{ type: "text", text: `slept ${seconds} s` }] };
    },
  );
  server.registerTool(
    "fails",
    { description: "Throws an error with the message.", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => {
      throw new Error(message);
    },
  );
  return server;
}

const handler = toNodeHandler(
  createMcpHandler(factory, { onerror: (error) => console.error("ts_v2:", error.message) }),
  { onerror: (error) => console.error("ts_v2 adapter:", error) },
);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const server = createServer(async (req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
    res.writeHead(404).end("Not Found");
    return;
  }
  await handler(req, res);
});
server.on("error", (error) => {
  console.error(`ts_v2: cannot listen on 127.0.0.1:${port}:`, error);
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => {
  console.error(`ts_v2: listening on http://127.0.0.1:${port}/mcp`);
});
