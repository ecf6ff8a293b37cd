"""The relay's hop to a plain-HTTP upstream: kept-alive HTTP/1.1 connections on asyncio's own
transports, answers parsed by httptools (llhttp, the C parser uvicorn serves the relay with).

Why not httpx2 here: relaying `tools/call` one after another through `mcptui tap` (bench/proxy.py),
httpx2's transport (httpcore2 on anyio: a pool, a trace, a timeout scope and an h11 event per
step) was 540-570 µs of the relay's CPU per request on loopback, against 50-100 µs for one
write and a parser fed from `data_received` (measured alone, one request after another to a
minimal server); the tap's whole CPU a call was 1.8-1.9 ms, and the tap made 0.44-0.57x of
direct's calls/s. What this does is what the relay asked of httpx2's transport: send the
request as built by `httpx2.Request` (its Host, its Content-Length or chunked Transfer-Encoding,
the target as httpx2 encoded it), hand back the status, the headers and the body's bytes as
they arrive, de-chunked and never decoded, and raise httpx2's own errors, so the relay tells a
refused connection (a 502) from one broken mid-answer (the client's dropped) as before.

Only an `http://` upstream that no proxy of the environment applies to comes here (the relay
checks with its httpx2 client); https and proxied upstreams go through httpx2 as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, ItemsView
from dataclasses import dataclass
from typing import cast

import httptools
import httpx2

CONNECT_TIMEOUT = 15.0
WRITE_TIMEOUT = 60.0
"""As the relay's `UPSTREAM_TIMEOUT`; no read timeout (a slow tool is the client's to end)."""
READ_AHEAD = 1024 * 1024
"""Bytes of an answer held for a client slower than the upstream; past it the connection stops
being read (TCP holds the upstream back, not the relay's memory)."""
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "QUERY"})
"""Those httpx2 gives a Content-Length of 0 when the body is empty."""
MAX_IDLE = 32
"""Idle connections kept per upstream address."""
MAX_HEAD = 100 * 1024
"""Bytes of an answer's header lines past which it is refused, as httpcore bounds h11 (the
parser itself has no bound: an upstream sending headers without end would fill memory)."""


@dataclass(frozen=True)
class Route:
    """Where a request URL goes: the address, the request target and the Host header, as
    httpx2 parsed and encoded them from the URL."""

    address: tuple[str, int]
    target: bytes
    host: bytes

    @staticmethod
    def of(url: httpx2.URL) -> Route:
        return Route((url.host, url.port or 80), url.raw_path, url.netloc)


class Headers:
    """An answer's headers as the relay reads httpx2's: `raw`, and `items()` with the names
    lowered, a repeated one's values joined by ", ", decoded as httpx2 decodes them (ASCII,
    else UTF-8, else Latin-1, one choice for all)."""

    __slots__ = ("raw",)

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw

    def items(self) -> ItemsView[str, str]:
        whole = b"".join(name + value for name, value in self.raw)
        encoding = "latin-1"
        for candidate in ("ascii", "utf-8"):
            try:
                whole.decode(candidate)
            except UnicodeDecodeError:
                continue
            encoding = candidate
            break
        merged: dict[str, str] = {}
        for name, value in self.raw:
            key = name.decode(encoding).lower()
            text = value.decode(encoding)
            merged[key] = f"{merged[key]}, {text}" if key in merged else text
        return merged.items()


class _Connection(asyncio.Protocol):
    """One connection to the upstream; at most one answer on it at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.answer: Answer | None = None
        self.closed = False
        self._paused = False
        self._drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        if self.answer is None:  # bytes nobody asked for: the connection cannot be trusted
            self.close()
            return
        self.answer.feed(data)

    def eof_received(self) -> bool:
        return False  # the transport closes; connection_lost tells the answer

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.answer is not None:
            self.answer.lost(exc)
        self._wake_writer(exc or ConnectionResetError("the upstream closed the connection"))

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake_writer(None)

    def _wake_writer(self, exc: BaseException | None) -> None:
        waiter, self._drained = self._drained, None
        if waiter is not None and not waiter.done():
            if exc is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(exc)

    async def drain(self) -> None:
        """Wait until the transport's buffer is below its high mark."""
        if self.closed:
            raise ConnectionResetError("the upstream closed the connection")
        if not self._paused:
            return
        self._drained = asyncio.get_running_loop().create_future()
        await self._drained

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class HeadTooLong(httptools.HttpParserError):
    """An answer's headers are over `MAX_HEAD` bytes."""


class Answer:
    """The upstream's answer to one request: `status_code`, `headers` (httpx2's), then the
    body's bytes by `next` (everything that arrived since the last call, joined: an event that
    came alone goes on alone; None at the end), `aiter_raw` as httpx2's, `aclose`."""

    def __init__(
        self, hop: Upstream, key: tuple[str, int], connection: _Connection, head_only: bool
    ):
        self._hop = hop
        self._key = key
        self._connection = connection
        self._head_only = head_only
        self._parser = httptools.HttpResponseParser(self)
        self._raw: list[tuple[bytes, bytes]] = []
        self._head_bytes = 0
        self._informational = False
        self._until_eof = False
        self.status_code = 0
        self.headers = Headers([])
        self.began = False
        """Any byte of the answer arrived (a connection lost before is safe to retry)."""
        self._head: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._chunks: list[bytes] = []
        self._held = 0
        self._paused = False
        self._complete = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._done = False
        self._keep_alive = False

    # -- the parser's callbacks ------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4
        if self._head_bytes > MAX_HEAD:
            raise HeadTooLong  # the parser stops; `feed` says why
        self._raw.append((name, value))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:  # 100 Continue, 103 Early Hints: the answer is still to come
            self._informational = True
            self._raw = []
            return
        self.status_code = status
        self.headers = Headers(self._raw)
        framed = any(
            (lowered := name.lower()) == b"content-length"
            or (lowered == b"transfer-encoding" and b"chunked" in value.lower())
            for name, value in self._raw
        )
        self._until_eof = not self._head_only and status not in (204, 304) and not framed
        if not self._head.done():
            self._head.set_result(None)
        if self._head_only:
            self._keep_alive = self._parser.should_keep_alive()
            self._finished()

    def on_body(self, body: bytes) -> None:
        if self._complete:
            return
        self._chunks.append(body)
        self._held += len(body)
        if self._held > READ_AHEAD and not self._paused and self._connection.transport:
            self._paused = True
            self._connection.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if self._informational:
            self._informational = False
            return
        if not self._complete:
            # Asked now: once the message is done the parser has reset, and says False.
            self._keep_alive = self._parser.should_keep_alive()
            self._finished()

    # -- from the connection -----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        self.began = True
        if self._complete:  # more than the answer (a HEAD's body): not reused
            self._connection.close()
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            if isinstance(exc.__context__, HeadTooLong) or isinstance(exc, HeadTooLong):
                problem = f"the upstream's answer headers are over {MAX_HEAD // 1024} KB"
            else:
                problem = f"the upstream's answer is not HTTP: {exc}"
            self._fail(httpx2.RemoteProtocolError(problem))
            self._connection.close()

    def lost(self, exc: Exception | None) -> None:
        if self._complete:
            return
        if self._head.done() and self._until_eof:  # a body that ends with the connection
            self._finished()
            return
        if not self._head.done():
            message = "Server disconnected without sending a response."
        else:
            message = "peer closed connection without sending complete message body"
        if exc is not None:
            message += f" ({type(exc).__name__}: {exc})"
        self._fail(httpx2.RemoteProtocolError(message))

    def _finished(self) -> None:
        self._complete = True
        self._wake()

    def _fail(self, exc: BaseException) -> None:
        if self._error is None and not self._complete:
            self._error = exc
            if not self._head.done():
                self._head.set_exception(exc)
            self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- the relay's side --------------------------------------------------------------------

    def ready(self) -> bool:
        """Whether `next` would return without waiting."""
        return bool(self._chunks) or self._complete or self._error is not None

    def ended(self) -> bool:
        """Whether the answer has ended with the bytes last returned by `next` (the next
        returns None)."""
        return self._complete and not self._chunks

    async def head(self) -> None:
        await self._head

    async def next(self) -> bytes | None:
        """The bytes that arrived since the last call (waiting for some); None at the end.
        Raises httpx2's RemoteProtocolError when the upstream broke the answer."""
        while True:
            if self._chunks:
                chunks, self._chunks, self._held = self._chunks, [], 0
                if self._paused:
                    self._paused = False
                    if self._connection.transport is not None:
                        self._connection.transport.resume_reading()
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
            if self._complete:
                self._release()
                return None
            if self._error is not None:
                raise self._error
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        while (chunk := await self.next()) is not None:
            yield chunk

    async def aclose(self) -> None:
        """Let the connection go: back to the pool if the answer was read to its end and the
        upstream keeps it alive, else closed."""
        if not self._done:
            self._done = True
            self._connection.answer = None
            self._connection.close()

    def _release(self) -> None:
        if self._done:
            return
        self._done = True
        connection = self._connection
        connection.answer = None
        if self._until_eof or connection.closed or not self._keep_alive:
            connection.close()
        else:
            self._hop.idle(self._key, connection)


class Upstream:
    """Kept-alive HTTP/1.1 connections to plain-HTTP upstreams, one request at a time on each."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._closed = False

    def idle(self, key: tuple[str, int], connection: _Connection) -> None:
        pool = self._idle.setdefault(key, [])
        if self._closed or len(pool) >= MAX_IDLE:
            connection.close()
        else:
            pool.append(connection)

    async def _connection(self, key: tuple[str, int]) -> tuple[_Connection, bool]:
        """A connection to `key`, and whether it was idle in the pool (reused)."""
        pool = self._idle.get(key)
        while pool:
            connection = pool.pop()
            if not connection.closed:
                return connection, True
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                _, connection = await loop.create_connection(_Connection, key[0], key[1])
        except TimeoutError as exc:
            raise httpx2.ConnectTimeout(f"no connection in {CONNECT_TIMEOUT:g} s") from exc
        except OSError as exc:
            raise httpx2.ConnectError(str(exc) or type(exc).__name__) from exc
        return connection, False

    async def send(
        self,
        route: Route,
        method: str,
        headers: list[tuple[bytes, bytes]],
        content: bytes | AsyncIterator[bytes],
        meanwhile: Callable[[], object],
    ) -> Answer:
        """Send a request (its body `content`: the bytes, or a stream of them), do `meanwhile`
        once it is written, and return the answer once its head has arrived.

        The head is the one `httpx2.Request(method, url, headers=headers, content=content)`
        sends: Host first, then `headers`, then the body's length (bytes; none for an empty
        one but of the methods that carry a body) or, for a stream without a Content-Length
        in `headers`, chunked Transfer-Encoding."""
        key = route.address
        lines = [method.encode(), b" ", route.target, b" HTTP/1.1\r\nHost: ", route.host]
        for name, value in headers:
            lines += [b"\r\n", name, b": ", value]
        chunked = False
        if isinstance(content, bytes):
            if content or method in _BODY_METHODS:
                lines.append(b"\r\nContent-Length: %d" % len(content))
        elif not any(name.lower() == b"content-length" for name, _ in headers):
            chunked = True
            lines.append(b"\r\nTransfer-Encoding: chunked")
        lines.append(b"\r\n\r\n")
        head = b"".join(lines)
        head_only = method == "HEAD"
        after: Callable[[], object] | None = meanwhile
        while True:
            connection, reused = await self._connection(key)
            answer = Answer(self, key, connection, head_only)
            connection.answer = answer
            try:
                connection.write(head + content if isinstance(content, bytes) else head)
                if after is not None:
                    after()
                    after = None
                if not isinstance(content, bytes):
                    await self._stream(connection, content, chunked)
                await answer.head()
                return answer
            except httpx2.RemoteProtocolError:
                await answer.aclose()
                if reused and isinstance(content, bytes) and not answer.began:
                    continue  # an idle connection the upstream had closed: once more, anew
                raise
            except BaseException:
                await answer.aclose()
                raise

    async def _stream(
        self,
        connection: _Connection,
        content: AsyncIterator[bytes],
        chunked: bool,
    ) -> None:
        """A request body as it arrives from the client, each piece written as it comes."""
        async for piece in content:
            if not piece:
                continue
            connection.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            await self._drain(connection)
        if chunked:
            connection.write(b"0\r\n\r\n")
        await self._drain(connection)

    @staticmethod
    async def _drain(connection: _Connection) -> None:
        try:
            async with asyncio.timeout(WRITE_TIMEOUT):
                await connection.drain()
        except TimeoutError as exc:
            raise httpx2.WriteTimeout(
                f"the upstream took no bytes for {WRITE_TIMEOUT:g} s"
            ) from exc
        except OSError as exc:
            raise httpx2.WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        self._closed = True
        pools, self._idle = self._idle, {}
        for pool in pools.values():
            for connection in pool:
                with contextlib.suppress(Exception):
                    connection.close()
