"""The contract tools on the `mcp` Python SDK's low-level `Server` (mcp.server.lowlevel).

Served with streamable HTTP at /mcp by uvicorn on 127.0.0.1 (`--port N`, or env PORT); both
protocol eras on one endpoint, as for MCPServer. The low-level server does not check a result
against the tool's outputSchema, so the rule-breaking results of broken_schema and wrong_type
reach the client as they are; bad_content (a plain dict: no model holds a "json" block) meets the
SDK's own check of the result's shape. A handler that raises (fails) becomes a JSON-RPC error.
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server

COUNT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"count": {"type": "number"}},
    "required": ["count"],
}

SERVER_NAME, SERVER_VERSION = "acme-tools", "1.4.0"
"""What a user's server would call itself: nothing in it names the SDK (mcptui must tell the
SDK from how the server answers, not from a name chosen for a test)."""


def _input(name: str, kind: str = "string") -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind}}, "required": [name]}


TOOLS = [
    types.Tool(name="echo", description="Echo the text back.", input_schema=_input("text")),
    types.Tool(
        name="broken_schema",
        description="Declares an output schema but returns no structured content.",
        input_schema=_input("query"),
        output_schema=COUNT_SCHEMA,
    ),
    types.Tool(
        name="wrong_type",
        description='Declares {"count": number} and returns {"count": "three"}.',
        input_schema=_input("query"),
        output_schema=COUNT_SCHEMA,
    ),
    types.Tool(
        name="bad_content",
        description='Returns a content block of a type MCP does not have ({"type": "json"}).',
        input_schema=_input("query"),
    ),
    types.Tool(
        name="slow",
        description="Sleeps that long, then answers.",
        input_schema=_input("seconds", "number"),
    ),
    types.Tool(
        name="fails",
        description="Raises an exception with the message.",
        input_schema=_input("message"),
    ),
]


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
    return types.ListToolsResult(tools=TOOLS)


def _text(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=text)]


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
    args = params.arguments or {}
    match params.name:
        case "echo":
            return types.CallToolResult(content=_text(str(args.get("text", ""))))
        case "broken_schema":
            return types.CallToolResult(content=_text(f"no structure for {args.get('query')}"))
        case "wrong_type":
            return types.CallToolResult(
                content=_text('{"count": "three"}'), structured_content={"count": "three"}
            )
        case "bad_content":
            # No model holds this block: a plain dict, which the SDK checks against the result's
            # shape before it is sent.
            return {"content": [{"type": "json", "json": {"query": args.get("query")}}]}
        case "slow":
            seconds = float(args.get("seconds", 0))
            await anyio.sleep(seconds)
            return types.CallToolResult(content=_text(f"slept {seconds} s"))
        case "fails":
            raise RuntimeError(str(args.get("message", "")))
    raise ValueError(f"Unknown tool: {params.name}")


def build() -> Server[Any]:
    schemas = {tool.name: tool.input_schema for tool in TOOLS}
    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    app = build().streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
