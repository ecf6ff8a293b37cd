"""McpLink in both MCP eras against real mcp 2.3 servers on loopback.

The legacy era is the initialize handshake (Mcp-Session-Id), the modern one the stateless
2026-07-28 revision (server/discover, then `_meta` and routing headers on every request); "auto"
is the SDK's own policy. A 2026-07-28 server refuses a request whose envelope disagrees with
itself or names a revision it does not serve with a JSON-RPC error in an HTTP 400: the link
names those (`header_mismatch`, `protocol_version`) instead of a bare HTTP error. The servers
that misbehave here are the demo server behind small ASGI wrappers that rewrite what a proxy
could rewrite, or tiny ASGI apps that answer one fixed JSON-RPC error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcptui.emulator.demo_modes import answer, read_body
from mcptui.emulator.demo_server import DemoModes, build_app
from mcptui.mcpclient.link import TASKGROUP_424, McpLink, McpUnavailable
from mcptui.net.serve import ServerThread
from starlette.types import ASGIApp, Receive, Scope, Send

PATHS = ["/mcp", "/sse"]


class Rewrite:
    """Rewrites the POSTs of one JSON-RPC method as a careless proxy might: `headers` replace
    request headers, `body` edits the parsed message in place."""

    def __init__(
        self,
        app: ASGIApp,
        method: str,
        *,
        headers: dict[str, str] | None = None,
        body: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.app = app
        self.method = method
        self.headers = {k.lower().encode(): v.encode() for k, v in (headers or {}).items()}
        self.body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        raw, replay = await read_body(receive)
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        if not isinstance(message, dict) or message.get("method") != self.method:
            await self.app(scope, replay, send)
            return
        if self.body is not None:
            self.body(message)
        raw = json.dumps(message).encode()
        kept = [
            (k, v) for k, v in scope["headers"] if k not in self.headers and k != b"content-length"
        ]
        headers = [*kept, *self.headers.items(), (b"content-length", str(len(raw)).encode())]
        sent = False

        async def once() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await self.app({**scope, "headers": headers}, once, send)


def fixed_error(code: int, message: str, data: Any = None, status: int = 400) -> ASGIApp:
    """A server that answers every POST with one JSON-RPC error (and 405 to anything else)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope.get("method") != "POST":
            await answer(send, 405, b"")
            return
        raw, _ = await read_body(receive)
        request_id = json.loads(raw).get("id")
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
        await answer(send, status, body)

    return app


def new_version(message: dict[str, Any]) -> None:
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with (
        ServerThread(build_app()) as both,
        ServerThread(build_app(modes=DemoModes(legacy_only=True))) as legacy,
        ServerThread(build_app(modes=DemoModes(modern_only=True))) as modern,
        ServerThread(Rewrite(build_app(), "tools/call", headers={"Mcp-Name": "other"})) as renamed,
        ServerThread(
            Rewrite(
                build_app(),
                "tools/call",
                headers={"MCP-Protocol-Version": "2099-01-01"},
                body=new_version,
            )
        ) as future,
        ServerThread(
            Rewrite(build_app(), "server/discover", headers={"Mcp-Method": "tools/list"})
        ) as misrouted,
        ServerThread(
            fixed_error(
                -32022,
                "Unsupported protocol version",
                {"supported": ["2099-01-01"], "requested": "2026-07-28"},
            )
        ) as newer,
    ):
        yield {
            "both": both.url,
            "legacy": legacy.url,
            "modern": modern.url,
            "renamed": renamed.url,
            "future": future.url,
            "misrouted": misrouted.url,
            "newer": newer.url,
        }


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("protocol", "era", "version"),
    [
        ("legacy", "legacy", "2025-11-25"),
        ("modern", "modern", "2026-07-28"),
        ("auto", "modern", "2026-07-28"),
    ],
)
async def test_an_mcp_23_server_speaks_both_eras_and_auto_picks_the_modern_one(
    servers: dict[str, str], path: str, protocol: str, era: str, version: str
):
    async with McpLink(servers["both"] + path, timeout=5, protocol=protocol) as link:
        assert (link.era, link.protocol_version) == (era, version)
        assert link.server_info is not None and link.server_info.name == "mcptui-demo"
        assert link.supported_versions == (["2026-07-28"] if era == "modern" else None)
        assert len(await link.list_tools()) == 9
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.ok and outcome.result.structured_content["query"] == "x"


@pytest.mark.parametrize("path", PATHS)
async def test_a_legacy_only_server_refuses_discover_and_auto_falls_back(
    servers: dict[str, str], path: str
):
    url = servers["legacy"] + path
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(url, timeout=5, protocol="modern"):
            pass
    refused = caught.value
    said = {
        "/mcp": "-32600 Bad Request: Missing session ID, HTTP 400",  # as mcp 1.x says it
        "/sse": "-32601 Method not found",
    }[path]
    assert refused.kind == "protocol_version"
    assert refused.answer == said
    assert f"does not speak 2026-07-28: server/discover answered {said}" in str(refused)
    async with McpLink(url, timeout=5, protocol="auto") as link:
        assert (link.era, link.protocol_version) == ("legacy", "2025-11-25")
        assert (
            await link.call("broken_schema", {"query": "x"}, timeout=5)
        ).kind == "missing_structured_content"


@pytest.mark.parametrize("path", PATHS)
async def test_a_modern_only_server_refuses_initialize(servers: dict[str, str], path: str):
    url = servers["modern"] + path
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(url, timeout=5, protocol="legacy"):
            pass
    refused = caught.value
    assert refused.kind == "protocol_version" and refused.code == -32022
    assert (
        "does not speak 2025-11-25: initialize answered -32022 Unsupported protocol version"
    ) in str(refused)
    assert "it speaks 2026-07-28" in str(refused)
    async with McpLink(url, timeout=5, protocol="auto") as link:
        assert link.era == "modern"


@pytest.mark.parametrize("protocol", ["modern", "auto"])
async def test_a_server_of_a_later_revision_only_is_a_protocol_version_refusal(
    servers: dict[str, str], protocol: str
):
    """-32022 naming no revision this client knows: the SDK's auto policy gives up too."""
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(servers["newer"] + "/mcp", timeout=5, protocol=protocol):
            pass
    assert caught.value.kind == "protocol_version"
    assert (
        "does not speak 2026-07-28: server/discover answered -32022 Unsupported protocol "
        "version, HTTP 400; it speaks 2099-01-01" in str(caught.value)
    )


async def test_a_rewritten_name_header_is_a_header_mismatch_of_the_call(servers: dict[str, str]):
    async with McpLink(servers["renamed"] + "/mcp", timeout=5, protocol="modern") as link:
        await link.list_tools()
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.kind == "header_mismatch"
    assert outcome.error == {
        "type": "mcp_protocol_error",
        "code": -32020,
        "message": ("mcp-name header does not match the request body's 'name' parameter"),
    }
    assert "HTTP 400" in (outcome.cause or "")
    async with McpLink(servers["renamed"] + "/mcp", timeout=5, protocol="legacy") as link:
        assert (await link.call("search", {"query": "x"}, timeout=5)).ok  # no routing headers


async def test_a_call_of_an_unserved_revision_is_a_protocol_version_refusal(
    servers: dict[str, str],
):
    async with McpLink(servers["future"] + "/mcp", timeout=5, protocol="modern") as link:
        await link.list_tools()
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.kind == "protocol_version"
    assert outcome.error["type"] == "mcp_protocol_error" and outcome.error["code"] == -32022


async def test_a_rewritten_method_header_refuses_discover_and_auto_falls_back(
    servers: dict[str, str],
):
    url = servers["misrouted"] + "/mcp"
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(url, timeout=5, protocol="modern"):
            pass
    assert caught.value.kind == "header_mismatch"
    assert "mcp-method header does not match" in str(caught.value)
    assert "a proxy between here and the server" in str(caught.value)
    async with McpLink(url, timeout=5, protocol="auto") as link:
        assert link.era == "legacy"


@pytest.mark.parametrize("path", PATHS)
async def test_a_server_that_goes_away_in_the_modern_era_turns_calls_into_424(path: str):
    thread = ServerThread(build_app()).start()
    try:
        async with McpLink(thread.url + path, timeout=3, protocol="modern") as link:
            assert (await link.call("search", {"query": "x"}, timeout=3)).ok
            thread.stop()
            outcome = await link.call("search", {"query": "x"}, timeout=1)
    finally:
        thread.stop()
    assert outcome.error == TASKGROUP_424
    assert outcome.kind == "connection_lost"


def test_unknown_protocols_are_refused():
    with pytest.raises(ValueError, match="unknown MCP protocol"):
        McpLink("http://127.0.0.1:1/mcp", protocol="2026")


# -- the emulator's client speaks the era it is told (legacy by default, as OpenAI's) -----------


def create(emulator: str, server_url: str, *tool_calls: str) -> dict[str, Any]:
    """A non-streamed create on the emulator: the response, or the error body of a 424."""
    import httpx2

    body = {
        "model": "gpt-4.1",
        "input": "\n".join(["q", *tool_calls]),
        "tools": [
            {
                "type": "mcp",
                "server_label": "demo",
                "server_url": server_url,
                "require_approval": "never",
            }
        ],
    }
    answer = httpx2.post(
        f"{emulator}/v1/responses",
        json=body,
        timeout=30,
        headers={"Authorization": "Bearer sk-test"},
    )
    return {**answer.json(), "http": answer.status_code}


@pytest.mark.parametrize("protocol", ["legacy", "modern", "auto"])
def test_the_emulator_calls_in_the_era_it_is_told(servers: dict[str, str], protocol: str):
    from mcptui.emulator.app import Emulator
    from mcptui.emulator.runner import RunConfig

    config = RunConfig(tool_timeout=5, delta_delay=0.0, list_timeout=5, mcp_protocol=protocol)
    with ServerThread(Emulator(config, seed=1).app) as emulator:
        both = create(
            emulator.url,
            servers["both"] + "/mcp",
            'call broken_schema {"query": "x"}',
            'call search {"query": "y"}',
        )
        legacy_only = create(emulator.url, servers["legacy"] + "/mcp", 'call search {"query": "z"}')
    assert RunConfig().mcp_protocol == "legacy"
    assert both["http"] == 200
    calls = {item["name"]: item for item in both["output"] if item["type"] == "mcp_call"}
    assert calls["broken_schema"]["error"] == TASKGROUP_424  # the same in every era
    assert calls["search"]["error"] is None
    if protocol == "modern":  # a 2026-only client cannot list a 2025-only server's tools
        assert legacy_only["http"] == 424
        assert "Error retrieving tool list" in legacy_only["error"]["message"]
    else:
        assert legacy_only["http"] == 200
