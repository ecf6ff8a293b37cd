"""What the proxy saw: one recording per response, written as the bytes flow.

The relay (mcptui/capture/relay.py) hands every Responses API exchange to a `CaptureHub`: a create
opens a new `Capture`; a retrieve, resume or cancel of a response already seen joins that
response's capture (else opens one for it). Each exchange is recorded the way a live run records
its own: the first opens the recording with the request and the answer's useful headers, later
ones are `request` notes; SSE bodies become events as each chunk arrives; JSON bodies become a
note carrying the Response, or the `http_error` note a refusal is. The client's API key is never
read; the request's MCP credentials and URL secrets are redacted before anything is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptui.capture.relay import chunk_decoder
from mcptui.io.answers import http_error_note, kept_headers, responses_call
from mcptui.io.recording import DEFAULT_RECORD_DIR, make_header
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event, note
from mcptui.model.failure_text import describe_exception
from mcptui.model.ingest import StreamIngester
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import (
    header_secrets,
    merge_secrets,
    redact,
    redact_entry,
    redact_headers,
    redact_target,
    request_secrets,
    text_url_secrets,
)
from mcptui.model.reducer import ERROR_NOTE_LEVEL, is_failure_event
from mcptui.model.state import TERMINAL_STATUSES
from mcptui.model.trace_context import valid_traceparent
from mcptui.sources.live import Recorder

CLIENT_HEADERS = (
    "user-agent",
    "x-stainless-lang",
    "x-stainless-package-version",
    "x-stainless-runtime",
    "x-stainless-runtime-version",
    "traceparent",
)
"""Request headers that say which app and SDK sent it (never its credentials), and the W3C
trace context it sent the call in (`traceparent`), so what mcptui exports of the call can
join the app's own trace."""

MAX_JSON_BODY = 32 * 1024 * 1024
"""A JSON answer larger than this is passed on but not kept (a Response is far smaller)."""
MAX_REQUEST_BODY = 16 * 1024 * 1024
"""A request body larger than this is streamed on, not recorded (its header says so)."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """A request the proxy recognised as a Responses API call."""

    method: str
    target: str
    """Path and query as the client sent them, for messages: `/v1/responses?stream=true`."""
    kind: str
    """`create`, `retrieve` (a GET, streamed or not) or `cancel`."""
    response_id: str | None = None
    request: dict[str, Any] | None = None
    """A create's JSON body, as sent (redacted before it is kept)."""
    client: dict[str, str] = field(default_factory=dict)
    """The client's identifying headers (`CLIENT_HEADERS`)."""
    unrecorded_body: bool = False
    """Its body was over `MAX_REQUEST_BODY`: relayed, not recorded."""
    secrets: list[str] = field(default_factory=list)
    """The client's credentials (its API key, an `?api_key=`): hidden wherever echoed."""

    @property
    def what(self) -> str:
        return f"{self.method} {redact_target(self.target)}"


def classify(method: str, path: str) -> tuple[str, str | None] | None:
    """(kind, response id) for a Responses API call worth recording; None for anything else
    (models, files, input items, deletes), which is passed through unrecorded."""
    call = responses_call(method, path)
    if call is None:
        return None
    kind = "create" if call.creates else "cancel" if call.cancels else "retrieve"
    return kind, call.response_id


def client_headers(headers: dict[str, str]) -> dict[str, str]:
    kept = {name: headers[name] for name in CLIENT_HEADERS if name in headers}
    parent = valid_traceparent(kept.get("traceparent"))
    if parent is None:
        kept.pop("traceparent", None)
    else:
        kept["traceparent"] = parent
    return kept


class Capture:
    """One response's exchanges: its recording, and its events kept for the summary."""

    def __init__(self, hub: CaptureHub, key: int, recorder: Recorder | None) -> None:
        self.hub = hub
        self.key = key
        """Which capture of the hub: tags the events of this response in a shared timeline."""
        self.recorder = recorder
        self.start = hub.clock()
        self.offset = self.start - hub.start
        """When it began, in seconds after the proxy started (for a shared timeline)."""
        self.header: dict[str, Any] | None = None
        self.events: list[Event] = []
        self.response_id: str | None = None
        self.status: str | None = None
        self.background = False
        self.secrets: list[str] = []
        self.highest: int | None = None
        """The highest sequence number recorded."""
        self.floor: int | None = None
        """`highest` when the current exchange began: what a resume sends again."""
        self.scrubber = DeltaScrubber()
        """Secrets split across deltas: hidden on each item's joined text."""
        self.exchanges = 0
        self.flowing = 0
        """Exchanges of it under way: its file is open only while one is."""
        self.opening: Event | None = None
        """The first exchange's `request` note: its header says it all in the recording, but
        a timeline of several captures needs it (tui/mcptui/capture/proxy_run.py)."""
        self.first: Exchange | None = None
        """The exchange that opened it."""
        self.http_status: int | None = None
        """The status of the last exchange's answer."""
        self.failed_exchange = False
        """The last exchange ended badly: an HTTP error, a broken or abandoned stream."""
        self.failing = False
        """Something in it signals a failure (a failed event or status, an error note): only
        then is it worth a full inspection."""

    @property
    def path(self) -> Path | None:
        return self.recorder.path if self.recorder is not None else None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def now(self) -> float:
        return self.hub.clock() - self.start

    def open(self, exchange: Exchange, status: int | None, headers: dict[str, str]) -> None:
        """The answer to an exchange has begun: the recording's header, or a `request` note."""
        self.exchanges += 1
        self.flowing += 1
        self.floor = self.highest
        self.failed_exchange = False
        self.http_status = status
        self.secrets = merge_secrets(
            self.secrets, exchange.secrets, request_secrets(exchange.request)
        )
        kept = kept_headers(headers)
        if self.exchanges > 1:
            if self.recorder is not None:
                self.recorder.reopen()
            self.add(self._request_note(exchange, status, kept))
        else:
            self._first_exchange(exchange, status, kept)
        if exchange.unrecorded_body:
            self.add(
                note(
                    "body",
                    f"{exchange.what}: a request body over {MAX_REQUEST_BODY} "
                    "bytes is relayed, not recorded",
                    self.now(),
                    level="warning",
                )
            )

    def _first_exchange(self, exchange: Exchange, status: int | None, kept: dict[str, str]) -> None:
        self.first = exchange
        self.opening = self._request_note(exchange, status, kept)
        source: dict[str, Any] = {"client": exchange.client} if exchange.client else {}
        if exchange.kind != "create":
            source["attached"] = exchange.response_id
        self.header = make_header(
            "proxy",
            request=exchange.request,
            endpoint=self.hub.upstream_url(exchange.target),
            http_status=status,
            http_headers=kept,
            secrets=self.secrets,
            **source,
        )
        if self.recorder is not None:
            self.recorder.open(self.header)
        if self.hub.on_open is not None:
            self.hub.on_open(self)

    def _request_note(self, exchange: Exchange, status: int | None, kept: dict[str, str]) -> Event:
        details: dict[str, Any] = {"http_status": status, "http_headers": redact_headers(kept)}
        if exchange.request is not None:
            details["request"] = redact(exchange.request)
        return note("request", f"{exchange.what}: HTTP {status}", self.now(), **details)

    def settled(self) -> None:
        """An exchange of it is over; with none left, its file is closed until the next."""
        self.flowing -= 1
        if self.flowing == 0 and self.recorder is not None:
            self.recorder.close()

    def add(self, event: Event, *, flush: bool = True) -> None:
        """Keep, record and show one entry (redacted first, as a live run does); `flush`
        False for all but the last entry of a chunk.

        In a later exchange (a resume, a retrieve stream), an event numbered at or below the
        highest recorded before it began is left out: `starting_after=N` sends again what the
        proxy relayed after N before the client stopped reading, and the client saw each
        event once. (Within one exchange every event is kept: a server's own duplicates are
        for `inspect` to find.)"""
        if not event.is_note:
            number = event.sequence_number
            if number is not None:
                if self.floor is not None and number <= self.floor:
                    return
                if self.highest is None or number > self.highest:
                    self.highest = number
        for ready in self.scrubber.push(event, self.secrets):
            self._add(ready, flush=flush)

    def release_held(self) -> None:
        """An answer's body is over: the delta held back (a possible secret's start) goes
        out."""
        for ready in self.scrubber.release(self.secrets):
            self._add(ready)

    def _add(self, event: Event, *, flush: bool = True) -> None:
        redact_entry(event, self.secrets)
        response = event.raw.get("response")
        if type(response) is dict:
            self._learn(response)
        if self.hub.keep_events:  # kept for a summary: only then is `failing` read
            self.events.append(event)
            if not self.failing and is_failure_signal(event):
                self.failing = True
        if self.recorder is not None:
            self.recorder.write(event, flush=flush)
        if self.hub.on_event is not None:
            self.hub.on_event(self, event)

    @property
    def clean(self) -> bool:
        """Completed with no failure signal: nothing an inspection would report."""
        return self.status == "completed" and not self.failing

    def _learn(self, response: dict[str, Any]) -> None:
        if isinstance(response.get("id"), str) and self.response_id is None:
            self.response_id = response["id"]
            self.hub.known[self.response_id] = self
            if self.recorder is not None:
                self.recorder.name_after(self.response_id)
        if isinstance(response.get("status"), str):
            self.status = response["status"]
        if isinstance(response.get("background"), bool):
            self.background = response["background"]

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


class ExchangeRecorder:
    """Records one exchange's answer as its body flows through the relay."""

    def __init__(
        self, capture: Capture, exchange: Exchange, status: int, headers: dict[str, str]
    ) -> None:
        self.capture = capture
        self.exchange = exchange
        self.status = status
        self.request_id = headers.get("x-request-id")
        content_type = headers.get("content-type", "")
        self.streamed = content_type.startswith("text/event-stream")
        self.decoder = chunk_decoder(headers.get("content-encoding", ""))
        self.ingester = StreamIngester(capture.hub.clock, start=capture.start)
        self.body = bytearray()
        self.too_large = False
        capture.open(exchange, status, headers)
        if self.decoder is None:
            capture.add(
                note(
                    "body",
                    f"{exchange.what}: the body is "
                    f"{headers.get('content-encoding')}-encoded, which mcptui cannot "
                    "decode: passed on, not recorded",
                    capture.now(),
                    level="warning",
                )
            )

    def feed(self, chunk: bytes) -> None:
        if self.decoder is None or not chunk:
            return
        data = self.decoder(chunk)
        if self.streamed and self.status < 400:
            self._add_all(self.ingester.feed(data))
        elif len(self.body) + len(data) <= MAX_JSON_BODY:
            self.body += data
        else:
            self.too_large = True

    def end(self, broken: str | None = None) -> None:
        """The body is over: complete, or `broken` says how it stopped."""
        capture = self.capture
        if self.streamed and self.status < 400:
            self._add_all(self.ingester.finish())
            capture.release_held()
        elif self.decoder is not None:
            self._add_body()
        if broken is not None:
            capture.failed_exchange = True
            level = "warning" if capture.background or capture.terminal else "error"
            capture.add(
                note("disconnect", f"{self.exchange.what}: {broken}", capture.now(), level=level)
            )

    def _add_all(self, events: list[Event]) -> None:
        last = len(events) - 1
        for number, event in enumerate(events):
            self.capture.add(event, flush=number == last)

    def _add_body(self) -> None:
        capture, what = self.capture, self.exchange.what
        if self.too_large:
            capture.add(
                note(
                    "body",
                    f"{what}: a body over {MAX_JSON_BODY} bytes is passed on, not recorded",
                    capture.now(),
                    level="warning",
                )
            )
            return
        text = self.body.decode("utf-8", errors="replace")
        try:
            body: Any = loads(text)
        except ValueError:
            body = text[:2000]
        if self.status >= 400:
            capture.failed_exchange = True
            capture.add(
                http_error_note(
                    body, what=what, status=self.status, request_id=self.request_id, t=capture.now()
                )
            )
            return
        if not isinstance(body, dict):
            capture.add(
                note(
                    "body",
                    f"{what}: HTTP {self.status}, the body is not a JSON object",
                    capture.now(),
                    level="warning",
                    body=body,
                )
            )
            return
        kind = {"create": "poll", "retrieve": "poll", "cancel": "cancel"}[self.exchange.kind]
        capture.add(
            note(
                kind,
                f"{what}: {body.get('id', '?')} is {body.get('status', '?')}",
                capture.now(),
                response=body,
            )
        )


def is_failure_signal(event: Event) -> bool:
    """A failed event or item, an incomplete response, an error-level note; or a note that
    carries a Response (a non-streaming create, a poll, a cancel) that failed or holds a failed
    item: there the failure is in the body, never in an event."""
    if is_failure_event(event) or event.type == "response.incomplete":
        return True
    response = event.raw.get("response") if event.is_note else None
    return type(response) is dict and response_holds_failure(response)


def response_holds_failure(response: dict[str, Any]) -> bool:
    """A Response body that failed or was cut short, or whose output holds an item that
    failed (an `mcp_call` with an error or status failed)."""
    if response.get("status") in ("failed", "incomplete") or response.get("error"):
        return True
    output = response.get("output")
    return isinstance(output, list) and any(
        isinstance(item, dict)
        and (item.get("status") == "failed" or item.get("error") not in (None, ""))
        for item in output
    )


class CaptureHub:
    """Every capture of a proxy run; `on_open`, `on_event` and `on_exchange_end` let a view
    follow them live."""

    record_first = False
    """The app's bytes never wait for the recording (tui/mcptui/capture/relay.py)."""
    request_cap = MAX_REQUEST_BODY

    def __init__(
        self,
        upstream: str,
        record_dir: Path | None = DEFAULT_RECORD_DIR,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.record_dir = record_dir
        self.clock = clock
        self.start = clock()
        self.captures: list[Capture] = []
        self.known: dict[str, Capture] = {}
        """Captures by response id: a later retrieve or cancel joins its response's."""
        self.on_open: Callable[[Capture], None] | None = None
        self.on_event: Callable[[Capture, Event], None] | None = None
        self.on_exchange_end: Callable[[Capture, Exchange], None] | None = None
        self.on_problem: Callable[[str], None] | None = None
        self.keep_events = False
        """Keep each capture's events in memory (for a summary when it settles)."""
        self.open_exchanges = 0
        """Exchanges whose answer is still flowing."""

    def upstream_url(self, target: str) -> str:
        return self.upstream + upstream_path(target)

    def exchange_for(
        self,
        method: str,
        path: str,
        target: str,
        body: bytes | None,
        headers: list[tuple[bytes, bytes]],
    ) -> Exchange | None:
        """A Responses API call to record, with a create's request; None for the rest."""
        found = classify(method, path)
        if found is None:
            return None
        kind, response_id = found
        request = None
        if kind == "create" and body is not None:
            try:
                parsed = loads(body.decode("utf-8", errors="replace"))
            except ValueError:
                parsed = None
            request = parsed if isinstance(parsed, dict) else None
        named = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in headers}
        secrets = merge_secrets(header_secrets(named), text_url_secrets("http://-" + target))
        return Exchange(
            method,
            target,
            kind,
            response_id,
            request,
            client_headers(named),
            secrets=secrets,
            unrecorded_body=body is None,
        )

    @staticmethod
    def unreachable_answer(message: str) -> dict[str, Any]:
        """An OpenAI-shaped error body: the SDK raises it as an APIStatusError."""
        return {
            "error": {
                "message": f"mcptui proxy: {message}",
                "type": "proxy_error",
                "code": "upstream_unreachable",
                "param": None,
            }
        }

    def begin(self, exchange: Exchange, status: int, headers: dict[str, str]) -> ExchangeRecorder:
        capture = self.known.get(exchange.response_id or "") if exchange.kind != "create" else None
        if capture is None:
            recorder = None
            if self.record_dir is not None:
                recorder = Recorder(folder=self.record_dir, response_id=exchange.response_id)
                recorder.on_failure = lambda message, what=exchange.what: self._told(
                    f"{what}: could not record it: {message}; the app's traffic is unaffected"
                )
            capture = Capture(self, len(self.captures), recorder)
            self.captures.append(capture)
            if exchange.response_id is not None:
                capture.response_id = exchange.response_id
                self.known[exchange.response_id] = capture
        return ExchangeRecorder(capture, exchange, status, headers)

    def unreachable(self, exchange: Exchange, message: str) -> Capture:
        """The upstream could not be reached: the exchange is recorded as what happened (the
        relay counted it open when it found it)."""
        recorder = self.begin(exchange, 502, {})
        capture = recorder.capture
        capture.failed_exchange = True
        capture.add(
            note(
                "connection_error",
                f"{exchange.what}: {message}",
                capture.now(),
                level=ERROR_NOTE_LEVEL,
            )
        )
        return capture

    def _told(self, message: str) -> None:
        if self.on_problem is not None:
            self.on_problem(message)

    def recording_failed(self, exchange: Exchange, exc: BaseException) -> None:
        """Recording broke (a full disk, a folder that cannot be written): the exchange is
        still relayed untouched; `on_problem` tells the user once per exchange."""
        if self.on_problem is not None:
            self.on_problem(
                f"{exchange.what}: could not record it: "
                f"{describe_exception(exc)}; the app's traffic is unaffected"
            )

    def exchange_started(self) -> None:
        self.open_exchanges += 1

    def ended(self, capture: Capture | None, exchange: Exchange) -> None:
        """An exchange is over; `capture` None when it could not be recorded."""
        self.open_exchanges -= 1
        if capture is not None:
            capture.settled()
        if capture is not None and self.on_exchange_end is not None:
            self.on_exchange_end(capture, exchange)

    def close(self) -> None:
        for capture in self.captures:
            capture.close()


def upstream_path(target: str) -> str:
    """The client's path relative to the API base: `/v1/responses` → `/responses` (the
    upstream URL already ends in `/v1`)."""
    if target == "/v1" or target.startswith(("/v1/", "/v1?")):
        return target[3:]
    return target
