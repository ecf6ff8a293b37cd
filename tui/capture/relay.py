"""The proxy itself: an ASGI app that relays every request to the upstream API byte for byte.

Each answer is passed on chunk by chunk as it arrives (`aiter_raw`: still compressed if it was,
never buffered), and only then handed to the capture, so recording adds no wait before a chunk
reaches the client. Hop-by-hop headers are the only thing changed. The client's credentials go
upstream untouched and are never read or kept.

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
import json
import logging
from typing import Any

import httpx2

from tui.capture.captures import CaptureHub, Exchange, classify, client_headers
from tui.exceptions import describe_exception
from tui.model.jsonsafe import loads

Scope = dict[str, Any]
Message = dict[str, Any]

_REQUEST_DROPPED = frozenset({b"host", b"content-length", b"connection", b"keep-alive",
                              b"proxy-authorization", b"proxy-connection", b"te", b"trailer",
                              b"transfer-encoding", b"upgrade"})
_RESPONSE_DROPPED = frozenset({b"connection", b"keep-alive", b"proxy-authenticate",
                               b"proxy-connection", b"te", b"trailer", b"transfer-encoding",
                               b"upgrade"})
UPSTREAM_TIMEOUT = httpx2.Timeout(connect=15.0, read=None, write=60.0, pool=None)
"""No read timeout: a slow tool or a long background stream is the client's to give up on."""

log = logging.getLogger("mcptui.proxy")


class UpstreamBroke(Exception):
    """Raised after the answer began, so the server drops the client's connection as the
    upstream dropped the proxy's."""


class _Quiet(logging.Filter):
    """uvicorn logs a traceback for `UpstreamBroke`, which is the proxy doing its job."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], UpstreamBroke))


logging.getLogger("uvicorn.error").addFilter(_Quiet())


class RecordingProxy:
    """ASGI app: relay to `hub.upstream`, recording Responses API exchanges in `hub`."""

    def __init__(self, hub: CaptureHub, client: httpx2.AsyncClient | None = None) -> None:
        self.hub = hub
        self._client = client

    @property
    def client(self) -> httpx2.AsyncClient:
        if self._client is None:  # made on the server's loop, at its first request
            self._client = httpx2.AsyncClient(timeout=UPSTREAM_TIMEOUT, follow_redirects=False,
                                              limits=httpx2.Limits(max_connections=None))
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
        if self._client is not None:
            await self._client.aclose()
        self.hub.close()

    async def _relay(self, scope: Scope, receive: Any, send: Any) -> None:
        body = await _read_body(receive)
        if body is None:
            return  # the client left before it finished sending
        method: str = scope["method"]
        path: str = scope["path"]
        query: bytes = scope.get("query_string", b"")
        target = (scope.get("raw_path") or path.encode()).decode("latin-1")
        if query:
            target += "?" + query.decode("latin-1")
        headers = [(name, value) for name, value in scope["headers"]
                   if name.lower() not in _REQUEST_DROPPED]
        exchange = _exchange(method, path, target, body, headers)
        request = self.client.build_request(method, self.hub.upstream_url(target),
                                            headers=headers, content=body)
        try:
            upstream = await self.client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            message = f"could not reach the upstream {self.hub.upstream}: " \
                      f"{describe_exception(exc)}"
            if exchange is not None:
                self.hub.ended(self.hub.unreachable(exchange, message), exchange)
            await _answer_json(send, 502, {"error": {
                "message": f"mcptui proxy: {message}", "type": "proxy_error",
                "code": "upstream_unreachable", "param": None}})
            return
        await self._pass_on(upstream, exchange, receive, send)

    async def _pass_on(self, upstream: httpx2.Response, exchange: Exchange | None,
                       receive: Any, send: Any) -> None:
        recorder = None
        if exchange is not None:
            try:
                recorder = self.hub.begin(exchange, upstream.status_code,
                                          {k.lower(): v for k, v in upstream.headers.items()})
            except Exception as exc:  # the app's traffic goes on whatever recording does
                self.hub.recording_failed(exchange, exc)
        await send({"type": "http.response.start", "status": upstream.status_code,
                    "headers": [(name, value) for name, value in upstream.headers.raw
                                if name.lower() not in _RESPONSE_DROPPED]})
        watch = _DisconnectWatch(receive)
        broken: str | None = None
        upstream_broke = False
        try:
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if recorder is not None:
                    try:
                        recorder.feed(chunk)
                    except Exception as exc:
                        self.hub.recording_failed(recorder.exchange, exc)
                        recorder = None
            watch.finished = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not watch.disconnected:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
            broken = "the client disconnected mid-stream; the upstream stream was closed too"
        except httpx2.HTTPError as exc:
            upstream_broke = True
            broken = f"the upstream connection broke mid-stream: {describe_exception(exc)}"
        finally:
            watch.stop()
            await upstream.aclose()
            if recorder is not None and exchange is not None:
                try:
                    recorder.end(broken)
                except Exception as exc:
                    self.hub.recording_failed(exchange, exc)
                self.hub.ended(recorder.capture, exchange)
        if upstream_broke:
            raise UpstreamBroke(broken)


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


async def _read_body(receive: Any) -> bytes | None:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _exchange(method: str, path: str, target: str, body: bytes,
              headers: list[tuple[bytes, bytes]]) -> Exchange | None:
    found = classify(method, path)
    if found is None:
        return None
    kind, response_id = found
    request = None
    if kind == "create":
        try:
            parsed = loads(body.decode("utf-8", errors="replace"))
        except ValueError:
            parsed = None
        request = parsed if isinstance(parsed, dict) else None
    named = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in headers}
    return Exchange(method, target, kind, response_id, request, client_headers(named))


async def _answer_json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data, "more_body": False})
