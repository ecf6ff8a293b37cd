"""The contract tools on the standalone `fastmcp` package (4.x, built on the `mcp` SDK).

Served with streamable HTTP at /mcp on 127.0.0.1 (`--port N`, or env PORT) by
`FastMCP.run_http_async`, the way `fastmcp run --transport http` serves it (banner off).
"""

from __future__ import annotations

import argparse
import asyncio
import os

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp_types import TextContent
from pydantic import BaseModel

SERVER_NAME, SERVER_VERSION = "acme-tools", "1.4.0"
"""What a user's server would call itself: nothing in it names the SDK (mcptui must tell the
SDK from how the server answers, not from a name chosen for a test)."""


class Count(BaseModel):
    count: float


def build() -> FastMCP:
    server = FastMCP(SERVER_NAME, version=SERVER_VERSION)

    @server.tool
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool
    def broken_schema(query: str) -> Count:
        """Declares an output schema (from the return type) but returns no structured content."""
        return ToolResult(content=[TextContent(type="text", text=f"no structure for {query}")])  # type: ignore[return-value]

    @server.tool
    def wrong_type(query: str) -> Count:
        """Declares {"count": number} and returns {"count": "three"}."""
        return {"count": "three"}  # type: ignore[return-value]

    @server.tool
    def bad_content(query: str) -> ToolResult:
        """Returns a content block of a type MCP does not have ({"type": "json"})."""
        return ToolResult.model_construct(
            content=[{"type": "json", "json": {"query": query}}],
            structured_content=None,
            meta=None,
        )

    @server.tool
    async def slow(seconds: float) -> str:
        """Sleeps that long, then answers."""
        await asyncio.sleep(seconds)
        return f"slept {seconds} s"

    @server.tool
    def fails(message: str) -> str:
        """Raises the SDK's tool error with the message."""
        raise ToolError(message)

    return server


async def serve(port: int) -> None:
    await build().run_http_async(
        show_banner=False,
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        log_level="INFO",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args()
    asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
