"""`mcptui proxy --no-tui` records in a child process (tui/mcptui/capture/offload.py), `mcptui
tap --no-tui` later in its relay's (tui/mcptui/capture/deferred.py): every event or message
relayed must be in the recordings once they have stopped, redacted, even when Ctrl+C (sent to
the whole process group, as a terminal does) comes while the recording still lags behind."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _e2e_support import start_listening
from mcptui.emulator.demo_server import build_app
from mcptui.net.serve import ServerThread
from test_run_cli import cli_env

KEY = "sk-proj-offload0123456789abcdefSECRET"
EVENTS = 2000
"""Deltas per stream: enough that the child is still recording when Ctrl+C comes."""
STREAMS = 3


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def stream_events(number: int, key: str) -> Iterator[dict[str, Any]]:
    """A response of EVENTS deltas; one pair of deltas echoes the client's API key split in
    two, as a model quoting it would."""
    response = {"id": f"resp_offload{number}", "object": "response", "status": "in_progress"}
    yield {"type": "response.created", "sequence_number": 0, "response": response}
    for n in range(1, EVENTS + 1):
        text = f"w{n} "
        if n == 10:
            text = f"key {key[:12]}"
        elif n == 11:
            text = f"{key[12:]} end "
        yield {
            "type": "response.output_text.delta",
            "sequence_number": n,
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": text,
        }
    done = {**response, "status": "completed"}
    yield {"type": "response.completed", "sequence_number": EVENTS + 1, "response": done}


async def upstream(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Streams one fast response per create, numbered by its `input`."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    auth = dict(scope["headers"]).get(b"authorization", b"").decode()
    number = json.loads(body)["input"]
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    for event in stream_events(number, auth.removeprefix("Bearer ")):
        await send({"type": "http.response.body", "body": sse(event), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


@pytest.fixture
def api() -> Iterator[str]:
    with ServerThread(upstream) as server:
        yield f"{server.url}/v1"


def read_stream(address: str, number: int, got: dict[int, list[dict[str, Any]]]) -> None:
    with (
        httpx2.Client(timeout=60) as client,
        client.stream(
            "POST",
            f"{address}/v1/responses",
            json={"model": "m", "input": number, "stream": True},
            headers={"authorization": f"Bearer {KEY}"},
        ) as response,
    ):
        got[number] = [
            json.loads(line[5:]) for line in response.iter_lines() if line.startswith("data:")
        ]


def test_every_relayed_event_is_recorded_redacted_after_ctrl_c(api: str, tmp_path: Path):
    # its own process group: Ctrl+C goes to the proxy and its child
    process, address = start_listening(
        ["proxy", "--no-tui", "--port", "0", "--upstream", api, "--record", "rec"],
        tmp_path,
        cli_env(api_key=None),
        "v1",
        own_group=True,
    )
    try:
        got: dict[int, list[dict[str, Any]]] = {}
        readers = [
            threading.Thread(target=read_stream, args=(address, number, got))
            for number in range(STREAMS)
        ]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
    finally:
        os.killpg(process.pid, signal.SIGINT)  # at once, as a terminal's Ctrl+C
        out, err = process.communicate(timeout=60)
    assert "Traceback" not in out + err, err
    assert process.returncode == 0, out + err
    assert sorted(got) == list(range(STREAMS))
    assert all(len(events) == EVENTS + 2 for events in got.values())
    assert f"{STREAMS} responses captured, 0 with failures" in out.splitlines()[-1]
    recordings = sorted((tmp_path / "rec").glob("*.jsonl"))
    assert len(recordings) == STREAMS
    for path in recordings:
        text = path.read_text()
        assert KEY not in text and KEY[12:] not in text  # however the stream split it
        lines = [json.loads(line) for line in text.splitlines()]
        assert lines[0]["mcptui"] == "recording"
        events = [line["event"] for line in lines[1:]]
        number = int(events[0]["response"]["id"].removeprefix("resp_offload"))
        assert [e["sequence_number"] for e in events] == list(range(EVENTS + 2))
        assert [e["type"] for e in events] == [e["type"] for e in got[number]]
        times = [line["t"] for line in lines[1:]]
        assert times == sorted(times) and times[0] >= 0


TAP_SECRET = "tap-offload-token-0123456789"
CALLS = 40


def mcp_calls(url: str, calls: int) -> None:
    """A legacy-era session (initialize, then `tools/call search` one after another)."""
    headers = {
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {TAP_SECRET}",
        "mcp-protocol-version": "2025-11-25",
    }
    with httpx2.Client(timeout=30) as client:

        def post(message: dict[str, Any]) -> httpx2.Response:
            answer = client.post(url, json={"jsonrpc": "2.0", **message}, headers=headers)
            assert answer.status_code < 300, answer.text
            return answer

        hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
        answer = post(
            {
                "id": 0,
                "method": "initialize",
                "params": {**hello, "clientInfo": {"name": "test", "version": "0"}},
            }
        )
        headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        post({"method": "notifications/initialized"})
        for number in range(1, calls + 1):
            params = {"name": "search", "arguments": {"query": f"q{number}"}}
            assert '"result"' in post({"id": number, "method": "tools/call", "params": params}).text


def test_every_tap_message_is_recorded_redacted_after_ctrl_c(tmp_path: Path):
    with ServerThread(build_app(token=TAP_SECRET)) as server:
        upstream = f"{server.url}/mcp"
        process, address = start_listening(
            ["tap", "--no-tui", "--port", "0", "--record", "tap.jsonl", "--upstream", upstream],
            tmp_path,
            cli_env(api_key=None),
            "mcp",
            own_group=True,
        )
        try:
            mcp_calls(f"{address}/mcp", CALLS)
        finally:
            os.killpg(process.pid, signal.SIGINT)
            out, err = process.communicate(timeout=60)
    assert "Traceback" not in out + err, err
    assert process.returncode == 0, out + err
    text = (tmp_path / "tap.jsonl").read_text()
    assert TAP_SECRET not in text
    lines = [json.loads(line) for line in text.splitlines()]
    notes = [line["note"] for line in lines[1:]]
    sent = [
        n["jsonrpc"]["params"]["arguments"]["query"]
        for n in notes
        if n["message"] == "→ tools/call search"
    ]
    assert sent == [f"q{number}" for number in range(1, CALLS + 1)]
    answered = [n for n in notes if n["message"].startswith("← result search")]
    assert len(answered) == CALLS
    times = [line["t"] for line in lines[1:]]
    assert times == sorted(times)
    assert "messages recorded in tap.jsonl" in out.splitlines()[-1]
