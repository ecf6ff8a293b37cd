"""Helpers for the end-to-end tests: where the servers are, and reading raw streams."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from openai import OpenAI

TOOL_TIMEOUT = 1.5
TOKEN = "demo-token-123"


@dataclass(frozen=True)
class Servers:
    emulator: str
    """Base URL for the SDK (…/v1)."""
    mcp: str
    """Origin of the open demo MCP server."""
    mcp_token: str
    """Origin of a demo MCP server that wants `Authorization: Bearer TOKEN`."""

    def tool(self, *, url: str | None = None, **fields: Any) -> dict[str, Any]:
        return {
            "type": "mcp",
            "server_label": "demo",
            "server_url": url or f"{self.mcp}/mcp",
            "require_approval": "never",
            **fields,
        }


def raw_events(client: OpenAI, **body: Any) -> list[dict[str, Any]]:
    """The `data:` objects of a streamed create, read through the SDK's raw response."""
    with client.responses.with_streaming_response.create(stream=True, **body) as response:
        return [json.loads(line[5:]) for line in response.iter_lines() if line.startswith("data:")]


def calls(text: str, *lines: tuple[str, dict[str, Any]]) -> str:
    """An input whose `call` lines the emulator's scripted model follows."""
    return "\n".join([text, *(f"call {tool} {json.dumps(args)}" for tool, args in lines)])


def items_done(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        e["item"]
        for e in events
        if e["type"] == "response.output_item.done" and e["item"]["type"] == kind
    ]
