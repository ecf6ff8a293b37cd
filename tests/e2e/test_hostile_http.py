"""Odd HTTP against all four servers (emulate, demo-server, proxy, tap: both its relays), over
raw sockets: whatever the method, target or body, the answer is never a 500 (issue 35, V1 and
V2)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from mcptui.capture.captures import CaptureHub
from mcptui.capture.relay import RecordingProxy
from mcptui.capture.tap import TapHub
from mcptui.capture.tap_relay import RelayThread
from mcptui.emulator.app import Emulator
from mcptui.emulator.demo_server import DemoModes, build_app
from mcptui.net.serve import ServerThread, bind

REQUEST_LINES = [
    b"OPTIONS * HTTP/1.1",
    b"GET * HTTP/1.1",
    b"POST * HTTP/1.1",
    b"OPTIONS /v1/responses HTTP/1.1",
    b"PROPFIND // HTTP/1.1",
    b"BREW /mcp HTTP/1.1",
    b"GET http://example.com/x HTTP/1.1",
    b"GET /%ff%00%2e%2e HTTP/1.1",
    b"DELETE /v1/responses/%00 HTTP/1.1",
    b"POST //example.com/x HTTP/1.1",
    b"GET /v1/responses/x?stream=true&starting_after=" + b"9" * 5000 + b" HTTP/1.1",
]


@pytest.fixture(scope="module")
def addresses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    folder = tmp_path_factory.mktemp("rec")
    modes = DemoModes(call_token="t", legacy_only=True)
    with ExitStack() as stack:
        emulator = stack.enter_context(ServerThread(Emulator().app))
        mcp = stack.enter_context(ServerThread(build_app()))
        moody = stack.enter_context(ServerThread(build_app(modes=modes)))
        tap = stack.enter_context(
            ServerThread(RecordingProxy(TapHub(f"{mcp.url}/mcp", folder / "tap.jsonl")))
        )
        own = stack.enter_context(
            RelayThread(TapHub(f"{mcp.url}/mcp", folder / "tap-own.jsonl"), bind())
        )
        proxy = stack.enter_context(
            ServerThread(RecordingProxy(CaptureHub(f"{emulator.url}/v1", folder)))
        )
        yield {
            "emulate": emulator.url,
            "demo-server": mcp.url,
            "demo-server --call-token --legacy-only": moody.url,
            "tap": tap.url,
            "tap's own relay": own.url,
            "proxy": proxy.url,
        }


def raw_status(url: str, request: bytes) -> int:
    """The status code of the answer to `request` (the head and body as sent)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def request(line: bytes, body: bytes = b"", *headers: bytes) -> bytes:
    head = [
        line,
        b"Host: 127.0.0.1",
        b"Connection: close",
        b"Content-Type: application/json",
        b"Accept: application/json, text/event-stream",
        b"Authorization: Bearer k",
        b"Content-Length: " + str(len(body)).encode(),
        *headers,
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


SERVERS = [
    "emulate",
    "demo-server",
    "demo-server --call-token --legacy-only",
    "tap",
    "tap's own relay",
    "proxy",
]


@pytest.mark.parametrize("line", REQUEST_LINES, ids=lambda line: line[:40].decode())
@pytest.mark.parametrize("server", SERVERS)
def test_no_method_or_target_gets_a_500(addresses: dict[str, str], server: str, line: bytes):
    assert raw_status(addresses[server], request(line)) < 500


@pytest.mark.parametrize("server", ["tap", "tap's own relay", "proxy"])
def test_options_star_is_answered_with_allow(addresses: dict[str, str], server: str):
    host, port = addresses[server].removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 200") and b"\r\nallow: " in head


DEEP = b"[" * 5000 + b"]" * 5000
BODIES = {
    "an array 5000 deep": DEEP,
    "a message nested 5000 deep": b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
    b'"params": ' + DEEP + b"}",
    "NaN id": b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}',
    "an id past float range": b'{"jsonrpc": "2.0", "id": 1e999999, "method": "ping"}',
    "a lone surrogate": b'{"jsonrpc": "2.0", "id": 1, "method": "\\ud800"}',
    "not UTF-8": b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}',
}


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
@pytest.mark.parametrize("path", [b"/mcp", b"/v1/responses"])
@pytest.mark.parametrize("server", SERVERS)
def test_no_body_gets_a_500(addresses: dict[str, str], server: str, path: bytes, body: bytes):
    assert raw_status(addresses[server], request(b"POST " + path + b" HTTP/1.1", body)) < 500
