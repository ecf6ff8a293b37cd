"""The tap's own relay (tui/mcptui/capture/tap_relay.py) at its edges, in front of a raw loopback
server whose every answer is scripted: framing both ways, an SSE answer passed on before it
ends, a client leaving mid-answer, an upstream down or breaking, a body over the cap, pipelined
requests, malformed ones, a kept-alive upstream connection the server had closed. What the
client gets and what the tap records (TapHub, in process) are both checked."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcptui.capture.tap import MAX_BODY, TapHub
from mcptui.capture.tap_relay import RelayThread, suits
from mcptui.net.serve import bind

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search"}}
RESULT = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "structuredContent": {}}}
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, bytes], Awaitable[bool]]
"""A scripted answer: given the request's body, write the answer; True: keep the connection."""


class Scripted:
    """A raw HTTP/1.1 server on loopback, in a thread: each path's answer is a handler."""

    def __init__(self) -> None:
        self.handlers: dict[bytes, Handler] = {}
        self.loop = asyncio.new_event_loop()
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []
        """(head, body) of each request received."""
        self.lost = threading.Event()
        """A connection was closed by the relay while an answer was being written."""
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1"))
            self.port = server.sockets[0].getsockname()[1]
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait(10)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.lower().split(b"\r\n")
                body = b""
                if b"transfer-encoding: chunked" in lines:
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                        piece = await reader.readexactly(size + 2)
                        if not size:
                            break
                        body += piece[:-2]
                else:
                    for line in lines:
                        if line.startswith(b"content-length:"):
                            body = await reader.readexactly(int(line.split(b":")[1]))
                self.requests.append((head, body))
                if not await self.handlers[head.split(b" ")[1]](reader, writer, body):
                    writer.close()
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    def stop(self) -> None:
        async def end() -> None:
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(end(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class Tapped:
    """The tap relay in front of `scripted`, recording with a TapHub."""

    def __init__(self, upstream: str, record: Path) -> None:
        self.hub = TapHub(upstream, record)
        self.relay = RelayThread(self.hub, bind()).start()
        self.url = self.relay.url
        self.record = record

    def notes(self) -> list[dict[str, Any]]:
        deadline = time.monotonic() + 10
        while self.hub.open_exchanges and time.monotonic() < deadline:
            time.sleep(0.01)
        lines = self.record.read_text().splitlines()[1:]
        return [json.loads(line)["note"] for line in lines]


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    running = Scripted()
    yield running
    running.stop()


@pytest.fixture
def tapped(scripted: Scripted, tmp_path: Path) -> Iterator[Tapped]:
    tap = Tapped(f"http://127.0.0.1:{scripted.port}/mcp", tmp_path / "tap.jsonl")
    yield tap
    tap.relay.stop()
    tap.hub.close()


def answer(status: bytes, headers: list[bytes], *body: bytes, keep: bool = True) -> Handler:
    async def handle(_r: asyncio.StreamReader, writer: asyncio.StreamWriter, _b: bytes) -> bool:
        writer.write(b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers))
        writer.write(b"\r\n")
        for piece in body:
            writer.write(piece)
            await writer.drain()
        return keep

    return handle


def sse(message: dict[str, Any]) -> bytes:
    return b"event: message\r\ndata: " + json.dumps(message).encode() + b"\r\n\r\n"


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(data), data)


def wait_until(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_only_a_plain_http_server_is_carried_by_it(monkeypatch: pytest.MonkeyPatch):
    assert suits("http://127.0.0.1:8765/mcp")
    assert not suits("https://mcp.example.com/mcp")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert not suits("http://mcp.example.com/mcp")


def test_content_length_and_chunked_answers_pass_whole_and_are_recorded(
    scripted: Scripted, tapped: Tapped
):
    whole = json.dumps(RESULT).encode()
    scripted.handlers[b"/mcp"] = answer(
        b"200 OK",
        [b"content-type: application/json", b"content-length: %d" % len(whole)],
        whole,
    )
    scripted.handlers[b"/chunked"] = answer(
        b"200 OK",
        [b"content-type: application/json", b"transfer-encoding: chunked"],
        chunk(whole[:10]),
        chunk(whole[10:]) + b"0\r\n\r\n",
    )
    with httpx2.Client(timeout=10) as client:
        for path in ("/mcp", "/chunked", "/mcp"):
            got = client.post(tapped.url + path, json=CALL)
            assert (got.status_code, got.json()) == (200, RESULT)
        assert client.post(tapped.url + "/chunked", json=CALL).headers["transfer-encoding"] == (
            "chunked"
        )
    assert scripted.connections == 1  # one kept-alive upstream connection for every request
    notes = tapped.notes()
    assert [n["message"].split("  · ")[0] for n in notes] == [
        "→ tools/call search",
        "← result search",
    ] * 4


def test_an_sse_answer_reaches_the_client_before_it_ends(scripted: Scripted, tapped: Tapped):
    release = threading.Event()

    async def slow(_r: asyncio.StreamReader, writer: asyncio.StreamWriter, _b: bytes) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}
        writer.write(chunk(sse(progress)))
        await writer.drain()
        while not release.is_set():
            await asyncio.sleep(0.01)
        writer.write(chunk(sse(RESULT)) + b"0\r\n\r\n")
        await writer.drain()
        return True

    scripted.handlers[b"/mcp"] = slow
    with (
        httpx2.Client(timeout=10) as client,
        client.stream("POST", tapped.url + "/mcp", json=CALL) as stream,
    ):
        lines = stream.iter_lines()
        first = next(line for line in lines if line.startswith("data:"))
        assert "notifications/progress" in first  # while the server still holds the rest
        assert [n["message"] for n in tapped.notes()] == [
            "→ tools/call search",
            "← notifications/progress",
        ]
        release.set()
        rest = [line for line in lines if line.startswith("data:")]
    assert json.loads(rest[0].removeprefix("data:")) == RESULT
    assert tapped.notes()[-1]["message"].startswith("← result search")


def test_a_client_leaving_mid_answer_closes_the_upstream_and_is_noted(
    scripted: Scripted, tapped: Tapped
):
    closed = threading.Event()

    async def endless(_r: asyncio.StreamReader, writer: asyncio.StreamWriter, _b: bytes) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        try:
            while True:
                writer.write(chunk(b": keep-alive\r\n\r\n"))
                await writer.drain()
                await asyncio.sleep(0.02)
        except ConnectionError:
            closed.set()
            return False

    scripted.handlers[b"/mcp"] = endless
    with (
        httpx2.Client(timeout=10) as client,
        client.stream("POST", tapped.url + "/mcp", json=CALL) as stream,
    ):
        assert stream.status_code == 200
        next(stream.iter_raw())
    wait_until(closed.is_set, "the upstream connection to be closed")
    (broken,) = [n for n in tapped.notes() if n["kind"] == "disconnect"]
    assert broken["message"] == (
        "✗ POST /mcp (tools/call search): the client disconnected mid-stream; "
        "the upstream stream was closed too"
    )
    assert broken["closed"] == "client"


def test_an_upstream_down_is_a_502_and_a_note(tmp_path: Path):
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    tap = Tapped(f"http://127.0.0.1:{port}/mcp", tmp_path / "tap.jsonl")
    try:
        with httpx2.Client(timeout=10) as client:
            got = client.post(tap.url + "/mcp", json=CALL)
            again = client.post(tap.url + "/mcp", json=CALL)  # the connection was kept
        notes = tap.notes()
    finally:
        tap.relay.stop()
        tap.hub.close()
    assert got.status_code == again.status_code == 502
    assert got.json()["error"]["message"].startswith(
        f"mcptui tap: could not reach the upstream http://127.0.0.1:{port}/mcp: ConnectError"
    )
    failed = [n for n in notes if n["kind"] == "connection_error"]
    assert len(failed) == 2
    assert failed[0]["message"].startswith(
        f"✗ POST /mcp (tools/call search): could not reach the upstream http://127.0.0.1:{port}"
    )


def test_an_upstream_breaking_mid_answer_drops_the_client_too(scripted: Scripted, tapped: Tapped):
    scripted.handlers[b"/mcp"] = answer(
        b"200 OK", [b"content-length: 100"], b'{"jsonrpc": "2.0", "id": 7', keep=False
    )
    with httpx2.Client(timeout=10) as client, pytest.raises(httpx2.RemoteProtocolError):
        client.post(tapped.url + "/mcp", json=CALL)
    (broken,) = [n for n in tapped.notes() if n["kind"] == "disconnect"]
    assert broken["message"].startswith(
        "✗ POST /mcp (tools/call search): the upstream connection broke mid-stream: "
        "RemoteProtocolError: peer closed connection without sending complete message body"
    )
    assert broken["closed"] == "server"


def test_a_body_over_the_cap_is_passed_on_not_recorded(scripted: Scripted, tapped: Tapped):
    async def count(_r: asyncio.StreamReader, writer: asyncio.StreamWriter, body: bytes) -> bool:
        data = json.dumps({"received": len(body)}).encode()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%b" % (len(data), data))
        return True

    scripted.handlers[b"/mcp"] = count
    large = b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"q": "'
    large += b"a" * (MAX_BODY + 1024) + b'"}}'

    def pieces() -> Iterator[bytes]:  # no length given: passed on chunked
        for at in range(0, len(large), 256 * 1024):
            yield large[at : at + 256 * 1024]

    with httpx2.Client(timeout=30) as client:
        sized = client.post(tapped.url + "/mcp", content=large)
        streamed = client.post(tapped.url + "/mcp", content=pieces())
    assert sized.json() == streamed.json() == {"received": len(large)}
    assert scripted.requests[0][1] == scripted.requests[1][1] == large
    notes = tapped.notes()
    assert [n["message"] for n in notes if n["direction"] == "sent"] == [
        f"→ POST /mcp: a body over {MAX_BODY} bytes: relayed, not recorded"
    ] * 2
    assert tapped.record.stat().st_size < 64 * 1024


def raw_exchange(url: str, data: bytes, until: Callable[[bytes], bool]) -> bytes:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        got = b""
        while not until(got) and (piece := sock.recv(65536)):
            got += piece
    return got


def test_pipelined_requests_are_answered_in_order_on_one_connection(
    scripted: Scripted, tapped: Tapped
):
    async def echo(_r: asyncio.StreamReader, writer: asyncio.StreamWriter, body: bytes) -> bool:
        asked = json.loads(body)
        data = json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": {}}).encode()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%b" % (len(data), data))
        return True

    scripted.handlers[b"/mcp"] = echo

    def request(number: int) -> bytes:
        body = json.dumps({**CALL, "id": number}).encode()
        return (
            b"POST /mcp HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%b" % (len(body), body)
        )

    got = raw_exchange(
        tapped.url,
        b"".join(request(number) for number in (1, 2, 3)),
        lambda got: got.count(b"HTTP/1.1 200") == 3 and got.endswith(b"}"),
    )
    ids = [json.loads(part.split(b"\r\n\r\n", 1)[1])["id"] for part in got.split(b"HTTP/1.1")[1:]]
    assert ids == [1, 2, 3]
    sent = [n["jsonrpc"]["id"] for n in tapped.notes() if n["direction"] == "received"]
    assert sent == [1, 2, 3]


@pytest.mark.parametrize(
    "data",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"POST /mcp HTTP/1.1\r\nHost: x\r\ncontent-length: nope\r\n\r\n",
        b"GET /mcp HTTP/1.1\r\n" + b"x-big: " + b"a" * (200 * 1024) + b"\r\n\r\n",
    ],
    ids=["no request line", "a bad length", "a head over 100 KB"],
)
def test_a_malformed_request_is_a_400_and_the_tap_goes_on(
    scripted: Scripted, tapped: Tapped, data: bytes
):
    scripted.handlers[b"/mcp"] = answer(b"202 Accepted", [b"content-length: 0"])
    got = raw_exchange(tapped.url, data, lambda got: b"\r\n\r\n" in got)
    assert got.startswith(b"HTTP/1.1 400 ")
    with httpx2.Client(timeout=10) as client:
        assert client.post(tapped.url + "/mcp", json=CALL).status_code == 202


def test_a_target_that_is_no_path_is_answered_by_the_relay(scripted: Scripted, tapped: Tapped):
    star = raw_exchange(
        tapped.url, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", lambda got: b"\r\n\r\n" in got
    )
    assert star.startswith(b"HTTP/1.1 200 ") and b"\r\nallow: " in star
    absolute = raw_exchange(
        tapped.url,
        b"GET http://example.com/x HTTP/1.1\r\nHost: x\r\n\r\n",
        lambda got: got.endswith(b"}"),
    )
    assert absolute.startswith(b"HTTP/1.1 400 ") and b"only a path" in absolute
    assert scripted.requests == []


def test_a_kept_alive_connection_the_server_closed_is_retried_on_a_new_one(
    scripted: Scripted, tapped: Tapped
):
    whole = json.dumps(RESULT).encode()
    scripted.handlers[b"/mcp"] = answer(
        b"200 OK", [b"content-length: %d" % len(whole)], whole, keep=False
    )  # closes after its answer, without saying so
    with httpx2.Client(timeout=10) as client:
        for _ in range(3):
            assert client.post(tapped.url + "/mcp", json=CALL).json() == RESULT
    assert len(scripted.requests) == 3
    assert [n["kind"] for n in tapped.notes()] == ["mcp", "mcp"] * 3


def test_header_values_are_not_recorded(scripted: Scripted, tapped: Tapped):
    scripted.handlers[b"/mcp"] = answer(b"202 Accepted", [b"content-length: 0"])
    secret = "Bearer relay-secret-0123456789abcdef"
    with httpx2.Client(timeout=10) as client:
        client.post(
            tapped.url + "/mcp",
            json={**CALL, "params": {"name": "search", "arguments": {"echo": secret}}},
            headers={"Authorization": secret, "X-Api-Key": "key-0123456789abcdefghij"},
        )
    tapped.notes()
    assert f"authorization: {secret}".lower().encode() in scripted.requests[0][0].lower()
    text = tapped.record.read_text()
    assert "relay-secret-0123456789abcdef" not in text
    assert "key-0123456789abcdefghij" not in text
