"""`mcptui tap` in front of the demo MCP server, driven by the real `mcp` client (McpLink).

What the tap records must be every JSON-RPC message in both directions, in order, with nothing
lost under concurrency and no header value kept; what the client sees must be unchanged.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from _e2e_support import Servers
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcptui.capture.proxy_run import SERVER_OPTIONS
from mcptui.capture.relay import RecordingProxy
from mcptui.capture.tap import TapHub
from mcptui.emulator.demo_server import build_app
from mcptui.io.merge import SKEW
from mcptui.mcpclient.link import McpLink
from mcptui.model.events import note
from mcptui.model.timeline import Timeline
from mcptui.model.wire import exchanges
from mcptui.model.wire import link as tie
from mcptui.net.serve import ServerThread
from mcptui.sources.replay import load_merged
from test_run_cli import assert_refused, cli_env, request_body, run_cli, run_request

SECRET = "tap-secret-token-0123456789"


class Tap:
    """The demo server (wanting `Bearer SECRET`) with a tap in front, in threads."""

    def __init__(self, record: Path, *, transport_path: str = "/mcp", app: Any = None) -> None:
        self.server = ServerThread(app or build_app(token=SECRET)).start()
        self.hub = TapHub(f"{self.server.url}{transport_path}", record)
        self.tap = ServerThread(RecordingProxy(self.hub), **SERVER_OPTIONS).start()
        self.url = f"{self.tap.url}{transport_path}"
        self.record = record

    def notes(self) -> list[dict[str, Any]]:
        """The recorded notes, once no exchange is open (the tap records an answer after
        passing it on)."""
        deadline = time.monotonic() + 5
        while self.hub.open_exchanges and time.monotonic() < deadline:
            time.sleep(0.01)
        lines = [json.loads(line) for line in self.record.read_text().splitlines()]
        assert lines[0]["mcptui"] == "recording" and lines[0]["source"]["kind"] == "tap"
        times = [line["t"] for line in lines[1:]]
        assert times == sorted(times)  # in arrival order, each with its time
        return [line["note"] for line in lines[1:]]

    def stop(self) -> None:
        self.tap.stop()
        self.server.stop()
        self.hub.close()


@pytest.fixture
def tap(tmp_path: Path) -> Iterator[Tap]:
    running = Tap(tmp_path / "tap.jsonl")
    yield running
    running.stop()


def link(url: str, protocol: str = "legacy") -> McpLink:
    """The mcp client as OpenAI's is believed to speak (the legacy era), unless told."""
    return McpLink(
        url, headers={"Authorization": f"Bearer {SECRET}"}, timeout=10, protocol=protocol
    )


def summaries(notes: list[dict[str, Any]]) -> list[str]:
    """The messages without how long each answer took (`  · 12 ms`)."""
    return [n["message"].split("  · ")[0] for n in notes if n["kind"] == "mcp"]


async def test_every_message_both_ways_in_order(tap: Tap):
    async with link(tap.url) as client:
        tools = await client.list_tools()
        outcome = await client.call("broken_schema", {"query": "x"}, timeout=10)
    assert "broken_schema" in [tool.name for tool in tools]
    assert outcome.error is not None  # what the client sees is what the server said

    notes = tap.notes()
    shown = summaries(notes)
    for expected in (
        "→ initialize",
        "← result initialize",
        "→ notifications/initialized",
        "→ tools/list",
        "← result tools/list  9 tools",
        "→ tools/call broken_schema",
        "← result broken_schema  no structuredContent",
    ):
        assert expected in shown, shown
    positions = [
        shown.index(m)
        for m in (
            "→ initialize",
            "→ tools/list",
            "→ tools/call broken_schema",
            "← result broken_schema  no structuredContent",
        )
    ]
    assert positions == sorted(positions)
    listing = next(n for n in notes if n["message"].startswith("← result tools/list"))
    broken = next(t for t in listing["jsonrpc"]["result"]["tools"] if t["name"] == "broken_schema")
    assert "outputSchema" in broken  # the wire evidence the cause needs
    call = next(n for n in notes if n["message"] == "→ tools/call broken_schema")
    assert call["direction"] == "sent" and call["transport"] == "streamable_http"
    assert call["session"] and call["jsonrpc"]["params"]["arguments"] == {"query": "x"}
    assert SECRET not in tap.record.read_text()


async def test_fifty_concurrent_calls_lose_nothing(tap: Tap):
    async with link(tap.url) as client:
        outcomes = await asyncio.gather(
            *(client.call("search", {"query": f"q{n}"}, timeout=20) for n in range(50))
        )
    assert all(outcome.error is None for outcome in outcomes)
    notes = tap.notes()
    sent = [n["jsonrpc"] for n in notes if n["message"] == "→ tools/call search"]
    answered = [n["jsonrpc"] for n in notes if n["message"].startswith("← result search")]
    assert len(sent) == len(answered) == 50
    assert {m["id"] for m in sent} == {m["id"] for m in answered}
    assert sorted(m["params"]["arguments"]["query"] for m in sent) == sorted(
        f"q{n}" for n in range(50)
    )


async def test_the_sse_transport_goes_through_the_tap_too(tmp_path: Path):
    tap = Tap(tmp_path / "sse.jsonl", transport_path="/sse")
    try:
        async with link(tap.url) as client:
            outcome = await client.call("search", {"query": "x"}, timeout=10)
        assert outcome.error is None
        notes = tap.notes()
        shown = summaries(notes)
        assert any(m.startswith("← endpoint /messages/") for m in shown), shown
        assert "→ tools/call search" in shown and "← result search" in shown
        call = next(n for n in notes if n["message"] == "→ tools/call search")
        assert call["transport"] == "sse"
        assert SECRET not in tap.record.read_text()
    finally:
        tap.stop()


async def test_a_refused_request_is_recorded_with_its_status(tap: Tap):
    refused = McpLink(
        tap.url, headers={"Authorization": "Bearer wrong-token-123"}, timeout=5, protocol="legacy"
    )
    with pytest.raises(Exception):  # noqa: B017 -- McpUnavailable, however it is raised
        async with refused:
            pass
    errors = [n for n in tap.notes() if n["kind"] == "http_error"]
    assert errors and errors[0]["http_status"] == 401
    assert errors[0]["message"].startswith("← HTTP 401 to POST /mcp")
    assert "wrong-token-123" not in tap.record.read_text()


def test_the_command_prints_the_server_url_and_each_message(tmp_path: Path):
    with ServerThread(build_app()) as server:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcptui",
                "tap",
                "--upstream",
                f"{server.url}/mcp",
                "--port",
                "0",
                "--record",
                "tap.jsonl",
                "--public-url",
                "https://abc.example.dev",
                "--no-tui",
            ],
            cwd=tmp_path,
            env=cli_env(api_key=None),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        first = process.stdout.readline()
        address = re.search(r"(http://127\.0\.0\.1:\d+)/mcp → ", first)
        assert address, first + process.stderr.read()
        assert (
            "server_url for the request: https://abc.example.dev/mcp" in process.stdout.readline()
        )

        async def use() -> None:
            async with McpLink(f"{address.group(1)}/mcp", timeout=10, protocol="legacy") as client:
                await client.call("search", {"query": "x"}, timeout=10)

        asyncio.run(use())
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, out + err
    assert "→ tools/call search" in out and "← result search" in out
    assert "messages recorded in tap.jsonl" in out.splitlines()[-1]


def test_an_unusable_upstream_is_refused(tmp_path: Path):
    assert_refused(
        run_cli(["tap", "--upstream", "localhost:8765/mcp"], tmp_path),
        "must be an http(s) URL such as http://127.0.0.1:8765/mcp",
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_refused(
            run_cli(["tap", "--upstream", "http://127.0.0.1:9/mcp", "--port", str(port)], tmp_path),
            f"port {port} is in use",
        )


def wait_until(condition: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


# -- the modern, stateless revision (2026-07-28) ---------------------------------------------


def held_server() -> tuple[MCPServer, Any]:
    """An mcp 2.3 MCPServer (both eras) whose `hold` answers once `release` was called."""
    server = MCPServer("held")
    released = anyio.Event()

    @server.tool()
    async def hold(query: str) -> str:
        with anyio.fail_after(10):
            await released.wait()
        return f"held {query}"

    @server.tool()
    async def release(query: str) -> str:
        released.set()
        return f"released {query}"

    return server, released


def test_modern_clients_are_recorded_and_paired_by_their_own_post(tmp_path: Path):
    """Two mcp 2.3 clients in mode "auto" (server/discover, then stateless POSTs) through a
    real tap; both number their requests alike, and the first one's call is answered last:
    each answer is paired with its own POST's request, never the other client's (whichever
    of the two answers the tap sees first)."""
    server, _ = held_server()
    tap = Tap(tmp_path / "modern.jsonl", app=server.streamable_http_app())
    try:

        def recorded(message: str) -> bool:
            lines = tap.record.read_text().splitlines()[1:]
            return any(json.loads(line)["note"]["message"] == message for line in lines)

        async def both() -> tuple[Any, Any]:
            async with (
                Client(tap.url, mode="auto") as first,
                Client(tap.url, mode="auto") as second,
            ):
                assert first.protocol_version == "2026-07-28"
                async with anyio.create_task_group() as group:
                    held: list[Any] = []

                    async def call_hold() -> None:
                        held.append(await first.call_tool("hold", {"query": "a"}))

                    group.start_soon(call_hold)
                    with anyio.fail_after(10):
                        while not recorded("→ tools/call hold  [modern]"):
                            await anyio.sleep(0.01)
                    released = await second.call_tool("release", {"query": "b"})
                return held[0], released

        held, released = asyncio.run(both())
        assert "held a" in str(held.content) and "released b" in str(released.content)
        notes = tap.notes()
    finally:
        tap.stop()
    shown = summaries(notes)
    assert shown.count("→ server/discover  [modern]") == 2, shown
    calls = [n for n in notes if n["message"].startswith("→ tools/call")]
    assert calls[0]["jsonrpc"]["id"] == calls[1]["jsonrpc"]["id"]  # numbered alike
    answered = {
        n["message"].split("  · ")[0]: n["jsonrpc"]["result"]["content"][0]["text"]
        for n in notes
        if n["direction"] == "received"
        and "tools" not in n["message"]
        and "discover" not in n["message"]
    }
    assert answered == {"← result hold": "held a", "← result release": "released b"}, shown
    assert {n["era"] for n in notes} == {"modern"} and {n["session"] for n in notes} == {None}
    hold_call = next(n for n in calls if "hold" in n["message"])
    assert hold_call["mcp_headers"] == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "hold",
    }
    read = [
        note(
            n["kind"],
            n["message"],
            float(i),
            **{k: v for k, v in n.items() if k not in ("kind", "message")},
        )
        for i, n in enumerate(notes)
    ]
    paired = [e for e in exchanges(range(len(read)), read) if e.method == "tools/call"]
    assert {e.tool: (e.result or {}).get("content", [{}])[0].get("text") for e in paired} == {
        "hold": "held a",
        "release": "released b",
    }


# -- what is normal on the wire ----------------------------------------------------------------


def open_session(client: httpx2.Client, url: str) -> str:
    answer = client.post(
        url,
        headers={
            "Authorization": f"Bearer {SECRET}",
            "Accept": "application/json, text/event-stream",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
    )
    assert answer.status_code == 200, answer.text
    return answer.headers["mcp-session-id"]


def test_the_client_closing_its_event_stream_is_an_info_note(tap: Tap):
    """A session's end: the client closes the GET event stream it held open. Normal: an info
    note, not a broken connection."""
    with httpx2.Client(timeout=10) as client:
        session = open_session(client, tap.url)
        with client.stream(
            "GET",
            tap.url,
            headers={
                "Authorization": f"Bearer {SECRET}",
                "Accept": "text/event-stream",
                "mcp-session-id": session,
            },
        ) as stream:
            assert stream.status_code == 200
            wait_until(lambda: tap.hub.open_exchanges == 1, "the tap to relay the stream")
        wait_until(lambda: tap.hub.open_exchanges == 0, "the tap to see the stream closed")
    notes = tap.notes()
    assert [n for n in notes if n["kind"] != "mcp" or n.get("level") == "warning"] == []
    closed = [n for n in notes if n.get("closed") == "client"]
    assert [(n["message"], n["level"]) for n in closed] == [
        (
            f"← GET /mcp: the client closed the event stream of session {session[:8]}… (the "
            "session's end)",
            "info",
        )
    ]


def test_ctrl_c_with_a_session_still_open_ends_the_tap_cleanly(tmp_path: Path):
    """Ctrl+C is how a tap ends, even while a client holds its event stream open (uvicorn
    waits, then cancels it): exit 0, the summary line, no traceback."""
    with ServerThread(build_app(token=SECRET)) as server:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcptui",
                "tap",
                "--upstream",
                f"{server.url}/mcp",
                "--port",
                "0",
                "--record",
                "tap.jsonl",
                "--no-tui",
            ],
            cwd=tmp_path,
            env=cli_env(api_key=None),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        address = re.search(r"(http://127\.0\.0\.1:\d+)/mcp → ", process.stdout.readline())
        assert address
        url = f"{address.group(1)}/mcp"
        with httpx2.Client(timeout=20) as client:
            session = open_session(client, url)
            with client.stream(
                "GET",
                url,
                headers={
                    "Authorization": f"Bearer {SECRET}",
                    "Accept": "text/event-stream",
                    "mcp-session-id": session,
                },
            ) as stream:
                assert stream.status_code == 200
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=30)
    assert process.returncode == 0, out + err
    assert "Traceback" not in err + out and "ERROR" not in err, err
    assert "messages recorded in tap.jsonl" in out.splitlines()[-1]


# -- a tap file holding earlier sessions ---------------------------------------------------------


def test_a_run_after_probes_through_the_same_tap_gets_its_own_call(
    tmp_path: Path, servers: Servers
):
    """Two probe sessions calling broken_schema through a standalone tap, then a run through
    it; `inspect RUN --tap TAP` ties the run's item to the run's own call (of the session
    that listed tools for it), never to a probe's."""
    tap = Tap(tmp_path / "tap.jsonl")
    try:

        async def probe() -> None:
            async with link(tap.url) as client:
                await client.list_tools()
                await client.call("broken_schema", {"query": "x"}, timeout=10)

        for _ in range(2):
            asyncio.run(probe())
        probes = {n["session"] for n in tap.notes() if n.get("session")}
        assert len(probes) == 2
        # Earlier traffic is told apart by time: within SKEW of the run's first event the
        # probes' messages could be the run's own (a forked run starts within 0.1 s).
        after_probes = time.monotonic() + SKEW
        while time.monotonic() <= after_probes:
            time.sleep(0.05)
        body = request_body(
            servers,
            ("broken_schema", {"query": "x"}),
            tool=servers.tool(url=tap.url, headers={"Authorization": f"Bearer {SECRET}"}),
        )
        done, _, _ = run_request(servers, tmp_path, body)
        assert done.returncode == 1, done.stdout + done.stderr
        tap.notes()
    finally:
        tap.stop()
    merged = load_merged(str(tmp_path / "rec.jsonl"), str(tap.record))
    assert merged.header is not None and merged.header["tap"]["outside"] > 0
    timeline = Timeline(merged.events)
    timeline.seek_end()
    (resp,) = timeline.state.responses
    links = tie(resp, timeline.events)
    item = next(i for i in resp.items if i.type == "mcp_call")
    listing = next(i for i in resp.items if i.type == "mcp_list_tools")
    call = links.call_of(item.key)
    assert call is not None and call.session not in probes
    assert [e.session for e in links.by_item[listing.key]] == [call.session]
    inspected = run_cli(["inspect", "--json", "rec.jsonl", "--tap", str(tap.record)], tmp_path)
    (failure,) = [f for f in json.loads(inspected.stdout)["failures"] if f["type"] == "mcp_call"]
    top = failure["likely_causes"][0]
    assert (top["cause"], top["confidence"]) == (
        "output_schema_without_structured_content",
        "confirmed",
    ), top
