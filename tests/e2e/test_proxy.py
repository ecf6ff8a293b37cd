"""`mcptui proxy` between the unmodified openai SDK and the emulator, over real loopback HTTP.

What an app sees through the proxy must be what it sees directly; what the proxy records must
inspect as the stream did; nothing secret may land in a file; and the proxy must keep going
when either side misbehaves.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from _cli_fork import forked_cli
from _e2e_support import Servers, calls, raw_events
from mcptui.capture.captures import CaptureHub
from mcptui.capture.proxy_run import SERVER_OPTIONS
from mcptui.capture.relay import UPSTREAM_TIMEOUT, RecordingProxy
from mcptui.io.formats import load_path
from mcptui.net.serve import ServerThread
from mcptui.share.inspect_output import Inspection
from openai import OpenAI

API_KEY = "sk-proxy-test-0123456789abcdef"
MCP_SECRET = "mcp-secret-value-42"


class Proxy:
    """A proxy in a thread, its hub, and an SDK client pointed at it."""

    def __init__(self, upstream: str, record_dir: Path, via: str = "hop") -> None:
        self.hub = CaptureHub(upstream, record_dir)
        # "hop": a plain-HTTP upstream goes through the relay's own hop; "httpx2": a client
        # given to the relay carries every request, as an https or proxied upstream goes.
        client = None if via == "hop" else httpx2.AsyncClient(timeout=UPSTREAM_TIMEOUT)
        self.server = ServerThread(RecordingProxy(self.hub, client), **SERVER_OPTIONS).start()
        self.url = f"{self.server.url}/v1"
        self.record_dir = record_dir
        self.ended = threading.Event()
        self.hub.on_exchange_end = lambda capture, exchange: self.ended.set()

    def client(self, **options: Any) -> OpenAI:
        return OpenAI(base_url=self.url, api_key=API_KEY, max_retries=0, timeout=30, **options)

    def recordings(self) -> list[Path]:
        return sorted(self.record_dir.glob("*.jsonl"))

    def wait_idle(self, timeout: float = 5.0) -> None:
        """Until no exchange is open (the relay records after the client got each chunk)."""
        deadline = time.monotonic() + timeout
        while self.hub.open_exchanges and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.hub.open_exchanges == 0


VIA = pytest.mark.parametrize("via", ["hop", "httpx2"])


@pytest.fixture
def via() -> str:
    return "hop"


@pytest.fixture
def proxy(servers: Servers, tmp_path: Path, via: str) -> Iterator[Proxy]:
    running = Proxy(servers.emulator, tmp_path / "rec", via)
    yield running
    running.server.stop()


def failing_body(servers: Servers) -> dict[str, Any]:
    tool = servers.tool(headers={"Authorization": f"Bearer {MCP_SECRET}"})
    return {
        "model": "gpt-5-mini",
        "tools": [tool],
        "input": calls("q", ("search", {"query": "x"}), ("broken_schema", {"query": "x"})),
    }


_IDS = re.compile(r"\b(resp|mcpl|mcp|msg|rs|req)_[0-9a-f]{16,}\b")


def normalised(events: list[dict[str, Any]]) -> str:
    """Events with ids and clock values replaced by their order of first appearance, so two
    runs of one request compare equal when everything else is."""
    text = json.dumps(events, sort_keys=True)
    seen: dict[str, str] = {}
    text = _IDS.sub(lambda m: seen.setdefault(m.group(0), f"{m.group(1)}#{len(seen)}"), text)
    text = re.sub(r'"obfuscation": "[^"]*"', '"obfuscation": ""', text)
    return re.sub(r'"(created_at|completed_at)": \d+', r'"\1": 0', text)


def recorded_events(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [line["event"] for line in lines if "event" in line]


def recorded_notes(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [line["note"] for line in lines if "note" in line]


def failures(path_or_events: Any) -> list[tuple[str, str | None, str]]:
    loaded = load_path(str(path_or_events))
    return [(f.type, f.name, f.error) for f in Inspection.of(loaded).failures]


@VIA
def test_the_sdk_gets_the_same_events_through_the_proxy(
    servers: Servers, proxy: Proxy, client: OpenAI, tmp_path: Path
):
    body = failing_body(servers)
    direct = raw_events(client, **body)
    with proxy.client() as through:
        proxied = raw_events(through, **body)
        typed = [event.type for event in through.responses.create(stream=True, **body)]
    proxy.wait_idle()

    assert [e["type"] for e in proxied] == [e["type"] for e in direct]
    assert [e["sequence_number"] for e in proxied] == list(range(len(direct)))
    assert normalised(proxied) == normalised(direct)
    assert typed == [e["type"] for e in direct]  # the SDK's own parsing is unaffected

    # The recording holds exactly what the client received, and inspects the same.
    first = next(p for p in proxy.recordings() if proxied[0]["response"]["id"] in p.name)
    assert recorded_events(first) == proxied
    dump = tmp_path / "direct.json"
    dump.write_text(json.dumps(direct))
    assert (
        [f[:2] for f in failures(first)]
        == [f[:2] for f in failures(dump)]
        == [("mcp_call", "broken_schema")]
    )
    assert failures(first)[0][2] == failures(dump)[0][2]

    header = json.loads(first.read_text().splitlines()[0])
    assert header["source"]["kind"] == "proxy"
    assert header["source"]["client"]["user-agent"].startswith("OpenAI/Python")
    assert header["request"]["tools"][0]["server_label"] == "demo"
    assert header["http"]["status"] == 200
    assert header["endpoint"] == f"{servers.emulator}/responses"


def test_no_secret_reaches_a_recording(servers: Servers, proxy: Proxy):
    with proxy.client() as through:
        raw_events(through, **failing_body(servers))
    proxy.wait_idle()
    (recording,) = proxy.recordings()
    text = recording.read_text()
    assert API_KEY not in text and MCP_SECRET not in text
    assert json.loads(text.splitlines()[0])["request"]["tools"][0]["headers"] == {
        "Authorization": "<redacted>"
    }


def test_retrieve_and_cancel_join_the_responses_own_recording(servers: Servers, proxy: Proxy):
    body = {**failing_body(servers), "background": True}
    with proxy.client() as through:
        created = through.responses.create(**body)
        while created.status not in ("completed", "failed", "cancelled", "incomplete"):
            time.sleep(0.05)
            created = through.responses.retrieve(created.id)
        streamed = [e.type for e in through.responses.retrieve(created.id, stream=True)]
    proxy.wait_idle()

    (recording,) = proxy.recordings()  # one response, one recording, however many calls
    assert created.id in recording.name
    notes = recorded_notes(recording)
    assert notes[0]["kind"] == "poll" and notes[0]["response"]["id"] == created.id
    requests = [n for n in notes if n["kind"] == "request"]
    assert requests and all(n["http_status"] == 200 for n in requests)
    assert requests[-1]["message"].startswith(f"GET /v1/responses/{created.id}?stream=true")
    assert [e["type"] for e in recorded_events(recording)] == streamed
    assert [f[1] for f in failures(recording)] == ["broken_schema"]


def test_an_http_error_reaches_the_client_and_the_recording(servers: Servers, proxy: Proxy):
    body = {"model": "gpt-5-mini", "input": "q", "metadata": {"mcptui_fault": "http_429"}}
    with proxy.client() as through, pytest.raises(openai.RateLimitError) as raised:
        through.responses.create(**body)
    proxy.wait_idle()
    assert raised.value.status_code == 429
    (recording,) = proxy.recordings()
    (error,) = [n for n in recorded_notes(recording) if n["kind"] == "http_error"]
    assert error["status"] == 429
    assert error["body"]["error"]["message"] == raised.value.message.split(" - ", 1)[1]
    assert [f[0] for f in failures(recording)] == ["http_error"]


def test_other_endpoints_pass_through_unrecorded(servers: Servers, proxy: Proxy):
    direct = httpx2.get(f"{servers.emulator}/models", headers={"x-test": "1"})
    proxied = httpx2.get(f"{proxy.url}/models", headers={"x-test": "1"})
    assert (proxied.status_code, proxied.content) == (direct.status_code, direct.content)
    assert proxied.headers.get("content-type") == direct.headers.get("content-type")
    assert proxy.recordings() == []


@VIA
def test_an_unreachable_upstream_is_a_502_and_a_note(tmp_path: Path, via: str):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    proxy = Proxy(f"http://127.0.0.1:{port}/v1", tmp_path / "rec", via)
    try:
        with proxy.client() as through, pytest.raises(openai.APIStatusError) as raised:
            through.responses.create(model="gpt-5-mini", input="q")
        assert raised.value.status_code == 502
        assert "could not reach the upstream" in raised.value.message
        proxy.wait_idle()
        (recording,) = proxy.recordings()
        (note,) = recorded_notes(recording)
        assert note["kind"] == "connection_error" and note["level"] == "error"
    finally:
        proxy.server.stop()


@VIA
def test_a_client_that_leaves_mid_stream_is_noted_and_the_proxy_goes_on(
    servers: Servers, proxy: Proxy
):
    body = {
        "model": "gpt-5-mini",
        "tools": [servers.tool()],
        "input": calls("q", ("slow_search", {"query": "x", "delay_s": 5})),
    }
    with (
        httpx2.Client(timeout=10) as http,
        http.stream(
            "POST",
            f"{proxy.url}/responses",
            json={**body, "stream": True},
            headers={"Authorization": f"Bearer {API_KEY}"},
        ) as response,
    ):
        for line in response.iter_lines():
            if "response.in_progress" in line:
                break  # leave while the slow tool runs: nothing arrives for seconds
    proxy.wait_idle(timeout=3)
    (recording,) = proxy.recordings()
    (note,) = [n for n in recorded_notes(recording) if n["kind"] == "disconnect"]
    assert "the client disconnected mid-stream" in note["message"]
    with proxy.client() as through:  # still serving
        assert (
            raw_events(through, model="gpt-5-mini", input="q")[-1]["type"] == "response.completed"
        )


async def _breaking_upstream(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An upstream that starts a stream and drops the connection half-way."""
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    created = {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "resp_broken", "status": "in_progress", "output": []},
    }
    await send(
        {
            "type": "http.response.body",
            "more_body": True,
            "body": f"event: response.created\ndata: {json.dumps(created)}\n\n".encode(),
        }
    )
    raise RuntimeError("upstream crashed mid-stream")


@VIA
def test_an_upstream_that_breaks_mid_stream_breaks_the_clients_stream(tmp_path: Path, via: str):
    with ServerThread(_breaking_upstream) as upstream:
        proxy = Proxy(f"{upstream.url}/v1", tmp_path / "rec", via)
        try:
            with proxy.client() as through, pytest.raises(openai.APIConnectionError):
                for _event in through.responses.create(model="m", input="q", stream=True):
                    pass
            proxy.wait_idle()
            (recording,) = proxy.recordings()
            assert [e["type"] for e in recorded_events(recording)] == ["response.created"]
            (note,) = [n for n in recorded_notes(recording) if n["kind"] == "disconnect"]
            assert "the upstream connection broke mid-stream" in note["message"]
            assert note["level"] == "error"
        finally:
            proxy.server.stop()


def test_when_recording_fails_the_apps_traffic_still_flows(servers: Servers, tmp_path: Path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the recordings folder should be")
    proxy = Proxy(servers.emulator, blocked)
    problems: list[str] = []
    proxy.hub.on_problem = problems.append
    try:
        with proxy.client() as through:
            events = raw_events(through, model="gpt-5-mini", input="q")
        assert events[-1]["type"] == "response.completed"
        proxy.wait_idle()
        assert len(problems) == 1 and "POST /v1/responses: could not record it" in problems[0]
    finally:
        proxy.server.stop()


def test_a_resumed_stream_is_recorded_once_as_the_client_saw_it(
    servers: Servers, proxy: Proxy, tmp_path: Path
):
    """The SDK stops reading at its first text delta and resumes with `starting_after` it:
    the proxy had already relayed (and recorded) later events, which the resume sends again. The
    client saw each once; so does the recording, and `inspect --strict` finds no duplicate."""
    body = {
        "model": "gpt-5-mini",
        "tools": [servers.tool()],
        "background": True,
        "input": calls("q", ("search", {"query": "x"})),
    }
    with proxy.client() as through:
        seen, response_id = [], ""
        with through.responses.create(stream=True, **body) as first:
            for event in first:
                seen.append(event.sequence_number)
                if event.type == "response.created":
                    response_id = event.response.id
                if event.type == "response.output_text.delta":
                    break  # mid-burst: the proxy has relayed more than the client read
        proxy.wait_idle()
        (recording,) = proxy.recordings()
        resumed = through.responses.retrieve(response_id, stream=True, starting_after=seen[-1])
        seen += [event.sequence_number for event in resumed]
    proxy.wait_idle()
    assert seen == list(range(len(seen)))  # the client: each event once, in order
    numbers = [e["sequence_number"] for e in recorded_events(recording)]
    assert numbers == seen
    done = forked_cli(["inspect", "--strict", str(recording)], recording.parent, timeout=60)
    assert "sequence_duplicate" not in done.stdout, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
