"""The real MCP stacks of real_stacks.py start, list the contract tools and answer echo.

Every stack in STACKS must run here (after `npm ci` in tests/): none is skipped. All of them are
started at once, once for the worker (conftest.py's `shared_stacks`, which test_stack_causes.py
shares); the mcp client talks to each in the 2025-11-25 handshake
era and, with mode="auto", in the 2026-07-28 era where the stack serves it (else it must fall
back to the handshake).
"""

from __future__ import annotations

import time

import httpx2
import pytest
from mcp import Client
from real_stacks import LEGACY, MODERN, STACKS, Running, SharedStacks, available

pytestmark = pytest.mark.xdist_group("real_stacks")
"""One worker runs this module and test_stack_causes.py (`--dist loadgroup`, pyproject.toml):
otherwise every real server stack would be started once in each worker that runs one of their
tests."""

NAMES = list(STACKS)


@pytest.fixture(scope="module")
def servers(shared_stacks: SharedStacks) -> dict[str, Running]:
    missing = {name: reason for name in NAMES if (reason := available(name)) is not None}
    assert not missing, f"stacks that cannot run here: {missing}"
    return shared_stacks.ensure(NAMES)


@pytest.mark.parametrize("name", NAMES)
async def test_lists_the_contract_tools_and_echoes(servers: dict[str, Running], name: str) -> None:
    server = servers[name]
    stack = server.stack
    tool, arguments = stack.call("echo", "hello from mcptui")
    async with Client(server.url, mode="legacy", read_timeout_seconds=10) as client:
        assert client.protocol_version == LEGACY
        listed = {t.name for t in (await client.list_tools()).tools}
        assert set(stack.tools.values()) <= listed
        result = await client.call_tool(tool, arguments)
    assert not result.is_error
    assert "hello from mcptui" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("name", NAMES)
async def test_speaks_the_revisions_it_claims(servers: dict[str, Running], name: str) -> None:
    server = servers[name]
    tool, arguments = server.stack.call("echo", "modern")
    async with Client(server.url, mode="auto", read_timeout_seconds=10) as client:
        assert client.protocol_version == (MODERN if server.stack.modern else LEGACY)
        result = await client.call_tool(tool, arguments)
    assert not result.is_error


def test_kill_and_restart_on_the_same_port(servers: dict[str, Running]) -> None:
    """The old session is gone after a restart: the SDK example's 400 for an unknown session.

    It uses the shared server: restarted on its port, it serves any later test as before."""
    server = servers["ts_lowlevel"]
    port = server.port
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    with httpx2.Client(timeout=10) as http:
        session = http.post(server.url, json=init, headers=headers).headers["mcp-session-id"]
        started = time.monotonic()
        server.kill()
        assert not server.alive
        with pytest.raises(httpx2.ConnectError):
            http.post(server.url, json=init, headers=headers)
        server.restart()
        assert server.alive and server.port == port
        assert time.monotonic() - started < 20
        answer = http.post(
            server.url,
            headers={**headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY},
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "Bad Request: No valid session ID provided"
