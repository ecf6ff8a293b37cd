"""`mcptui tap`: what OpenAI's servers send to an MCP server, and what it answers.

The tap is the recording relay (mcptui/capture/relay.py) in front of an MCP server: every request
is forwarded to the server's origin byte for byte, streams unbuffered. What it records is the
other wire of a 424: each JSON-RPC message in both directions, as a `mcp` note of a recording
(`{"kind": "mcp", "message": "→ tools/call broken_schema", "direction": "sent" | "received",
"jsonrpc": {...}, "transport", "session", "http", "http_status"}`), with HTTP failures (status,
body excerpt) and broken connections as notes of their own. A request's messages are recorded
when it arrives, before the server answers: a call that never gets an answer shows as sent.

Both transports: streamable HTTP (POST with JSON or SSE answers, the GET event stream, DELETE,
`Mcp-Session-Id`) and the older SSE transport (GET /sse, whose `endpoint` event names the path
messages are POSTed to; a relative path, so they come through the tap too). Both eras of the
protocol: the legacy one (initialize, a session) and the modern, stateless one (2026-07-28: no
initialize, no session, no GET stream; each POST carries one request stamped with its protocol
version in `params._meta` and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers;
`server/discover` instead of initialize). Each note says its `era` and the number of the HTTP
exchange it crossed in (`http_exchange`): an answer is paired with the request of its own HTTP
exchange first (two modern clients both asking `id: 1` are never crossed), then by session and
id (an answer that came on another exchange: the SSE transport's stream). Header values are never
kept, save the session id (which ties messages together), those three routing headers
(`mcp_headers`) and a well-formed W3C `traceparent`/`tracestate` (a request's `trace_context`,
from its `params._meta` or else the HTTP headers: what joins the server's own spans to the call);
message contents go through the same redaction as every recording.

What is normal is not recorded as a failure: the client closing the GET event stream at the end
of its session is an info note; a POST whose requests were all answered before its connection
closed is not a broken call; a DELETE the server refuses (the session had ended, or the server
does not end sessions on request) and a 405 to the GET stream (the server offers none) are info.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcptui.capture.relay import CLIENT_LEFT, chunk_decoder
from mcptui.io.recording import RecordingWriter, make_header, redacted_line
from mcptui.model.events import Event, note
from mcptui.model.failure_text import describe_exception
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import (
    header_secrets,
    merge_secrets,
    redact_entry,
    redact_text,
    text_url_secrets,
    url_secrets,
)
from mcptui.model.sse import SSEDecoder
from mcptui.model.textsafe import one_line
from mcptui.model.trace_context import carried, in_message

MAX_BODY = 4 * 1024 * 1024
"""A JSON answer larger than this is passed on, not recorded."""
BODY_EXCERPT = 500
MODERN_VERSION = "2026-07-28"
"""The first protocol revision of the modern, stateless era (versions are dates, compared as
text)."""
VERSION_META = "io.modelcontextprotocol/protocolVersion"
"""Where a modern request names its protocol version (`params._meta`)."""
ROUTING_HEADERS = ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name")
"""Headers recorded with their values (`mcp_headers`): they route a request, they hold no
secret."""


@dataclass(frozen=True, slots=True)
class TapExchange:
    """One HTTP request through the tap."""

    method: str
    target: str
    transport: str
    """`streamable_http` or `sse`."""
    session: str | None
    ids: tuple[Any, ...] = ()
    """The ids of the JSON-RPC requests it carried: what an HTTP failure of it fails."""
    number: int = 0
    """Its place among the tap's HTTP exchanges (`http_exchange` in each note): a request and
    its answer in one exchange share it."""
    era: str = "legacy"
    """`modern` (the stateless protocol, 2026-07-28 on) or `legacy`."""
    routing: tuple[tuple[str, str], ...] = ()
    """The routing headers it carried, with their values (ROUTING_HEADERS)."""
    trace: tuple[tuple[str, str], ...] = ()
    """The W3C trace context its HTTP headers carried (`traceparent`, `tracestate`), checked
    (tui/mcptui/model/trace_context.py); a request's own `_meta` one comes first."""

    @property
    def what(self) -> str:
        return f"{self.method} {self.target}"

    @property
    def modern(self) -> bool:
        return self.era == "modern"


def transport_of(path: str, target: str) -> str:
    """The legacy SSE transport lives at `/sse` with messages POSTed to `…?session_id=`."""
    if path.rstrip("/").endswith("/sse") or "session_id=" in target:
        return "sse"
    return "streamable_http"


def sse_session(target: str) -> str | None:
    """The SSE transport's session: `?session_id=` of the path messages are POSTed to."""
    found = parse_qs(urlsplit(target).query).get("session_id")
    return found[0] if found and found[0] else None


def era_of(named: dict[str, str], messages: Sequence[dict[str, Any]]) -> str:
    """`modern` for a request of the stateless protocol: routing headers, a modern
    `MCP-Protocol-Version` (legacy clients send theirs too, after initialize), a version in
    `params._meta`, or `server/discover`."""
    version = named.get("mcp-protocol-version", "")
    if "mcp-method" in named or version >= MODERN_VERSION:
        return "modern"
    for message in messages:
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if message.get("method") == "server/discover" or (
            isinstance(meta, dict) and VERSION_META in meta
        ):
            return "modern"
    return "legacy"


def _short(session: str) -> str:
    return session if len(session) <= 12 else session[:8] + "…"


def messages_of(body: Any) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a body: one object, or a batch (a list of them)."""
    if isinstance(body, dict):
        return [body]
    if isinstance(body, list):
        return [message for message in body if isinstance(message, dict)]
    return []


class TapHub:
    """The tap's one recording: every message through it, in arrival order."""

    request_cap = MAX_BODY
    """A larger request body is streamed on and noted, not recorded."""
    record_first = True
    """An answer is in the timeline before whatever the client (OpenAI's servers, the
    emulator) does with it: its stream's `mcp_call.failed` comes after the result it
    rejected."""

    def __init__(
        self,
        upstream: str,
        record: Path | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        labels: Sequence[str] = (),
    ) -> None:
        parts = urlsplit(upstream)
        self.upstream = upstream
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path or "/"
        """The server's path (`/mcp`, `/sse`): what the tap serves it at too."""
        self.clock = clock
        self.start = clock()
        self.secrets = url_secrets(upstream)
        """Secret parts of the server's URL (a token in its path or query): hidden in every
        note (the HTTP target is echoed in each)."""
        self.header = make_header("tap", endpoint=redact_text(upstream, strict_urls=True))
        self.writer: RecordingWriter | None = None
        if record is not None:
            self.writer = RecordingWriter(record, self.header, unique=True)
        self.labels = list(labels)
        """The request's `server_label`s for this server (`mcptui run --tap`), on every note:
        which `mcp_list_tools` item a listing belongs to."""
        self.on_event: Callable[[Event], object] | None = None  # (what it returns is unused)
        self.on_problem: Callable[[str], object] | None = None
        self.open_exchanges = 0
        self.messages = 0
        self.exchanges = 0
        """HTTP exchanges so far: the last one's number."""
        self._pending: dict[tuple[Any, ...], dict[str, Any]] = {}
        """Requests awaiting their answer, by ("x", HTTP exchange, id) and, for the legacy
        era, by ("s", session, id) as well: what an answer answers."""
        self._ended: set[str] = set()
        """Sessions a DELETE ended."""

    @property
    def path_of_recording(self) -> Path | None:
        return self.writer.path if self.writer is not None else None

    def now(self) -> float:
        return self.clock() - self.start

    def upstream_url(self, target: str) -> str:
        return self.origin + target

    def add(self, event: Event, *, flush: bool = True) -> None:
        if self.writer is None:
            redact_entry(event, self.secrets)
        else:
            line = redacted_line(event, self.secrets)
            try:
                self.writer.write_line(line, flush=flush)
            except (OSError, ValueError) as exc:
                self.writer = None
                if self.on_problem is not None:
                    self.on_problem(
                        f"recording stopped: {describe_exception(exc)}; the traffic is unaffected"
                    )
        if self.on_event is not None:
            self.on_event(event)

    # -- the relay's hub protocol (mcptui/capture/relay.py RelayHub) ----------------------------

    def exchange_for(
        self,
        method: str,
        path: str,
        target: str,
        body: bytes | None,
        headers: list[tuple[bytes, bytes]],
    ) -> TapExchange:
        named = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in headers}
        # The MCP client's credentials (`Authorization`, `X-Api-Key`, a cookie) and its
        # target's secrets: hidden wherever a message echoes them.
        learnt = [*header_secrets(named), *text_url_secrets(self.origin + target)]
        if learnt:
            self.secrets = merge_secrets(self.secrets, learnt)
        transport = transport_of(path, target)
        session = named.get("mcp-session-id") or (
            sse_session(target) if transport == "sse" else None
        )
        routing = tuple(
            (header, named[header.lower()]) for header in ROUTING_HEADERS if header.lower() in named
        )
        self.exchanges += 1
        trace = carried(named, "header")
        exchange = TapExchange(
            method,
            target,
            transport,
            session,
            number=self.exchanges,
            routing=routing,
            era=era_of(named, ()),
            trace=tuple(trace.items()) if trace else (),
        )
        if body is None:
            self.add(
                self._note(
                    exchange,
                    "sent",
                    f"→ {exchange.what}: a body over {MAX_BODY} bytes: relayed, not recorded",
                    level="warning",
                )
            )
        elif body:
            try:
                parsed = loads(body.decode("utf-8", errors="replace"))
            except ValueError as exc:
                self.add(
                    self._note(
                        exchange,
                        "sent",
                        f"→ {exchange.what}: the body is not JSON ({exc})",
                        level="warning",
                    )
                )
                return exchange
            messages = messages_of(parsed)
            ids = tuple(m["id"] for m in messages if "id" in m and "method" in m)
            exchange = replace(exchange, ids=ids, era=era_of(named, messages))
            for message in messages:
                self._message(exchange, "sent", message)
        elif method in ("GET", "DELETE"):
            self.add(
                self._note(
                    exchange,
                    "sent",
                    f"→ {exchange.what} ({self._asks(exchange)})",
                    level="info" if session in self._ended else None,
                )
            )
        return exchange

    def _asks(self, exchange: TapExchange) -> str:
        """What a GET or DELETE without a body asks for, naming the session (a response's
        sessions each end with a DELETE of their own)."""
        session = exchange.session
        if exchange.method == "GET":
            return "open the event stream" + (f" of session {_short(session)}" if session else "")
        if session is None:
            return "end the session"
        if session in self._ended:
            return f"end session {_short(session)} again: it had ended"
        return f"end session {_short(session)}"

    def unreachable_answer(self, message: str) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32000, "message": f"mcptui tap: {message}"},
        }

    def exchange_started(self) -> None:
        self.open_exchanges += 1

    def begin(self, exchange: TapExchange, status: int, headers: dict[str, str]) -> TapAnswer:
        return TapAnswer(self, exchange, status, headers)

    def unreachable(self, exchange: TapExchange, message: str) -> None:
        self.add(
            self._note(
                exchange,
                "received",
                f"✗ {exchange.what}{self.failed_requests(exchange)}: {message}",
                level="warning",
                kind="connection_error",
            )
        )

    def recording_failed(self, exchange: TapExchange, exc: BaseException) -> None:
        if self.on_problem is not None:
            self.on_problem(f"{exchange.what}: could not record it: {describe_exception(exc)}")

    def ended(self, capture: Any, exchange: TapExchange) -> None:
        self.open_exchanges -= 1

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    # -- notes ------------------------------------------------------------------------------

    def _message(
        self,
        exchange: TapExchange,
        direction: str,
        message: dict[str, Any],
        *,
        status: int | None = None,
        flush: bool = True,
    ) -> None:
        self.messages += 1
        summary = self._summary(exchange, direction, message)
        trace = None
        if direction == "sent" and "method" in message:
            trace = in_message(message) or (dict(exchange.trace) if exchange.trace else None)
        self.add(
            self._note(
                exchange,
                direction,
                summary,
                jsonrpc=message,
                http_status=status,
                trace_context=trace,
            ),
            flush=flush,
        )

    def _summary(self, exchange: TapExchange, direction: str, message: dict[str, Any]) -> str:
        """`→ tools/call broken_schema`, `← result broken_schema  no structuredContent`; a
        modern request's with `  [modern]`."""
        method = message.get("method")
        if isinstance(method, str):
            name = _tool_name(message)
            if "id" in message:
                self._await(
                    exchange, message["id"], {"method": method, "name": name, "t": self.now()}
                )
            arrow = "→" if direction == "sent" else "←"
            return (
                f"{arrow} {method}"
                + (f" {name}" if name else "")
                + ("  [modern]" if exchange.modern and direction == "sent" else "")
            )
        asked = self._answered(exchange, message.get("id"))
        what = asked.get("name") or asked.get("method") or f"#{message.get('id')}"
        after = self._after(asked)
        error = message.get("error")
        if isinstance(error, dict):
            return (
                f"← error {what}: {error.get('code')} "
                f"{one_line(str(error.get('message', '')), 200)}{after}"
            )
        result = message.get("result")
        marks = []
        if asked.get("method") == "tools/call" and isinstance(result, dict):
            if result.get("isError"):
                marks.append("isError")
            if "structuredContent" not in result:
                marks.append("no structuredContent")
        if asked.get("method") == "tools/list" and isinstance(result, dict):
            tools = result.get("tools")
            if isinstance(tools, list):
                marks.append(f"{len(tools)} tools")
        return f"← result {what}" + (f"  {', '.join(marks)}" if marks else "") + after

    def _await(self, exchange: TapExchange, message_id: Any, asked: dict[str, Any]) -> None:
        """A request sent: awaited in its own HTTP exchange and, in the legacy era, in its
        session (its answer may come on another exchange: the SSE transport's stream)."""
        key = _id_key(message_id)
        keys: list[tuple[str, Any, Any]] = [("x", exchange.number, key)]
        if not exchange.modern:
            keys.append(("s", exchange.session, key))
        asked["keys"] = keys
        for where in keys:
            self._pending[where] = asked

    def _answered(self, exchange: TapExchange, message_id: Any) -> dict[str, Any]:
        """The request an answer (or an HTTP failure) of `exchange` answers, no longer awaited:
        the one of the same HTTP exchange; else (legacy) the session's, or one sent before the
        session had an id (initialize)."""
        key = _id_key(message_id)
        places: list[tuple[str, Any, Any]] = [("x", exchange.number, key)]
        if not exchange.modern:
            places += [("s", exchange.session, key), ("s", None, key)]
        for where in places:
            asked = self._pending.get(where)
            if asked is not None:
                for other in asked["keys"]:
                    if self._pending.get(other) is asked:
                        del self._pending[other]
                return asked
        return {}

    def _after(self, asked: dict[str, Any]) -> str:
        """`  · 12 ms`: how long the answer took, from the request's arrival."""
        if "t" not in asked:
            return ""
        seconds = self.now() - asked["t"]
        return f"  · {seconds * 1000:.0f} ms" if seconds < 1 else f"  · {seconds:.2f} s"

    def failed_requests(self, exchange: TapExchange) -> str:
        """` (tools/call broken_schema)`: the requests an HTTP failure leaves unanswered."""
        names = self.unanswered(exchange)
        return f" ({', '.join(names)})" if names else ""

    def unanswered(self, exchange: TapExchange) -> list[str]:
        """The requests of `exchange` still awaiting an answer, no longer awaited."""
        names = []
        for message_id in exchange.ids:
            asked = self._answered(exchange, message_id)
            if asked:
                names.append(" ".join(filter(None, (asked.get("method"), asked.get("name")))))
        return names

    def _note(
        self,
        exchange: TapExchange,
        direction: str,
        message: str,
        *,
        kind: str = "mcp",
        **details: Any,
    ) -> Event:
        fields = {key: value for key, value in details.items() if value is not None}
        if exchange.ids and kind != "mcp":
            fields["ids"] = list(exchange.ids)
        if self.labels:
            fields["server_labels"] = self.labels
        if exchange.routing:
            fields["mcp_headers"] = dict(exchange.routing)
        return note(
            kind,
            message,
            self.now(),
            direction=direction,
            transport=exchange.transport,
            session=exchange.session,
            http=exchange.what,
            http_exchange=exchange.number,
            era=exchange.era,
            **fields,
        )


def _id_key(value: Any) -> Any:
    """A JSON-RPC id as a dict key (an id that is not a scalar, as text)."""
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _tool_name(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    if message.get("method") == "tools/call" and isinstance(params, dict):
        name = params.get("name")
        return name if isinstance(name, str) else None
    return None


class TapAnswer:
    """One answer as it flows back: SSE messages as each arrives, JSON at the end."""

    def __init__(
        self, hub: TapHub, exchange: TapExchange, status: int, headers: dict[str, str]
    ) -> None:
        self.hub = hub
        self.capture = hub
        self.exchange = exchange
        self.status = status
        session = headers.get("mcp-session-id")
        if session and session != exchange.session:  # initialize's answer names the session
            self.exchange = replace(exchange, session=session)
        self.streamed = headers.get("content-type", "").startswith("text/event-stream")
        self.unencoded = chunk_decoder(headers.get("content-encoding", ""))
        """None: an encoding zlib cannot read; the answer is passed on, not recorded."""
        self.sse = SSEDecoder()
        self.body = bytearray()

    def feed(self, chunk: bytes) -> None:
        if self.unencoded is None:
            return
        chunk = self.unencoded(chunk)
        if self.streamed and self.status < 400:
            messages = self.sse.feed(chunk)
            for number, message in enumerate(messages, 1):
                self._sse(message.event, message.data, flush=number == len(messages))
        elif len(self.body) < MAX_BODY:
            self.body += chunk[: MAX_BODY - len(self.body)]

    def _sse(self, event: str | None, data: str, *, flush: bool) -> None:
        hub = self.hub
        if event == "endpoint":  # the SSE transport says where to POST messages
            session = sse_session(data.strip())
            if session and self.exchange.session is None:  # what this stream carries is its
                self.exchange = replace(self.exchange, session=session)
            hub.add(
                hub._note(self.exchange, "received", f"← endpoint {one_line(data, 200)}"),
                flush=flush,
            )
            return
        try:
            parsed = loads(data)
        except ValueError:
            if data.strip():
                hub.add(
                    hub._note(
                        self.exchange,
                        "received",
                        f"← SSE data that is not JSON: {one_line(data, 200)}",
                        level="warning",
                    ),
                    flush=flush,
                )
            return
        for message in messages_of(parsed):
            hub._message(self.exchange, "received", message, status=self.status, flush=flush)

    def end(self, broken: str | None = None) -> None:
        hub, exchange = self.hub, self.exchange
        if self.streamed and self.status < 400:
            for message in self.sse.finish():
                self._sse(message.event, message.data, flush=True)
        elif self.status >= 400:
            self._refused()
        elif self.body:
            try:
                parsed = loads(self.body.decode("utf-8", errors="replace"))
            except ValueError:
                parsed = None
            for answer in messages_of(parsed):
                hub._message(exchange, "received", answer, status=self.status)
        if (
            exchange.method == "DELETE"
            and exchange.session
            and (self.status < 300 or self.status == 404)
        ):
            hub._ended.add(exchange.session)
        if broken is not None:
            self._broken(broken)

    def _refused(self) -> None:
        """An HTTP error answer: a failure of the requests it carried, except where it is how
        a server says no to something optional: ending a session, the GET stream. (A legacy
        server refusing `server/discover` stays a refusal: a client of the modern era alone
        fails there.)"""
        hub, exchange, status = self.hub, self.exchange, self.status
        excerpt = one_line(self.body.decode("utf-8", errors="replace"), BODY_EXCERPT)
        normal = None
        if exchange.method == "DELETE":
            normal = {
                404: "the session had already ended",
                405: "the server does not end sessions on request",
            }.get(status, "ending the session is not needed for anything that follows")
        elif exchange.method == "GET" and status == 405 and exchange.transport != "sse":
            normal = "the server offers no event stream (it may answer on each POST instead)"
        if normal is not None:
            hub.add(
                hub._note(
                    exchange,
                    "received",
                    f"← HTTP {status} to {exchange.what}: {normal}",
                    level="info",
                    http_status=status,
                    body=excerpt or None,
                )
            )
            return
        hub.add(
            hub._note(
                exchange,
                "received",
                f"← HTTP {status} to {exchange.what}"
                f"{hub.failed_requests(exchange)}" + (f": {excerpt}" if excerpt else ""),
                level="warning",
                kind="http_error",
                http_status=status,
                body=excerpt or None,
            )
        )

    def _broken(self, broken: str) -> None:
        """The connection closed before the answer's end. A failure of the requests still
        unanswered; otherwise normal when the client closed it (it had what it asked for,
        or it ended its session's event stream), and worth an info note when the server
        did."""
        hub, exchange = self.hub, self.exchange
        unanswered = hub.unanswered(exchange)
        by_client = broken.startswith(CLIENT_LEFT)
        if unanswered or (exchange.method == "GET" and not by_client and self.status < 400):
            hub.add(
                hub._note(
                    exchange,
                    "received",
                    f"✗ {exchange.what}"
                    + (f" ({', '.join(unanswered)})" if unanswered else "")
                    + f": {broken}",
                    level="warning",
                    kind="disconnect",
                    closed="client" if by_client else "server",
                )
            )
        elif exchange.method == "GET" and self.status < 400:
            session = f" of session {_short(exchange.session)}" if exchange.session else ""
            hub.add(
                hub._note(
                    exchange,
                    "received",
                    f"← {exchange.what}: the client closed "
                    f"the event stream{session} (the session's end)",
                    level="info",
                    closed="client",
                )
            )
        elif not by_client:
            hub.add(
                hub._note(
                    exchange,
                    "received",
                    f"← {exchange.what}: the server closed "
                    f"the connection after the answer ({broken})",
                    level="info",
                    closed="server",
                )
            )
