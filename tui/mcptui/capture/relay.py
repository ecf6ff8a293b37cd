"""The proxy itself: an ASGI app that relays every request to the upstream API byte for byte.

Each answer is passed on chunk by chunk as it arrives (`aiter_raw`: still compressed if it was,
never buffered), and only then handed to the capture, so recording adds no wait before a chunk
reaches the client. Hop-by-hop headers are the only thing changed. The client's credentials go
upstream untouched and are never read or kept. A plain-HTTP upstream (the tap's MCP server on
loopback, a local stand-in of the API) is reached through the relay's own hop
(tui/mcptui/capture/upstream.py), any other through httpx2.

What can go wrong, and what each side then sees:
- the upstream cannot be reached: the client gets a 502 with an OpenAI-shaped error body; the
  recording notes it;
- the upstream breaks mid-stream: the client's connection is dropped the same way; the
  recording notes it;
- the client goes away mid-stream: the upstream stream is closed too, as the client's own
  disconnect would have; the recording notes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zlib
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, Protocol

import httpx2

from mcptui.capture.upstream import Answer, Route, Upstream
from mcptui.model.failure_text import describe_exception

Scope = dict[str, Any]
Message = dict[str, Any]

REQUEST_DROPPED = frozenset(
    {
        b"host",
        b"content-length",
        b"connection",
        b"keep-alive",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
RESPONSE_DROPPED = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
UPSTREAM_TIMEOUT = httpx2.Timeout(connect=15.0, read=None, write=60.0, pool=None)
"""No read timeout: a slow tool or a long background stream is the client's to give up on."""

log = logging.getLogger("mcptui.proxy")
MAX_QUEUED_CHUNKS = 256
"""Upstream chunks read ahead of the client (each at most 64 KB): a few MB at most."""

MAX_ROUTES = 1024
"""Upstream URLs whose route is kept (the tap's is one; the proxy's one per path)."""

CLIENT_LEFT = "the client disconnected"
"""How a note of a connection the client closed mid-answer begins (the tap tells it from one
the upstream broke by this)."""


class UpstreamBroke(Exception):
    """Raised after the answer began, so the server drops the client's connection as the
    upstream dropped the proxy's."""


class _Quiet(logging.Filter):
    """uvicorn logs a traceback for `UpstreamBroke`, which is the proxy doing its job."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], UpstreamBroke))


logging.getLogger("uvicorn.error").addFilter(_Quiet())


class Recorder(Protocol):
    """One exchange's answer being recorded."""

    capture: Any
    exchange: Any

    def feed(self, chunk: bytes) -> None: ...
    def end(self, broken: str | None = None) -> None: ...


class Headed(Protocol):
    """An answer's head, as `Recording` reads it: httpx2's response, the hop's `Answer`, the
    tap relay's (tui/mcptui/capture/tap_relay.py)."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Any:
        """With `items()`: each name lowered, with its value as text."""


class RelayHub(Protocol):
    """What records the exchanges the relay passes on: the proxy's Responses captures
    (tui/mcptui/capture/captures.py), the tap's MCP messages (tui/mcptui/capture/tap.py)."""

    upstream: str
    request_cap: int
    """The largest request body recorded: a larger one is streamed on, never held, and
    `exchange_for` gets None for its body."""
    record_first: bool
    """Record each chunk before passing it on (the tap: what the server answered is in the
    timeline before whatever the client does with it), or after (the proxy: the app's bytes
    never wait for the recording)."""

    def upstream_url(self, target: str) -> str: ...
    def exchange_for(
        self,
        method: str,
        path: str,
        target: str,
        body: bytes | None,
        headers: list[tuple[bytes, bytes]],
    ) -> Any | None:
        """What to record of this request (None: pass it through unrecorded); `body` None
        for one over `request_cap`."""

    def unreachable_answer(self, message: str) -> dict[str, Any]:
        """The 502 body the client gets when the upstream cannot be reached."""

    def exchange_started(self) -> None: ...
    def begin(self, exchange: Any, status: int, headers: dict[str, str]) -> Recorder: ...
    def unreachable(self, exchange: Any, message: str) -> Any:
        """Record that the upstream could not be reached; what `ended` is then given."""

    def recording_failed(self, exchange: Any, exc: BaseException) -> None: ...
    def ended(self, capture: Any, exchange: Any) -> None: ...
    def close(self) -> None: ...


class RecordingProxy:
    """ASGI app: relay to `hub.upstream`, recording what `hub` wants of each exchange."""

    def __init__(self, hub: RelayHub, client: httpx2.AsyncClient | None = None) -> None:
        self.hub = hub
        self._client = client
        self._hop: Upstream | None = None if client is not None else Upstream()
        """The hop to a plain-HTTP upstream (tui/mcptui/capture/upstream.py); None when a
        client was given, which then carries every request."""
        self._routes: dict[str, Route | None] = {}
        """Upstream URL → its route through the hop (None: through httpx2), known from the
        first request to it (httpx2 parsed that one; building an `httpx2.Request` was 0.15 ms
        of the relay's CPU a request)."""

    @property
    def client(self) -> httpx2.AsyncClient:
        if self._client is None:  # made on the server's loop, at its first request
            self._client = httpx2.AsyncClient(
                timeout=UPSTREAM_TIMEOUT,
                follow_redirects=False,
                limits=httpx2.Limits(max_connections=None),
            )
        return self._client

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._relay(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def aclose(self) -> None:
        if self._hop is not None:
            await self._hop.aclose()
        if self._client is not None:
            await self._client.aclose()
        self.hub.close()

    async def _relay(self, scope: Scope, receive: Any, send: Any) -> None:
        method: str = scope["method"]
        path: str = scope["path"]
        query: bytes = scope.get("query_string", b"")
        target = (scope.get("raw_path") or path.encode()).decode("latin-1")
        if query:
            target += "?" + query.decode("latin-1")
        if not target.startswith("/"):
            await _not_relayed(method, target, send)
            return
        head = await _read_head(receive, self.hub.request_cap)
        if head is None:
            return  # the client left before it finished sending
        chunks, complete = head
        headers = [
            (name, value) for name, value in scope["headers"] if name.lower() not in REQUEST_DROPPED
        ]
        # A body over the cap is streamed on as it arrives, never held whole: the hub is
        # told it is too large to record (None) and keeps a note of that instead.
        body = b"".join(chunks) if complete else None
        find = partial(self.hub.exchange_for, method, path, target, body, list(headers))
        # The tap records a request's messages before it goes on; the proxy looks at the
        # request once it is on its way, while the upstream works on it (reading it, its body
        # parsed and its secrets found, was 0.4 ms of the proxy's added time to first byte).
        recording = Recording(self.hub, find)
        if self.hub.record_first:
            recording.find()
        content: bytes | AsyncIterator[bytes]
        if body is not None:
            content = body
        else:
            content = _rest_of_body(chunks, receive)
            headers += [
                (name, value)
                for name, value in scope["headers"]
                if name.lower() == b"content-length"
            ]  # else it goes chunked
        url = self.hub.upstream_url(target)
        route = self._routes.get(url)
        request: httpx2.Request | None = None
        if route is None:
            try:
                request = httpx2.Request(
                    method,
                    url,
                    headers=headers,
                    content=content,
                    extensions={"timeout": UPSTREAM_TIMEOUT.as_dict()},
                )
            except (httpx2.InvalidURL, ValueError) as exc:  # a target no URL can carry
                await _answer_json(
                    send,
                    400,
                    refusal(f"{method} {target}: cannot be relayed: {describe_exception(exc)}"),
                )
                return
            if url not in self._routes:
                route = self._route_of(request.url)
                if len(self._routes) >= MAX_ROUTES:
                    self._routes.clear()
                self._routes[url] = route
        try:
            if route is not None:
                assert self._hop is not None
                upstream: httpx2.Response | Answer = await self._hop.send(
                    route, method, headers, content, recording.find
                )
            else:
                assert request is not None
                upstream = await self._send_then(request, recording.find)
        except _ClientLeftUpload:
            return  # mid-upload: nobody to answer
        except httpx2.HTTPError as exc:
            message = f"could not reach the upstream {self.hub.upstream}: {describe_exception(exc)}"
            exchange = recording.find()
            if exchange is not None:
                self.hub.ended(self.hub.unreachable(exchange, message), exchange)
            await _answer_json(send, 502, self.hub.unreachable_answer(message))
            return
        await self._pass_on(upstream, recording, receive, send)

    def _route_of(self, url: httpx2.URL) -> Route | None:
        """The hop's route to `url`: a plain-HTTP upstream no proxy of the environment applies
        to goes through the relay's own hop (tui/mcptui/capture/upstream.py: httpx2's
        transport was most of the relay's CPU a request); None: any other, through httpx2."""
        client = self.client
        if (
            self._hop is not None
            and url.scheme == "http"
            and client._transport_for_url(url) is client._transport  # private, as in `_send`
        ):
            return Route.of(url)
        return None

    async def _send_then(
        self, request: httpx2.Request, meanwhile: Callable[[], object]
    ) -> httpx2.Response:
        """Send `request`, and once it is written (or its connection is being opened) do
        `meanwhile` before waiting for the answer: the exchange is known, and counted open,
        before any byte of the answer can reach the client."""
        sending = asyncio.ensure_future(self._send(request))
        try:
            await asyncio.sleep(0)  # the send runs until it waits for the upstream
            meanwhile()
            return await sending
        except BaseException:
            sending.cancel()
            raise

    async def _send(self, request: httpx2.Request) -> httpx2.Response:
        """The upstream's answer, its body still to read.

        Straight to the client's transport (its pool, or the proxy the environment names):
        `AsyncClient.send` would add the client's cookie jar to the request and keep the
        upstream's cookies in it (one app's cookies sent with another's requests), and its
        layers (auth, redirects, cookies, logging) were 0.5 ms of CPU a request for nothing
        a relay wants. `httpx2.Request` adds only Host and the body's length."""
        transport = self.client._transport_for_url(request.url)  # private; httpx has no other
        response = await transport.handle_async_request(request)
        response.request = request
        return response

    async def _pass_on(
        self, upstream: httpx2.Response | Answer, recording: Recording, receive: Any, send: Any
    ) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": upstream.status_code,
                "headers": [
                    (name, value)
                    for name, value in upstream.headers.raw
                    if name.lower() not in RESPONSE_DROPPED
                ],
            }
        )
        # Recording starts once the first bytes are on their way: opening its file is not
        # the app's wait.
        recording.upstream = upstream
        # The hop's answer joins what arrived together itself; httpx2's through `_Coalesced`.
        chunks: Answer | _Coalesced | None = None
        raw: AsyncIterator[bytes] | None = None
        watch: _DisconnectWatch | None = None
        if isinstance(upstream, Answer):
            chunks = upstream
        else:
            raw = upstream.aiter_raw()
            watch = _DisconnectWatch(receive)
        broken: str | None = None
        upstream_broke = False
        try:
            record_first = self.hub.record_first
            # The first bytes are read here, with no reader task between them and the client
            # (two turns of the loop less on the way to the first byte); the rest through one.
            if raw is None:
                assert chunks is not None
                # The client's leaving is watched for only while the relay waits for the
                # upstream (a task a request: a short answer has all arrived by now).
                if not chunks.ready() and watch is None:
                    watch = _DisconnectWatch(receive)
                chunk = await chunks.next()
            else:
                chunk = await anext(raw, None)
            last = False  # the end went with the last bytes
            while chunk is not None:
                if chunks is None:
                    assert raw is not None
                    chunks = _Coalesced(raw)
                # The last bytes go with the answer's end, in one write to the client.
                last = chunks.ended()
                if record_first:
                    recording.feed(chunk)
                if last:
                    if watch is not None:
                        watch.finished = True
                    recording.find()  # counted as open before the client can see the end
                await send({"type": "http.response.body", "body": chunk, "more_body": not last})
                if not record_first:
                    recording.feed(chunk)
                if last:
                    chunk = await chunks.next()  # None: the hop's connection goes back
                    break
                if not chunks.ready() and watch is None:
                    watch = _DisconnectWatch(receive)
                chunk = await chunks.next()
            if not last:
                if watch is not None:
                    watch.finished = True
                recording.find()  # counted as open before the client can see the answer's end
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if watch is None or not watch.disconnected:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
            broken = f"{CLIENT_LEFT} mid-stream; the upstream stream was closed too"
        except httpx2.HTTPError as exc:
            upstream_broke = True
            broken = f"the upstream connection broke mid-stream: {describe_exception(exc)}"
        finally:
            if watch is not None:
                watch.stop()
            if chunks is not None:
                await chunks.aclose()
            await upstream.aclose()
            recording.end(broken)
        if upstream_broke:
            raise UpstreamBroke(broken)


class Recording:
    """One exchange's recording, begun at its first chunk; whatever goes wrong in it is told
    through the hub and never reaches the relay (the app's traffic goes on regardless).

    What the hub records of the exchange (`find`: the hub's `exchange_for`) is asked once, when
    first needed: at once for the tap, after the first chunk is passed on for the proxy."""

    def __init__(self, hub: RelayHub, find: Callable[[], Any | None]) -> None:
        self.hub = hub
        self._find: Callable[[], Any | None] | None = find
        self.exchange: Any | None = None
        self.upstream: Headed | None = None
        self.recorder: Recorder | None = None
        self.begun = False

    def find(self) -> Any | None:
        """The exchange to record (None: none), asked of the hub the first time."""
        if self._find is not None:
            find, self._find = self._find, None
            self.exchange = find()
            if self.exchange is None:
                self.begun = True
            else:
                self.hub.exchange_started()
        return self.exchange

    def begin(self, upstream: Headed) -> None:
        """The answer's head arrived: its recording begins now rather than at its first bytes
        (the tap relay: the head of an MCP server's SSE answer comes well before its events,
        so this work is off the way of the event the client waits for)."""
        self.upstream = upstream
        if self.find() is not None and not self.begun:
            self._begin()

    def _begin(self) -> None:
        self.begun = True
        assert self.exchange is not None and self.upstream is not None
        headers = {name.lower(): value for name, value in self.upstream.headers.items()}
        try:
            self.recorder = self.hub.begin(self.exchange, self.upstream.status_code, headers)
        except Exception as exc:
            self.hub.recording_failed(self.exchange, exc)

    def feed(self, chunk: bytes) -> None:
        self._guarded(lambda recorder: recorder.feed(chunk))

    def end(self, broken: str | None) -> None:
        if self.find() is None:
            return
        self._guarded(lambda recorder: recorder.end(broken))
        self.hub.ended(self.recorder.capture if self.recorder else None, self.exchange)

    def _guarded(self, step: Callable[[Recorder], None]) -> None:
        """One recording step; a failure stops this exchange's recording, never the relay."""
        self.find()
        if not self.begun:
            self._begin()
        if self.recorder is None:
            return
        try:
            step(self.recorder)
        except Exception as exc:
            self.hub.recording_failed(self.recorder.exchange, exc)
            self.recorder = None


class _Coalesced:
    """The upstream's chunks, with those that arrived together joined into one.

    A stream comes as one chunked frame per event; passing each on alone costs a send (a
    system call) and a recording step per event, which halved throughput. A reader task takes
    frames off the upstream connection as they arrive; each `next` returns everything read
    since the last one, so nothing waits for more: a lone event goes on at once."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        # Bounded: a client slower than the upstream holds back the upstream (TCP), not
        # the relay's memory.
        self._queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue(MAX_QUEUED_CHUNKS)
        self._ended = False
        self._last: BaseException | None = None
        """What ended the stream: None for a clean end."""
        self._reader = asyncio.ensure_future(self._read(chunks))

    async def _read(self, chunks: AsyncIterator[bytes]) -> None:
        try:
            async for chunk in chunks:
                await self._queue.put(chunk)
        except Exception as exc:  # handed to the relaying task, which decides what it means
            await self._queue.put(exc)
        else:
            await self._queue.put(None)

    async def next(self) -> bytes | None:
        """The next bytes (None at the end); raises what broke the upstream's stream."""
        if self._ended:
            self._raise_if_broken()
            return None
        queue = self._queue
        part = await queue.get()
        parts: list[bytes] = []
        while True:
            if not isinstance(part, bytes):  # the end, or a break: after the bytes before it
                self._ended = True
                self._last = part
                break
            parts.append(part)
            if queue.empty():
                break
            part = queue.get_nowait()
        if not parts:
            self._raise_if_broken()
            return None
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def ready(self) -> bool:
        """Whether `next` would return without waiting: never known here."""
        return False

    def ended(self) -> bool:
        """Whether the answer is known to have ended with the bytes last returned: never known
        here (the end comes by `next`)."""
        return False

    def _raise_if_broken(self) -> None:
        """At the end: raise what broke the stream, if something did."""
        if isinstance(self._last, BaseException):
            raise self._last

    async def aclose(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


class _DisconnectWatch:
    """Cancels the relaying task when the client disconnects, however long the upstream is
    silent (a slow tool call sends nothing for a minute)."""

    def __init__(self, receive: Any) -> None:
        self.disconnected = False
        self.finished = False
        self._relaying = asyncio.current_task()
        self._task = asyncio.ensure_future(self._watch(receive))

    async def _watch(self, receive: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                if not self.finished and self._relaying is not None:
                    self.disconnected = True
                    self._relaying.cancel()
                return

    def stop(self) -> None:
        self.finished = True
        self._task.cancel()


class _ClientLeftUpload(Exception):
    """The client disconnected while its request body was being streamed upstream."""


async def _read_head(receive: Any, cap: int) -> tuple[list[bytes], bool] | None:
    """The request body's chunks up to `cap` bytes, and whether that is all of it (None: the
    client left). A body past the cap is left in `receive` for `_rest_of_body`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body"):
            return chunks, True
        if size > cap:
            return chunks, False


async def _rest_of_body(head: list[bytes], receive: Any) -> AsyncIterator[bytes]:
    """A large body as it arrives: the chunks already read, then the rest, each passed on
    and let go (uvicorn stops reading from the client while one waits)."""
    while head:
        yield head.pop(0)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientLeftUpload
        yield message.get("body", b"")
        if not message.get("more_body"):
            return


ALLOWED = b"GET, POST, DELETE, OPTIONS, HEAD, PUT, PATCH"


async def _not_relayed(method: str, target: str, send: Any) -> None:
    """A request whose target is not a path: `OPTIONS *` asks about the server itself (200
    with Allow, as HTTP/1.1 says); anything else (`GET *`, an absolute URL) is a 400. Neither
    is passed on: the upstream is one server, not the whole web, and `*` makes no URL."""
    if method == "OPTIONS" and target == "*":
        await _answer_json(send, 200, None, [(b"allow", ALLOWED)])
        return
    await _answer_json(
        send, 400, refusal(f"{method} {target[:200]}: only a path (/...) can be relayed")
    )


def refusal(message: str) -> dict[str, Any]:
    """The relay's own 400 body, in the shape both of its clients read (an API error)."""
    return {
        "error": {
            "message": f"mcptui: {message}",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }


async def _answer_json(
    send: Any,
    status: int,
    body: dict[str, Any] | None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    data = b"" if body is None else json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data, "more_body": False})


def chunk_decoder(encoding: str) -> Callable[[bytes], bytes] | None:
    """A decoder of a body's chunks as they come, for its Content-Encoding (what the relay
    passes on is never decoded, only what is recorded); None for one zlib cannot decode."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return bytes
    if encoding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(zlib.MAX_WBITS | 32).decompress  # gzip or zlib header
    return None
