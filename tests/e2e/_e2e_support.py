"""Helpers for the end-to-end tests: where the servers are, and reading raw streams."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
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


def start_listening(
    args: list[str], cwd: Path, env: dict[str, str], path: str, *, own_group: bool = False
) -> tuple[subprocess.Popen[str], str]:
    """`python -m mcptui ARGS` (a proxy or a tap on `--port 0`) as its own process, and the
    address its first line says it listens on (`http://127.0.0.1:N/PATH → …`). `own_group`:
    a process group of its own, so that a Ctrl+C sent to it (`os.killpg`) reaches its children
    as a terminal's does."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcptui", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=own_group,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    found = re.search(rf"(http://127\.0\.0\.1:\d+)/{path} → ", first)
    if found is None:
        process.kill()
        raise AssertionError(first + process.communicate(timeout=10)[1])
    return process, found.group(1)
