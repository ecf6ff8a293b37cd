"""The relay's own hop to a plain-HTTP upstream (tui/mcptui/capture/upstream.py), against a
scripted asyncio server on loopback: connections kept alive and reused, an idle one the server
closed retried once, bodies framed every way HTTP/1.1 frames them, and the errors the relay
tells apart (refused, broken mid-answer) raised as httpx2's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx2
import pytest
from mcptui.capture.upstream import Headers, Route, Upstream

Answerer = Callable[[bytes, asyncio.StreamWriter], None]


class Scripted:
    """A loopback server: each request (its head and body, read whole) is answered by
    `answer`, which writes to the connection (and may close it)."""

    def __init__(self, answer: Answerer) -> None:
        self.answer = answer
        self.connections = 0
        self.requests: list[bytes] = []
        self.writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Scripted:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        self.server.close()
        for writer in self.writers:  # each connection's reader ends, not cancelled
            writer.close()
        await self.server.wait_closed()

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                body = b""
                lowered = head.lower()
                if b"content-length:" in lowered:
                    length = int(lowered.split(b"content-length:")[1].split(b"\r\n")[0])
                    body = await reader.readexactly(length)
                elif b"transfer-encoding: chunked" in lowered:
                    body = await reader.readuntil(b"0\r\n\r\n")
                self.requests.append(head + body)
                self.answer(head + body, writer)
                await writer.drain()
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def fixed(answer: bytes, close: bool = False) -> Answerer:
    def write(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(answer)
        if close:
            writer.close()

    return write


JSON = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
SSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    b"d\r\ndata: hello\n\n\r\n0\r\n\r\n"
)


def route(url: str) -> Route:
    return Route.of(httpx2.URL(url))


async def fetch(
    hop: Upstream, url: str, content: bytes | AsyncIterator[bytes] = b"{}", method: str = "POST"
) -> tuple[int, bytes]:
    seen: list[bool] = []
    answer = await hop.send(route(url), method, [], content, lambda: seen.append(True))
    assert seen == [True]  # `meanwhile` done once, before the answer
    body = b"".join([chunk async for chunk in answer.aiter_raw()])
    await answer.aclose()
    return answer.status_code, body


async def test_one_connection_carries_request_after_request() -> None:
    hop = Upstream()
    async with Scripted(fixed(SSE)) as server:
        for _ in range(5):
            assert await fetch(hop, server.url()) == (200, b"data: hello\n\n")
        assert server.connections == 1
        assert len(server.requests) == 5
        assert server.requests[0].startswith(b"POST /mcp HTTP/1.1\r\n")
        assert b"Host: 127.0.0.1:" in server.requests[0]
    await hop.aclose()


async def test_an_idle_connection_the_server_closed_is_retried_on_a_new_one() -> None:
    hop = Upstream()
    closing = JSON.replace(b"\r\n\r\n", b"\r\nconnection: keep-alive\r\n\r\n", 1)
    async with Scripted(fixed(closing, close=True)) as server:
        assert await fetch(hop, server.url()) == (200, b"{}")
        assert await fetch(hop, server.url()) == (200, b"{}")
        assert server.connections == 2
    await hop.aclose()


async def test_a_body_that_ends_with_the_connection_is_read_to_its_end() -> None:
    hop = Upstream()
    answer = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end"
    async with Scripted(fixed(answer, close=True)) as server:
        assert await fetch(hop, server.url()) == (200, b"until the end")
        assert await fetch(hop, server.url()) == (200, b"until the end")
        assert server.connections == 2  # such a connection is never reused
    await hop.aclose()


async def test_an_answer_to_head_has_no_body_and_the_connection_goes_on() -> None:
    hop = Upstream()
    answer = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n"
    async with Scripted(fixed(answer)) as server:
        assert await fetch(hop, server.url(), b"", "HEAD") == (200, b"")
        assert await fetch(hop, server.url(), b"", "HEAD") == (200, b"")
        assert server.connections == 1
    await hop.aclose()


async def test_an_informational_answer_is_passed_over() -> None:
    hop = Upstream()
    async with Scripted(fixed(b"HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n" + JSON)) as server:
        answer = await hop.send(route(server.url()), "POST", [], b"{}", lambda: None)
        assert answer.status_code == 200
        assert answer.headers.raw == [
            (b"content-type", b"application/json"),
            (b"content-length", b"2"),
        ]
        assert await answer.next() == b"{}"
        assert await answer.next() is None
    await hop.aclose()


async def test_a_streamed_body_goes_chunked_and_arrives_whole() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b'{"a":'
        yield b""
        yield b"1}"

    hop = Upstream()
    async with Scripted(fixed(JSON)) as server:
        assert await fetch(hop, server.url(), body()) == (200, b"{}")
        sent = server.requests[0]
        assert b"Transfer-Encoding: chunked" in sent
        assert sent.endswith(b'5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n')
    await hop.aclose()


async def test_an_answer_broken_mid_body_raises_after_the_bytes_before_it() -> None:
    broken = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nd\r\ndata: hello\n\n\r\n"
    hop = Upstream()
    async with Scripted(fixed(broken, close=True)) as server:
        answer = await hop.send(route(server.url()), "POST", [], b"{}", lambda: None)
        assert await answer.next() == b"data: hello\n\n"
        with pytest.raises(httpx2.RemoteProtocolError, match="complete message body"):
            await answer.next()
        await answer.aclose()
    await hop.aclose()


async def test_no_answer_at_all_is_a_protocol_error_and_not_retried_on_a_new_connection() -> None:
    hop = Upstream()
    async with Scripted(fixed(b"", close=True)) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match="without sending a response"):
            await fetch(hop, server.url())
        assert server.connections == 1
    await hop.aclose()


async def test_an_answer_that_is_not_http_is_a_protocol_error() -> None:
    hop = Upstream()
    async with Scripted(fixed(b"SSH-2.0-OpenSSH\r\n\r\n")) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match="not HTTP"):
            await fetch(hop, server.url())
    await hop.aclose()


async def test_an_answer_with_over_100_kb_of_headers_is_refused() -> None:
    lines = (b"x-more: " + b"z" * 1000 + b"\r\n") * 200  # 200 KB of headers
    answer = b"HTTP/1.1 200 OK\r\n" + lines + b"content-length: 0\r\n\r\n"
    hop = Upstream()
    async with Scripted(fixed(answer)) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match="headers are over 100 KB"):
            await fetch(hop, server.url())
    await hop.aclose()


async def test_a_refused_connection_is_a_connect_error() -> None:
    server = await asyncio.start_server(lambda *_: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(httpx2.ConnectError):
        await fetch(Upstream(), f"http://127.0.0.1:{port}/mcp")


@pytest.mark.parametrize(
    "raw",
    [
        [(b"Content-Type", b"text/event-stream"), (b"set-cookie", b"a=1"), (b"Set-Cookie", b"b=2")],
        [(b"x-name", "café".encode())],
        [(b"x-name", "café".encode("latin-1"))],
        [],
    ],
)
def test_headers_read_as_httpx2_reads_them(raw: list[tuple[bytes, bytes]]) -> None:
    assert dict(Headers(raw).items()) == dict(httpx2.Headers(raw).items())


@pytest.mark.parametrize(
    ("method", "content", "headers"),
    [
        ("POST", b'{"a":1}', [(b"content-type", b"application/json"), (b"x-k", b"v")]),
        ("POST", b"", []),
        ("GET", b"", [(b"accept", b"text/event-stream")]),
        ("DELETE", b"", []),
        ("POST", None, []),
        ("POST", None, [(b"content-length", b"3")]),
    ],
)
async def test_the_head_sent_is_the_one_httpx2_would_send(
    method: str, content: bytes | None, headers: list[tuple[bytes, bytes]]
) -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"abc"

    async with Scripted(fixed(JSON)) as server:
        url = server.url("/mcp?q=%C3%A9&b")
        sent = body() if content is None else content
        expected = httpx2.Request(method, url, headers=headers, content=sent).headers.raw
        hop = Upstream()
        answer = await hop.send(route(url), method, headers, sent, lambda: None)
        await answer.aclose()
        await hop.aclose()
        head = server.requests[0].split(b"\r\n\r\n")[0].split(b"\r\n")
        assert head[0] == f"{method} /mcp?q=%C3%A9&b HTTP/1.1".encode()
        assert [tuple(line.split(b": ", 1)) for line in head[1:]] == expected
