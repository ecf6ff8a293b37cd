"""The tap's own HTTP/1.1 relay: bytes forwarded from the sockets' callbacks, no task between
reading the MCP server's answer and writing it to the client.

Why a second relay beside the ASGI one (tui/mcptui/capture/relay.py, which `mcptui proxy` and
an https or proxied upstream keep): relaying `tools/call` one after another, the ASGI relay's
process took 0.41-0.50 ms of CPU a call in ~10 turns of its event loop (uvicorn's task per
request, a task wake-up for each piece of the answer, its keep-alive timer), a bare asyncio
forwarder 0.14-0.21 ms; with its recorder child the tap made 0.69-0.77x of direct's calls/s
against issue 37's goal of 0.8x. Here a request is parsed (httptools, as uvicorn does) in the
client connection's `data_received` and written to a kept-alive upstream connection at once;
the answer's bytes are written to the client from the upstream connection's `data_received`,
all that one read gave in one write. A turn of the loop is a read of either socket and nothing
else (3.9 a call against the demo server, whose SSE answer comes as its head, its event and its
end, apart): 0.27-0.31 ms of CPU a call recording nothing, 0.33-0.45 ms recording (the steps
posted to a recorder child, as the tap then did), in the same runs as the figures above
(bench/tap_split.py, on 2 cores shared with other work).

What the hub records is unchanged: the same RelayHub calls in the same order as the ASGI relay
(`exchange_for` when the request is complete, before it goes on; the answer's start and each
piece of it before the client gets it; its end), through the same `Recording`, so `TapHub` and
the hubs that record its steps later (tui/mcptui/capture/steps.py) cannot tell the relays apart.

Framing: a request body up to the hub's `request_cap` is held and sent with its
Content-Length; a larger one is streamed on as it arrives (chunked, unless the client gave a
length), and recorded as too large. An answer with a Content-Length passes as it is; any other
(chunked, SSE, until the upstream closes) goes to the client chunked, each piece as it arrives.
Connections are kept alive on both sides; a client's pipelined requests are relayed one at a
time, in order.
A client that leaves mid-answer closes the upstream connection; an upstream that cannot be
reached gets the client a 502 (the hub's body) and a note; one that breaks mid-answer has the
client's connection dropped the same way. Both sides' reading pauses while the other's writing
is behind (TCP holds the faster side back, not the relay's memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http
import json
import os
import signal
import socket
import threading
from collections import deque
from functools import partial
from typing import Any, cast
from urllib.parse import unquote

import httptools
import httpx2

from mcptui.capture.relay import (
    ALLOWED,
    CLIENT_LEFT,
    MAX_ROUTES,
    REQUEST_DROPPED,
    RESPONSE_DROPPED,
    Recording,
    RelayHub,
    refusal,
)
from mcptui.capture.upstream import CONNECT_TIMEOUT, MAX_HEAD, MAX_IDLE, Headers, Route
from mcptui.model.failure_text import describe_exception
from mcptui.net.serve import base_url

KEEP_ALIVE = 5.0
"""Seconds an idle client connection is kept (uvicorn's default)."""
GRACE = 2.0
"""Seconds a stop waits for exchanges still open (a GET event stream) before closing them."""
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "QUERY"})
_NO_BODY_STATUS = frozenset({204, 304})
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_BAD_REQUEST = b"Invalid HTTP request received."


def suits(upstream: str) -> bool:
    """Whether this relay can carry `upstream`: plain HTTP that no proxy of the environment
    applies to (an https or proxied upstream goes through the ASGI relay and httpx2)."""
    try:
        url = httpx2.URL(upstream)
    except (httpx2.InvalidURL, ValueError):
        return False
    if url.scheme != "http":
        return False
    if not any(name.lower() in ("http_proxy", "all_proxy") for name in os.environ):
        return True  # no proxy at all (a client, to ask it, takes 0.2 s to make)
    with httpx2.Client() as client:
        return client._transport_for_url(url) is client._transport  # private, as relay.py's


@functools.cache
def _status_line(status: int) -> bytes:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    return b"HTTP/1.1 %d %s\r\n" % (status, phrase.encode())


class _Head:
    """The upstream answer's head, as `Recording` reads it."""

    __slots__ = ("headers", "status_code")

    def __init__(self, status: int, raw: list[tuple[bytes, bytes]]) -> None:
        self.status_code = status
        self.headers = Headers(raw)


class _Request:
    """One request from the client, as parsed so far."""

    __slots__ = (
        "complete",
        "headers",
        "keep_alive",
        "method",
        "parts",
        "size",
        "started",
        "url",
        "version",
    )

    def __init__(self) -> None:
        self.url = b""
        self.method = ""
        self.version = "1.1"
        self.headers: list[tuple[bytes, bytes]] = []
        self.parts: list[bytes] = []
        self.size = 0
        self.complete = False
        self.keep_alive = True
        self.started = False
        """Its exchange has begun (a body past the cap streams on before it is complete)."""


class TapRelay:
    """The relay: a listening socket's connections, the kept-alive upstream connections, the
    upstream URLs' routes."""

    def __init__(self, hub: RelayHub) -> None:
        self.hub = hub
        self.clients: set[_Client] = set()
        self._idle: dict[tuple[str, int], list[_Upstream]] = {}
        self._routes: dict[str, Route] = {}
        self.closing = False

    # -- upstream connections --------------------------------------------------------------

    def route(self, url: str) -> Route:
        """Where `url` goes (raises httpx2.InvalidURL or ValueError for one no URL carries);
        parsed by httpx2 once per URL, as the ASGI relay's first request to it is."""
        route = self._routes.get(url)
        if route is None:
            route = Route.of(httpx2.URL(url))
            if len(self._routes) >= MAX_ROUTES:
                self._routes.clear()
            self._routes[url] = route
        return route

    def idle_connection(self, key: tuple[str, int]) -> _Upstream | None:
        pool = self._idle.get(key)
        while pool:
            connection = pool.pop()
            if not connection.closed:
                return connection
        return None

    def give_back(self, key: tuple[str, int], connection: _Upstream) -> None:
        pool = self._idle.setdefault(key, [])
        if self.closing or len(pool) >= MAX_IDLE or connection.closed:
            connection.close()
        else:
            connection.exchange = None
            connection.hold(False)
            pool.append(connection)

    # -- serving ----------------------------------------------------------------------------

    async def serve(self, sock: socket.socket, stop: asyncio.Future[None]) -> None:
        """Serve `sock` until `stop` is done; then wait up to GRACE for open exchanges and
        close everything (the hub too)."""
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _Client(self), sock=sock)
        sweeping = loop.create_task(self._sweep())
        try:
            await stop
        finally:
            sweeping.cancel()
            self.closing = True
            server.close()
            for client in list(self.clients):
                if client.idle():
                    client.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(GRACE):
                    while any(client.exchange is not None for client in self.clients):
                        await asyncio.sleep(0.02)
            for client in list(self.clients):
                client.shut()
            for pool in self._idle.values():
                for connection in pool:
                    connection.close()
            self._idle.clear()
            self.hub.close()

    async def _sweep(self) -> None:
        """Close client connections idle for KEEP_ALIVE (a timer per request would cost each
        call a timer handle)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(KEEP_ALIVE / 2)
            now = loop.time()
            for client in list(self.clients):
                if client.idle() and now - client.idle_since > KEEP_ALIVE:
                    client.close()


class _Client(asyncio.Protocol):
    """One client connection: requests parsed as they arrive, relayed one at a time."""

    def __init__(self, relay: TapRelay) -> None:
        self.relay = relay
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.request: _Request | None = None
        """The request being parsed."""
        self.queue: deque[_Request] = deque()
        """Requests whose head has arrived, not yet relayed (the first may be arriving)."""
        self.exchange: _Exchange | None = None
        self.closed = False
        self._head_bytes = 0
        self._holds: set[str] = set()
        self.writing_paused = False
        self.idle_since = 0.0

    # -- the transport's callbacks -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.relay.clients.add(self)
        self.idle_since = asyncio.get_running_loop().time()

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            pass  # no upgrade is relayed: the request was handled as a plain one (as uvicorn)
        except httptools.HttpParserError:
            self._bad_request()

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.relay.clients.discard(self)
        exchange = self.exchange
        if exchange is not None:
            exchange.client_lost()

    def pause_writing(self) -> None:
        self.writing_paused = True
        if self.exchange is not None:
            self.exchange.hold_upstream(True)

    def resume_writing(self) -> None:
        self.writing_paused = False
        if self.exchange is not None:
            self.exchange.hold_upstream(False)

    # -- the parser's callbacks --------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.request = _Request()
        self._head_bytes = 0

    def on_url(self, url: bytes) -> None:
        assert self.request is not None
        self.request.url += url
        self._count(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        assert self.request is not None
        self.request.headers.append((name.lower(), value))
        self._count(len(name) + len(value) + 4)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD:
            raise ValueError("request head too long")  # the parser stops: a 400

    def on_headers_complete(self) -> None:
        request = self.request
        assert request is not None
        parser = self.parser
        request.method = parser.get_method().decode("latin-1")
        request.version = parser.get_http_version()
        request.keep_alive = parser.should_keep_alive()
        self.queue.append(request)
        first = self.exchange is None and len(self.queue) == 1
        if first and (b"expect", b"100-continue") in request.headers:
            self.write(_CONTINUE)
        self._hold("queued", self.exchange is not None)

    def on_body(self, body: bytes) -> None:
        request = self.request
        assert request is not None
        if request.started:  # a body over the cap, streamed on
            if self.exchange is not None:
                self.exchange.upload(body)
            return
        request.parts.append(body)
        request.size += len(body)
        if request.size > self.relay.hub.request_cap:
            self._next()

    def on_message_complete(self) -> None:
        request = self.request
        assert request is not None
        request.complete = True
        self.request = None
        if request.started:
            if self.exchange is not None:
                self.exchange.upload_end()
            return
        self._next()

    # -- relaying ------------------------------------------------------------------------------

    def _next(self) -> None:
        """Relay the first request waiting, if none is being relayed and it is ready."""
        while self.exchange is None and self.queue and not self.closed:
            request = self.queue[0]
            if not request.complete and request.size <= self.relay.hub.request_cap:
                return  # its body is still arriving
            self.queue.popleft()
            request.started = True
            exchange = _Exchange(self, request)
            self.exchange = exchange
            self._hold("queued", bool(self.queue))
            exchange.start()

    def done(self, exchange: _Exchange, keep: bool) -> None:
        """`exchange` ended; `keep`: the connection may carry the next request."""
        if self.exchange is exchange:
            self.exchange = None
        self._hold("upstream", False)
        self._hold("queued", False)
        if not keep or self.relay.closing:
            self.close()
            return
        self.idle_since = asyncio.get_running_loop().time()
        self._next()

    def _hold(self, reason: str, on: bool) -> None:
        """Stop (or go on) reading the client for `reason`: a request queued behind the one
        relayed, an upload the upstream is not taking fast enough."""
        before = bool(self._holds)
        if on:
            self._holds.add(reason)
        else:
            self._holds.discard(reason)
        if self.transport is None or self.closed or before == bool(self._holds):
            return
        if self._holds:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def hold_upload(self, on: bool) -> None:
        self._hold("upstream", on)

    def write(self, data: bytes) -> None:
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def answer(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        """An answer of the relay's own (a 502, a 400, `OPTIONS *`)."""
        head = [_status_line(status)]
        for name, value in [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(body)),
            *headers,
        ]:
            head += [name, b": ", value, b"\r\n"]
        head.append(b"\r\n")
        self.write(b"".join(head) + body)

    def _bad_request(self) -> None:
        if self.exchange is not None:  # the request relayed ends with the connection
            self.exchange.client_lost()
        self.write(
            _status_line(400) + b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%b" % (len(_BAD_REQUEST), _BAD_REQUEST)
        )
        self.close()

    def idle(self) -> bool:
        return self.exchange is None and not self.queue and self.request is None

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def shut(self) -> None:
        """At the relay's stop: an exchange still open ends as it stands (as uvicorn cancels
        the relaying task after its grace), and the connection closes."""
        exchange = self.exchange
        if exchange is not None:
            exchange.shut()
        self.close()


class _Upstream(asyncio.Protocol):
    """One connection to the upstream, carrying one exchange at a time."""

    def __init__(self, key: tuple[str, int]) -> None:
        self.key = key
        self.transport: asyncio.Transport | None = None
        self.exchange: _Exchange | None = None
        self.closed = False
        self.held = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self.exchange is None:  # bytes nobody asked for: the connection cannot be trusted
            self.close()
            return
        self.exchange.upstream_data(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        exchange, self.exchange = self.exchange, None
        if exchange is not None:
            exchange.upstream_lost(exc)

    def pause_writing(self) -> None:
        if self.exchange is not None:
            self.exchange.client.hold_upload(True)

    def resume_writing(self) -> None:
        if self.exchange is not None:
            self.exchange.client.hold_upload(False)

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(data)

    def hold(self, on: bool) -> None:
        """Stop (or go on) reading the answer: the client is behind."""
        if self.transport is None or self.closed or self.held == on:
            return
        self.held = on
        if on:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class _Exchange:
    """One request relayed and its answer passed back, recorded through `Recording`."""

    def __init__(self, client: _Client, request: _Request) -> None:
        self.client = client
        self.relay = client.relay
        self.hub = client.relay.hub
        self.request = request
        self.recording: Recording | None = None
        self.upstream: _Upstream | None = None
        self.head = b""
        self.key: tuple[str, int] = ("", 0)
        self.body: bytes | None = None
        """The whole request body (None: streamed on, over the cap)."""
        self.chunked_upload = False
        self.pending: list[bytes] = []
        """What goes upstream once the connection is open."""
        self.reused = False
        self.began = False
        """A byte of the answer arrived (a kept-alive connection lost before is retried)."""
        self.parser: httptools.HttpResponseParser | None = None
        self.status = 0
        self.informational = False
        self.head_bytes = 0
        self.raw: list[tuple[bytes, bytes]] = []
        self.until_eof = False
        self.chunked = False
        self.keep_client = request.keep_alive
        self.keep_upstream = False
        self.answered = False
        self.finished = False
        self.client_gone = False
        self.out: list[bytes] = []
        """Bytes for the client from one read of the upstream: written together."""
        self.pieces: list[bytes] = []
        """The answer's body from one read: recorded together."""

    # -- the request ---------------------------------------------------------------------------

    def start(self) -> None:
        request, hub = self.request, self.hub
        method = request.method
        target = request.url.decode("latin-1")
        if not target.startswith("/"):
            self._not_relayed(method, target)
            return
        path = unquote(target.split("?", 1)[0])
        headers = [(name, value) for name, value in request.headers if name not in REQUEST_DROPPED]
        parts, request.parts = request.parts, []
        if request.complete and request.size <= hub.request_cap:
            self.body = b"".join(parts)
        self.recording = Recording(
            hub, partial(hub.exchange_for, method, path, target, self.body, list(headers))
        )
        if hub.record_first:
            self.recording.find()
        try:
            route = self.relay.route(hub.upstream_url(target))
        except (httpx2.InvalidURL, ValueError) as exc:
            self._own(
                400,
                refusal(f"{method} {target}: cannot be relayed: {describe_exception(exc)}"),
                end_recording=True,
            )
            return
        lines = [method.encode(), b" ", route.target, b" HTTP/1.1\r\nHost: ", route.host]
        for name, value in headers:
            lines += [b"\r\n", name, b": ", value]
        body = self.body
        if body is not None:
            if body or method in _BODY_METHODS:
                lines.append(b"\r\nContent-Length: %d" % len(body))
        else:
            given = [value for name, value in request.headers if name == b"content-length"]
            if given:
                lines.append(b"\r\ncontent-length: " + given[0])
            else:
                self.chunked_upload = True
                lines.append(b"\r\nTransfer-Encoding: chunked")
        lines.append(b"\r\n\r\n")
        self.head = b"".join(lines)
        self.key = route.address
        if body is not None:
            self.pending = [self.head + body]
        else:
            self.pending = [self.head, *self._framed_upload(b"".join(parts))]
            if request.complete and self.chunked_upload:
                self.pending.append(b"0\r\n\r\n")
        connection = self.relay.idle_connection(self.key)
        if connection is not None:
            self._attach(connection, reused=True)
        else:
            self._open()

    def _open(self) -> None:
        """A new connection to the upstream; the client is not read until it is open."""
        self.client.hold_upload(True)
        asyncio.get_running_loop().create_task(self._connect(self.key))

    def _framed_upload(self, piece: bytes) -> list[bytes]:
        if not piece:
            return []
        if self.chunked_upload:
            return [b"%x\r\n%b\r\n" % (len(piece), piece)]
        return [piece]

    async def _connect(self, key: tuple[str, int]) -> None:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                _, connection = await loop.create_connection(
                    partial(_Upstream, key), key[0], key[1]
                )
        except TimeoutError:
            self._unreachable(httpx2.ConnectTimeout(f"no connection in {CONNECT_TIMEOUT:g} s"))
            return
        except OSError as exc:
            self._unreachable(httpx2.ConnectError(str(exc) or type(exc).__name__))
            return
        if self.finished:  # the client left mid-upload meanwhile
            connection.close()
            return
        self.client.hold_upload(False)
        self._attach(connection, reused=False)

    def _attach(self, connection: _Upstream, *, reused: bool) -> None:
        self.upstream = connection
        self.reused = reused
        connection.exchange = self
        self.parser = httptools.HttpResponseParser(self)
        pending, self.pending = self.pending, []
        connection.write(pending[0] if len(pending) == 1 else b"".join(pending))
        if self.client.writing_paused:
            connection.hold(True)

    def upload(self, piece: bytes) -> None:
        """More of a body over the cap, as it arrives."""
        framed = self._framed_upload(piece)
        if self.upstream is None:
            self.pending += framed
        else:
            for part in framed:
                self.upstream.write(part)

    def upload_end(self) -> None:
        if self.chunked_upload:
            if self.upstream is None:
                self.pending.append(b"0\r\n\r\n")
            else:
                self.upstream.write(b"0\r\n\r\n")

    # -- the answer: the parser's callbacks ------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_bytes += len(name) + len(value) + 4
        if self.head_bytes > MAX_HEAD:
            raise ValueError("head too long")  # the parser stops; `upstream_data` says why
        self.raw.append((name, value))

    def on_headers_complete(self) -> None:
        assert self.parser is not None
        if self.answered:  # bytes past the answer: the connection is not reused
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # 100 Continue, 103 Early Hints: the answer is still to come
            self.informational = True
            self.raw = []
            self.head_bytes = 0
            return
        self.status = status
        raw = self.raw
        assert self.recording is not None
        self.recording.begin(_Head(status, raw))
        head_only = self.request.method == "HEAD"
        length = False
        framed = False
        out = [_status_line(status)]
        for name, value in raw:
            lowered = name.lower()
            if lowered == b"content-length":
                length = framed = True
            elif lowered == b"transfer-encoding" and b"chunked" in value.lower():
                framed = True
            if lowered not in RESPONSE_DROPPED:
                out += [name, b": ", value, b"\r\n"]
        bodiless = head_only or status in _NO_BODY_STATUS
        self.until_eof = not bodiless and not framed
        if not bodiless and not length:
            if self.request.version == "1.1":
                self.chunked = True
                out.append(b"transfer-encoding: chunked\r\n")
            else:
                self.keep_client = False  # an HTTP/1.0 client: the body ends with the connection
        if not self.keep_client or self.relay.closing:
            self.keep_client = False
            out.append(b"connection: close\r\n")
        out.append(b"\r\n")
        self.out.append(b"".join(out))
        if head_only:
            self.keep_upstream = self.parser.should_keep_alive()
            self.answered = True

    def on_body(self, body: bytes) -> None:
        if self.answered:
            return
        self.pieces.append(body)

    def on_message_complete(self) -> None:
        if self.answered:
            return
        if self.informational:
            self.informational = False
            return
        if not self.answered:
            assert self.parser is not None
            self.keep_upstream = self.parser.should_keep_alive()
            self.answered = True

    # -- the answer: from the upstream connection ----------------------------------------------

    def upstream_data(self, data: bytes) -> None:
        self.began = True
        if self.answered:  # more than the answer (a HEAD's body): not reused
            self.keep_upstream = False
            if self.upstream is not None:
                self.upstream.close()
            return
        assert self.parser is not None
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            if isinstance(exc.__context__, ValueError):
                problem = f"the upstream's answer headers are over {MAX_HEAD // 1024} KB"
            else:
                problem = f"the upstream's answer is not HTTP: {exc}"
            self._pass_on()
            self._upstream_failed(httpx2.RemoteProtocolError(problem))
            return
        self._pass_on()
        if self.answered:
            self._end(None)
        elif self.client_gone and self.status:
            self._end(f"{CLIENT_LEFT} mid-stream; the upstream stream was closed too")

    def _pass_on(self) -> None:
        """What one read of the upstream gave: recorded, then written to the client in one
        write (the tap records first: the answer is in the timeline before the client acts on
        it), or the other way round for a hub that records after."""
        pieces = self.pieces
        if pieces:
            self.pieces = []
            chunk = pieces[0] if len(pieces) == 1 else b"".join(pieces)
            assert self.recording is not None
            record_first = self.hub.record_first
            if record_first:
                self.recording.feed(chunk)
            self.out.append(b"%x\r\n%b\r\n" % (len(chunk), chunk) if self.chunked else chunk)
            if self.answered:
                self._close_body()
            self._write_out()
            if not record_first:
                self.recording.feed(chunk)
        else:
            if self.answered:
                self._close_body()
            self._write_out()

    def _close_body(self) -> None:
        if self.chunked:
            self.out.append(b"0\r\n\r\n")
            self.chunked = False

    def _write_out(self) -> None:
        out = self.out
        if out:
            self.out = []
            if self.answered and self.recording is not None:
                self.recording.find()  # counted as open before the client can see the end
            if not self.client_gone:
                self.client.write(out[0] if len(out) == 1 else b"".join(out))

    def upstream_lost(self, exc: Exception | None) -> None:
        if self.finished:
            return
        detail = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
        if not self.status:
            if self.reused and self.body is not None and not self.began and not self.client_gone:
                # an idle connection the upstream had closed: once more, on a new one
                assert self.body is not None
                self.upstream = None
                self.reused = False
                self.pending = [self.head + self.body]
                self._open()
                return
            self._upstream_failed(
                httpx2.RemoteProtocolError(
                    "Server disconnected without sending a response." + detail
                )
            )
        elif self.until_eof:  # a body that ends with the connection
            self.answered = True
            self.keep_upstream = False
            self._pass_on()
            self._end(None)
        else:
            self._upstream_failed(
                httpx2.RemoteProtocolError(
                    "peer closed connection without sending complete message body" + detail
                )
            )

    def _upstream_failed(self, exc: httpx2.HTTPError) -> None:
        if not self.status:
            self._unreachable(exc)
            return
        # After the answer began: the client's connection is dropped as the upstream dropped
        # the relay's.
        self.keep_client = False
        self._end(f"the upstream connection broke mid-stream: {describe_exception(exc)}")

    def _unreachable(self, exc: httpx2.HTTPError) -> None:
        if self.finished:
            return
        message = f"could not reach the upstream {self.hub.upstream}: {describe_exception(exc)}"
        assert self.recording is not None
        exchange = self.recording.find()
        if exchange is not None:
            self.hub.ended(self.hub.unreachable(exchange, message), exchange)
        if not self.request.complete:
            self.keep_client = False
        self._own(502, self.hub.unreachable_answer(message), end_recording=False)

    # -- endings ---------------------------------------------------------------------------

    def _end(self, broken: str | None) -> None:
        """The answer ended (`broken` None) or broke: the connections' fates, then the
        recording's end."""
        if self.finished:
            return
        self.finished = True
        connection = self.upstream
        if connection is not None:
            if (
                broken is None
                and not self.until_eof
                and self.keep_upstream
                and self.request.complete
                and not connection.closed
            ):
                self.relay.give_back(connection.key, connection)
            else:
                connection.exchange = None
                connection.close()
        keep = broken is None and self.keep_client and self.request.complete
        assert self.recording is not None
        self.recording.end(broken)
        self.client.done(self, keep)

    def _own(self, status: int, body: Any, *, end_recording: bool) -> None:
        """Answer the client ourselves (a 502, a 400) and end."""
        self.finished = True
        if self.upstream is not None:
            self.upstream.exchange = None
            self.upstream.close()
        if self.recording is not None and end_recording:
            exchange = self.recording.find()
            if exchange is not None:
                self.hub.ended(None, exchange)
        data = b"" if body is None else json.dumps(body).encode()
        extra = [] if self.keep_client else [(b"connection", b"close")]
        self.client.answer(status, data, extra)
        self.client.done(self, self.keep_client and self.request.complete)

    def _not_relayed(self, method: str, target: str) -> None:
        """A target that is not a path: `OPTIONS *` asks about the server itself (200 with
        Allow, as HTTP/1.1 says); anything else is a 400 (the ASGI relay's `_not_relayed`)."""
        if method == "OPTIONS" and target == "*":
            self.finished = True
            extra = [(b"allow", ALLOWED)]
            if not self.keep_client:
                extra.append((b"connection", b"close"))
            self.client.answer(200, b"", extra)
            self.client.done(self, self.keep_client and self.request.complete)
            return
        self._own(
            400,
            refusal(f"{method} {target[:200]}: only a path (/...) can be relayed"),
            end_recording=False,
        )

    def client_lost(self) -> None:
        """The client went away. Mid-answer: the upstream connection is closed too, as the
        client's own leaving would have. Before the answer's head: it is awaited (a short
        answer is recorded whole, as the ASGI relay does), unless the request never finished
        arriving (nothing will answer it)."""
        if self.finished:
            return
        self.client_gone = True
        if self.status:
            self._end(f"{CLIENT_LEFT} mid-stream; the upstream stream was closed too")
        elif not self.request.complete:
            self._abandon()

    def _abandon(self) -> None:
        """The client left mid-upload: nobody to answer; the exchange is let go."""
        self.finished = True
        if self.upstream is not None:
            self.upstream.exchange = None
            self.upstream.close()
        if self.recording is not None:
            exchange = self.recording.find()
            if exchange is not None:
                self.hub.ended(None, exchange)
        self.client.done(self, False)

    def hold_upstream(self, on: bool) -> None:
        """The client is behind: stop reading the upstream until it catches up."""
        if self.upstream is not None:
            self.upstream.hold(on)

    def shut(self) -> None:
        """The relay stops with this exchange open: it ends as it stands."""
        if self.finished:
            return
        if self.status:
            self._end(None)
        else:
            self._abandon()


def serve_tap(hub: RelayHub, sock: socket.socket) -> None:
    """Serve in the foreground until Ctrl+C (or SIGTERM); a second one closes what is still
    open at once."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop: asyncio.Future[None] = loop.create_future()
        relay = TapRelay(hub)

        def stopping() -> None:
            if not stop.done():
                stop.set_result(None)
            else:
                for client in list(relay.clients):
                    client.shut()

        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, stopping)
        await relay.serve(sock, stop)

    asyncio.run(main())


class RelayThread:
    """The tap relay on its own event loop in a daemon thread (the terminal UI, `run --tap`):
    bound at once, so the port is known and a busy one refused before anything starts."""

    def __init__(self, hub: RelayHub, sock: socket.socket) -> None:
        self.hub = hub
        self.socket = sock
        self.url = base_url(sock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Future[None] | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mcptui tap relay", daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = self._loop.create_future()
            serving = asyncio.ensure_future(TapRelay(self.hub).serve(self.socket, self._stop))
            await asyncio.sleep(0)
            self._ready.set()
            await serving

        try:
            asyncio.run(main())
        finally:
            self._ready.set()

    def start(self) -> RelayThread:
        self._thread.start()
        self._ready.wait(10)
        if not self._thread.is_alive():
            raise RuntimeError(f"the tap at {self.url} failed to start")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(_settle, stop)
            self._thread.join(timeout)
        self.socket.close()

    def __enter__(self) -> RelayThread:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
