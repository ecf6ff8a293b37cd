// The contract tools on the TypeScript SDK 1.x high-level McpServer (registerTool with zod
// schemas), served statefully with StreamableHTTPServerTransport at /mcp on 127.0.0.1
// (--port N, or env PORT). McpServer checks a tool's own result against its outputSchema, so
// broken_schema and wrong_type come back as isError results written by the SDK.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { serveStateful } from "./ts_http.mjs";

// What a user's server would call itself: nothing in it names the SDK.
const SERVER_NAME = "acme-tools";
const SERVER_VERSION = "1.4.0";
const count = { count: z.number() };

function createServer() {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
  server.registerTool(
    "echo",
    { description: "Echo the text back.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "broken_schema",
    {
      description: "Declares an output schema but returns no structured content.",
      inputSchema: { query: z.string() },
      outputSchema: count,
    },
    async ({ query }) => ({ content: [{ type: "text", text: `no structure for ${query}` }] }),
  );
  server.registerTool(
    "wrong_type",
    {
      description: 'Declares {"count": number} and returns {"count": "three"}.',
      inputSchema: { query: z.string() },
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
      inputSchema: { query: z.string() },
    },
    async ({ query }) => ({ content: [{ type: "json", json: { query } }] }),
  );
  server.registerTool(
    "slow",
    { description: "Sleeps that long, then answers.", inputSchema: { seconds: z.number() } },
    async ({ seconds }) => {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      return { content: [{ type: "text", text: `slept ${seconds} s` }] };
    },
  );
  server.registerTool(
    "fails",
    { description: "Throws an error with the message.", inputSchema: { message: z.string() } },
    async ({ message }) => {
      throw new Error(message);
    },
  );
  server.registerTool(
    "crash",
    {
      description: "Never runs: the request-logging middleware breaks on its request first.",
      inputSchema: { query: z.string() },
    },
    async ({ query }) => ({ content: [{ type: "text", text: query }] }),
  );
  return server;
}

serveStateful(createServer, "ts_mcpserver");
