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

import pytest
from test_run_cli import assert_refused, cli_env, run_cli

from tui.capture.proxy_run import SERVER_OPTIONS
from tui.capture.relay import RecordingProxy
from tui.capture.tap import TapHub
from tui.emulator.demo_server import build_app
from tui.emulator.serve import ServerThread
from tui.mcpclient import McpLink

SECRET = "tap-secret-token-0123456789"


class Tap:
    """The demo server (wanting `Bearer SECRET`) with a tap in front, in threads."""

    def __init__(self, record: Path, *, transport_path: str = "/mcp") -> None:
        self.server = ServerThread(build_app(token=SECRET)).start()
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


def link(url: str) -> McpLink:
    return McpLink(url, headers={"Authorization": f"Bearer {SECRET}"}, timeout=10)


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
    for expected in ("→ initialize", "← result initialize", "→ notifications/initialized",
                     "→ tools/list", "← result tools/list  9 tools",
                     "→ tools/call broken_schema",
                     "← result broken_schema  no structuredContent"):
        assert expected in shown, shown
    positions = [shown.index(m) for m in ("→ initialize", "→ tools/list",
                                          "→ tools/call broken_schema",
                                          "← result broken_schema  no structuredContent")]
    assert positions == sorted(positions)
    listing = next(n for n in notes if n["message"].startswith("← result tools/list"))
    broken = next(t for t in listing["jsonrpc"]["result"]["tools"]
                  if t["name"] == "broken_schema")
    assert "outputSchema" in broken  # the wire evidence the cause needs
    call = next(n for n in notes if n["message"] == "→ tools/call broken_schema")
    assert call["direction"] == "sent" and call["transport"] == "streamable_http"
    assert call["session"] and call["jsonrpc"]["params"]["arguments"] == {"query": "x"}
    assert SECRET not in tap.record.read_text()


async def test_fifty_concurrent_calls_lose_nothing(tap: Tap):
    async with link(tap.url) as client:
        outcomes = await asyncio.gather(*(
            client.call("search", {"query": f"q{n}"}, timeout=20) for n in range(50)))
    assert all(outcome.error is None for outcome in outcomes)
    notes = tap.notes()
    sent = [n["jsonrpc"] for n in notes if n["message"] == "→ tools/call search"]
    answered = [n["jsonrpc"] for n in notes if n["message"].startswith("← result search")]
    assert len(sent) == len(answered) == 50
    assert {m["id"] for m in sent} == {m["id"] for m in answered}
    assert sorted(m["params"]["arguments"]["query"] for m in sent) == sorted(
        f"q{n}" for n in range(50))


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
    refused = McpLink(tap.url, headers={"Authorization": "Bearer wrong-token-123"}, timeout=5)
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
            [sys.executable, "-m", "tui", "tap", "--upstream", f"{server.url}/mcp", "--port",
             "0", "--record", "tap.jsonl", "--public-url", "https://abc.example.dev",
             "--no-tui"],
            cwd=tmp_path, env=cli_env(api_key=None), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert process.stdout is not None
        first = process.stdout.readline()
        address = re.search(r"(http://127\.0\.0\.1:\d+)/mcp → ", first)
        assert address, first + process.stderr.read()
        assert "server_url for the request: https://abc.example.dev/mcp" in \
            process.stdout.readline()

        async def use() -> None:
            async with McpLink(f"{address.group(1)}/mcp", timeout=10) as client:
                await client.call("search", {"query": "x"}, timeout=10)

        asyncio.run(use())
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, out + err
    assert "→ tools/call search" in out and "← result search" in out
    assert "messages recorded in tap.jsonl" in out.splitlines()[-1]


def test_an_unusable_upstream_is_refused(tmp_path: Path):
    assert_refused(run_cli(["tap", "--upstream", "localhost:8765/mcp"], tmp_path),
                   "must be an http(s) URL such as http://127.0.0.1:8765/mcp")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_refused(run_cli(["tap", "--upstream", "http://127.0.0.1:9/mcp", "--port",
                                str(port)], tmp_path), f"port {port} is in use")
