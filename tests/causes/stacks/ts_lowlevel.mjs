// The contract tools on the TypeScript SDK 1.x low-level Server (setRequestHandler for
// tools/list and tools/call, JSON Schema by hand), served statefully with
// StreamableHTTPServerTransport at /mcp on 127.0.0.1 (--port N, or env PORT). The low-level
// Server does not check a result against the tool's outputSchema; it does check each tools/call
// result against the protocol's CallToolResult shape.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { serveStateful } from "./ts_http.mjs";

// What a user's server would call itself: nothing in it names the SDK.
const SERVER_NAME = "acme-tools";
const SERVER_VERSION = "1.4.0";

const input = (name, type = "string") => ({
  type: "object",
  properties: { [name]: { type } },
  required: [name],
});
const COUNT = { type: "object", properties: { count: { type: "number" } }, required: ["count"] };

const TOOLS = [
  { name: "echo", description: "Echo the text back.", inputSchema: input("text") },
  {
    name: "broken_schema",
    description: "Declares an output schema but returns no structured content.",
    inputSchema: input("query"),
    outputSchema: COUNT,
  },
  {
    name: "wrong_type",
    description: 'Declares {"count": number} and returns {"count": "three"}.',
    inputSchema: input("query"),
    outputSchema: COUNT,
  },
  {
    name: "bad_content",
    description: 'Returns a content block of a type MCP does not have ({"type": "json"}).',
    inputSchema: input("query"),
  },
  { name: "slow", description: "Sleeps that long, then answers.", inputSchema: input("seconds", "number") },
  { name: "fails", description: "Throws an error with the message.", inputSchema: input("message") },
];

function createServer() {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return { content: [{ type: "text", text: String(args.text ?? "") }] };
      case "broken_schema":
        return { content: [{ type: "text", text: `no structure for ${args.query}` }] };
      case "wrong_type":
        return {
          content: [{ type: "text", text: '{"count": "three"}' }],
          structuredContent: { count: "three" },
        };
      case "bad_content":
        return { content: [{ type: "json", json: { query: args.query } }] };
      case "slow": {
        const seconds = Number(args.seconds ?? 0);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        return { content: [{ type: "text", text: `slept ${seconds} s` }] };
      }
      case "fails":
        throw new Error(String(args.message ?? ""));
      default:
        throw new Error(`Unknown tool: ${request.params.name}`);
    }
  });
  return server;
}

serveStateful(createServer, "ts_lowlevel");
