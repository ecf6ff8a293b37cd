"""Answers framed every way HTTP/1.1 frames them pass through the relay whole, on one kept-alive
client connection, whether the upstream is reached through the relay's own hop or through
httpx2 (a client given to the relay), and through the tap's own relay (tap_relay.py): a
bodiless 202 whose end comes with its head, a HEAD, a body that arrives in one piece, one that
arrives in pieces, and a body ended by the upstream closing its connection."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcptui.capture.proxy_run import SERVER_OPTIONS
from mcptui.capture.relay import UPSTREAM_TIMEOUT, RecordingProxy
from mcptui.capture.tap import TapHub


class Upstream:
    """A raw loopback server: each path is one scripted answer, written as given (a list of
    writes), the connection closed after it where the script says."""

    SCRIPTS: dict[bytes, tuple[list[bytes], bool]] = {
        b"/accepted": ([b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"], False),
        b"/head": ([b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n"], False),
        b"/whole": ([b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nwhole"], False),
        b"/pieces": (
            [
                b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
                b"3\r\none\r\n",
                b"3\r\ntwo\r\n0\r\n\r\n",
            ],
            False,
        ),
        b"/until-close": ([b"HTTP/1.1 200 OK\r\n\r\nuntil", b" closed"], True),
    }

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.started.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0)
        )
        self.port = self.server.sockets[0].getsockname()[1]
        self.started.set()
        self.loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.lower().split(b"\r\n"):
                    if line.startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                writes, close = self.SCRIPTS[head.split(b" ")[1]]
                for piece in writes:
                    writer.write(piece)
                    await writer.drain()
                if close:
                    writer.close()
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    running = Upstream()
    yield running
    running.stop()


@pytest.mark.parametrize("via", ["hop", "httpx2", "tap_relay"])
def test_every_framing_passes_whole_and_is_recorded(
    upstream: Upstream, tmp_path: Path, via: str
) -> None:
    from mcptui.capture.tap_relay import RelayThread
    from mcptui.net.serve import ServerThread, bind

    record = tmp_path / "tap.jsonl"
    hub = TapHub(f"http://127.0.0.1:{upstream.port}/", record)
    client = None if via == "hop" else httpx2.AsyncClient(timeout=UPSTREAM_TIMEOUT)
    server: Any = (
        RelayThread(hub, bind())
        if via == "tap_relay"
        else ServerThread(RecordingProxy(hub, client), **SERVER_OPTIONS)
    )
    with server as tap, httpx2.Client(timeout=10) as http:
        for _ in range(2):  # again, on the same connections
            accepted = http.post(f"{tap.url}/accepted", json={"jsonrpc": "2.0", "method": "x"})
            assert (accepted.status_code, accepted.content) == (202, b"")
            head = http.head(f"{tap.url}/head")
            assert (head.status_code, head.content, head.headers["content-length"]) == (
                200,
                b"",
                "7",
            )
            assert http.post(f"{tap.url}/whole", content=b"{}").content == b"whole"
            assert http.post(f"{tap.url}/pieces", content=b"{}").content == b"onetwo"
            assert http.post(f"{tap.url}/until-close", content=b"{}").content == b"until closed"
        while hub.open_exchanges:  # the tap records an answer after passing it on
            threading.Event().wait(0.01)
    lines: list[dict[str, Any]] = [json.loads(line) for line in record.read_text().splitlines()]
    recorded = [line["note"]["http"] for line in lines[1:]]
    assert recorded == ["POST /accepted", "POST /whole", "POST /pieces", "POST /until-close"] * 2
