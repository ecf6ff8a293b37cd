"""`mcptui demo`: the emulator and the demo MCP server on free loopback ports, and a request.

The request is `requests/demo.json` from the repository (kept equal by a test), with its MCP
server URL pointed at wherever the demo server came up.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcptui.emulator.app import Emulator
from mcptui.emulator.demo_server import build_app
from mcptui.emulator.runner import RunConfig
from mcptui.net.serve import ServerThread

DEMO_REQUEST: dict[str, Any] = {
    "model": "gpt-5-mini",
    "input": "Look up the webhook retry policy on the demo server, then try the tool whose "
    "output schema is broken.\n"
    'call search {"query": "webhook retry policy"}\n'
    'call broken_schema {"query": "webhook retry policy"}',
    "tools": [
        {
            "type": "mcp",
            "server_label": "demo",
            "server_url": "http://127.0.0.1:8765/mcp",
            "headers": {"X-Demo-Key": "demo-secret-never-recorded"},
            "require_approval": "never",
        }
    ],
    "stream": True,
}
"""A success (`search`) and the classic 424 (`broken_schema`), in one response."""


def pointed_at(request: dict[str, Any], server: str) -> dict[str, Any]:
    """The request with every MCP server URL's scheme and host:port replaced by `server`'s."""
    origin = urlsplit(server)
    out = copy.deepcopy(request)
    for tool in out.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "mcp" and tool.get("server_url"):
            url = urlsplit(tool["server_url"])
            tool["server_url"] = urlunsplit((origin.scheme, origin.netloc, *url[2:]))
    return out


@dataclass(frozen=True)
class DemoServers:
    emulator_url: str
    """Base URL for the openai SDK, ending in /v1."""
    mcp_url: str
    """The demo MCP server's origin (streamable HTTP at /mcp, SSE at /sse)."""

    def request(self) -> dict[str, Any]:
        return pointed_at(DEMO_REQUEST, self.mcp_url)


@contextmanager
def demo_servers(
    config: RunConfig | None = None, *, log_file: Path | None = None
) -> Iterator[DemoServers]:
    """Both servers in background threads for as long as the block runs.

    With `log_file`, everything the servers log (the emulator names the real cause of each
    failed call there) goes to that file instead of the terminal, which a TUI owns.
    """
    with ExitStack() as stack:
        if log_file is not None:
            stack.enter_context(logs_to(log_file))
        own = log_file is None
        mcp = stack.enter_context(ServerThread(build_app(), own_logging=own))
        emulator = stack.enter_context(ServerThread(Emulator(config).app, own_logging=own))
        yield DemoServers(f"{emulator.url}/v1", mcp.url)


@contextmanager
def logs_to(path: Path) -> Iterator[None]:
    """Send all logging to `path` (INFO and up) while the block runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()
