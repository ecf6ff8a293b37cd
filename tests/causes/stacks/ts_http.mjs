// Stateful streamable HTTP serving for the TypeScript SDK 1.x servers, wired the way the SDK's
// README example (simpleStreamableHttp) and server-everything do it: an Express app from
// createMcpExpressApp (Host-header checks for 127.0.0.1), a map of session id -> transport, a new
// server + transport for each initialize request, and the example's 400 answer for a request
// whose Mcp-Session-Id is missing or unknown.
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

export function portFromArgs() {
  const { values } = parseArgs({ options: { port: { type: "string" } }, strict: false });
  return Number(values.port ?? process.env.PORT ?? 8000);
}

const noSession = (req, res) =>
  res.status(400).json({
    jsonrpc: "2.0",
    error: { code: -32000, message: "Bad Request: No valid session ID provided" },
    id: null,
  });

export function serveStateful(createServer, label) {
  const port = portFromArgs();
  const app = createMcpExpressApp({ host: "127.0.0.1" });
  const transports = new Map();
  // A request log of the kind servers put in front, which breaks on the `crash` tool's request:
  // Express then answers HTTP 500 (its default error handler), not JSON-RPC.
  app.use("/mcp", (req, res, next) => {
    if (req.body?.method === "tools/call" && req.body?.params?.name === "crash") {
      throw new Error("the request log could not write its line");
    }
    next();
  });

  app.post("/mcp", async (req, res) => {
    const sessionId = req.headers["mcp-session-id"];
    try {
      if (sessionId && transports.has(sessionId)) {
        await transports.get(sessionId).handleRequest(req, res, req.body);
        return;
      }
      if (!sessionId && isInitializeRequest(req.body)) {
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            console.error(`${label}: session ${sid} initialized`);
            transports.set(sid, transport);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        await createServer().connect(transport);
        await transport.handleRequest(req, res, req.body);
        return;
      }
      noSession(req, res);
    } catch (error) {
      console.error(`${label}: error handling MCP request`, error);
      if (!res.headersSent) {
        res.status(500).json({
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal server error" },
          id: null,
        });
      }
    }
  });

  const sessionRequest = async (req, res) => {
    const sessionId = req.headers["mcp-session-id"];
    if (!sessionId || !transports.has(sessionId)) {
      res.status(400).send("Invalid or missing session ID");
      return;
    }
    await transports.get(sessionId).handleRequest(req, res);
  };
  app.get("/mcp", sessionRequest);
  app.delete("/mcp", sessionRequest);

  const server = app.listen(port, "127.0.0.1", (error) => {
    if (error) {
      console.error(`${label}: cannot listen on 127.0.0.1:${port}:`, error);
      process.exit(1);
    }
    console.error(`${label}: listening on http://127.0.0.1:${port}/mcp`);
  });
  server.on("error", (error) => {
    console.error(`${label}: server error`, error);
    process.exit(1);
  });
}
