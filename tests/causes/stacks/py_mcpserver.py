"""The contract tools on the `mcp` Python SDK's high-level server (`MCPServer`, the former FastMCP).

Served with streamable HTTP at /mcp by uvicorn on 127.0.0.1 (`--port N`, or env PORT), the way
`MCPServer.run("streamable-http")` serves it. One endpoint answers both protocol eras: the
2025-11-25 handshake (initialize + Mcp-Session-Id) and the stateless 2026-07-28 revision
(server/discover, an envelope in every request's `_meta`).

Each tool fails the way this SDK makes it fail when written naturally (tests/causes/stacks/README.md
has what reaches the wire).
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

SERVER_NAME, SERVER_VERSION = "acme-tools", "1.4.0"
"""What a user's server would call itself: nothing in it names the SDK (mcptui must tell the
SDK from how the server answers, not from a name chosen for a test)."""


class Count(BaseModel):
    count: float


def build() -> MCPServer:
    server = MCPServer(SERVER_NAME, version=SERVER_VERSION)

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def broken_schema(query: str) -> Count:
        """Declares an output schema (from the return type) but returns no structured content."""
        return CallToolResult(content=[TextContent(type="text", text=f"no structure for {query}")])  # type: ignore[return-value]

    @server.tool()
    def wrong_type(query: str) -> Count:
        """Declares {"count": number} and returns {"count": "three"}."""
        return {"count": "three"}  # type: ignore[return-value]

    @server.tool()
    def bad_content(query: str) -> CallToolResult:
        """Returns a content block of a type MCP does not have ({"type": "json"})."""
        return CallToolResult.model_construct(
            content=[{"type": "json", "json": {"query": query}}],  # type: ignore[list-item]
            is_error=False,
        )

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleeps that long, then answers."""
        await anyio.sleep(seconds)
        return f"slept {seconds} s"

    @server.tool()
    def fails(message: str) -> str:
        """Raises the SDK's tool error with the message."""
        raise ToolError(message)

    @server.tool()
    def crash(query: str) -> str:
        """Never runs: the request-logging middleware breaks on its request first."""
        return query

    return server


class RequestLog:
    """An ASGI middleware of the kind servers put in front (logging, auth) that breaks on the
    `crash` tool's request: uvicorn then answers HTTP 500 Internal Server Error."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if b'"name":"crash"' in body.replace(b" ", b""):
            raise RuntimeError("the request log could not write its line")
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    app = RequestLog(build().streamable_http_app(host="127.0.0.1"))
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
