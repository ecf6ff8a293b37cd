"""Live runs: send a Responses request with the openai SDK and feed the raw stream to a session.

The SDK's typed events are lenient (protocol.md §4), so the raw SSE bytes are read through
`with_streaming_response` and go through the same ingester, reducer and app as a replay. Every
event is appended to the session's timeline (the app applies it on its next tick) and written
to the recording at once. Transport facts (HTTP errors, dropped connections, stalls) become
notes in the same timeline, so nothing happens off screen and nothing received is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import openai
from openai import AsyncOpenAI
from openai.resources.responses import AsyncResponses

from mcptui.io.answers import kept_headers
from mcptui.io.recording import (
    DEFAULT_RECORD_DIR,
    RecordingFailed,
    RecordingWriter,
    make_header,
    recording_name,
    unused_path,
)
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event, note
from mcptui.model.failure_text import describe_exception
from mcptui.model.ingest import StreamIngester
from mcptui.model.player import Player
from mcptui.model.providers import Endpoint, base_of_endpoint, detect_provider, endpoint_for
from mcptui.model.redaction import (
    merge_secrets,
    redact,
    redact_entries,
    redact_headers,
    redact_text,
    request_secrets,
    text_url_secrets,
    value_secrets,
)
from mcptui.model.reducer import ERROR_NOTE_LEVEL
from mcptui.model.state import TERMINAL_STATUSES
from mcptui.model.status import request_purpose
from mcptui.model.timeline import Timeline
from mcptui.sources.endpoints import async_client
from mcptui.sources.request_file import streams
from mcptui.sources.session import Session

CREATE_PARAMS = frozenset(inspect.signature(AsyncResponses.create).parameters) - {
    "self",
    "extra_headers",
    "extra_query",
    "extra_body",
    "timeout",
}


def split_request(request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keyword arguments the SDK's `create` declares, and the rest (sent as `extra_body`)."""
    known = {k: v for k, v in request.items() if k in CREATE_PARAMS}
    extra = {k: v for k, v in request.items() if k not in CREATE_PARAMS}
    return known, extra


class Recorder:
    """The live recording: opened at the first answer, named after the response once known.

    A recording that cannot be written (a full disk, `ulimit -f`, /dev/full) never stops the
    run: the file keeps every whole line before the failure (RecordingWriter), `failure` says
    what happened, `on_failure` is told once, and later entries are shown but not written."""

    def __init__(
        self,
        path: Path | None = None,
        folder: Path = DEFAULT_RECORD_DIR,
        *,
        response_id: str | None = None,
    ) -> None:
        self.fixed_path = path
        self.folder = path.parent if path is not None else folder
        self.writer: RecordingWriter | None = None
        self.waiting: list[Event] = []
        """Entries before the file opens (a tap's MCP messages come before the answer)."""
        self.started = datetime.now()
        self.response_id = response_id
        """Known before the first answer (`attach`): the file is named after it at once."""
        self._named = path is not None or response_id is not None
        self.failure: str | None = None
        """Why the recording stopped short (one line naming the file), or None."""
        self.on_failure: Callable[[str], None] | None = None

    @property
    def path(self) -> Path | None:
        return self.writer.path if self.writer else None

    def _guarded(self, step: Callable[[RecordingWriter], Any]) -> Any:
        """One step on the open file; a failure closes the recording for good."""
        if self.writer is None:
            return None
        try:
            return step(self.writer)
        except OSError as exc:
            self._failed(exc, self.writer.path)
            return None

    def _failed(self, exc: OSError, path: Path) -> None:
        self.writer, self.waiting = None, []
        self.failure = (
            str(exc)
            if isinstance(exc, RecordingFailed)
            else (f"could not write the recording {path}: {describe_exception(exc)}")
        )
        if self.on_failure is not None:
            self.on_failure(self.failure)

    def open(self, header: dict[str, Any]) -> Path:
        """Create the file; never over an existing one (a numbered name is taken instead)."""
        path = self.fixed_path or self.folder / recording_name(self.response_id, self.started)
        if self.writer is None and self.failure is None:
            try:
                self.writer = RecordingWriter(path, header, unique=True)
            except OSError as exc:
                self._failed(exc, path)
                return path
            waiting, self.waiting = self.waiting, []
            for event in waiting:
                self._guarded(partial(RecordingWriter.write, event=event, flush=False))
            self._guarded(RecordingWriter.flush)
        return self.writer.path if self.writer is not None else path

    def write(self, event: Event, *, flush: bool = True) -> None:
        if self.writer is not None:
            self._guarded(lambda writer: writer.write(event, flush=flush))
        elif self.failure is None:
            self.waiting.append(event)

    def write_many(self, events: list[Event], *, flush: bool = True) -> None:
        """`write` each of entries that arrived together, checked for credentials at once
        (`RecordingWriter.write_many`)."""
        if self.writer is not None:
            self._guarded(lambda writer: writer.write_many(events, flush=flush))
        elif self.failure is None:
            self.waiting.extend(events)

    def flush(self) -> None:
        self._guarded(RecordingWriter.flush)

    def name_after(self, response_id: str) -> Path | None:
        """Rename an automatically named file to `<time>-<response id>.jsonl`, once."""
        if self._named or self.writer is None:
            return None
        self._named = True
        target = unused_path(self.writer.path.with_name(recording_name(response_id, self.started)))
        self.writer.path.rename(target)  # the open file follows its new name
        self.writer.path = target
        return target

    def close(self) -> None:
        self._guarded(RecordingWriter.close)

    def reopen(self) -> None:
        """Write again after `close` (the file, and its name, stay)."""
        self._guarded(RecordingWriter.reopen)


MAX_RESUMES = 5
POLL_START, POLL_MAX = 0.25, 5.0
"""Background polling backs off from a quarter second to five seconds between polls."""


@dataclass
class Tracked:
    """What the client knows of the response a send or attach is following."""

    id: str | None = None
    background: bool = False
    status: str | None = None
    last_seq: int | None = None
    """The highest sequence number received: the resume cursor."""
    request: dict[str, Any] | None = None
    """The request that started it, as sent (None when attached to it)."""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def learn(self, response: dict[str, Any]) -> None:
        if isinstance(response.get("id"), str):
            self.id = response["id"]
        if isinstance(response.get("background"), bool):
            self.background = response["background"]
        if isinstance(response.get("status"), str):
            self.status = response["status"]


class Taps(Protocol):
    """MCP taps in front of a request's servers (tui/mcptui/capture/tap_run.py RunTaps)."""

    def route(self, request: dict[str, Any]) -> dict[str, Any]: ...
    def describe(self) -> list[dict[str, Any]]: ...
    def start(
        self,
        add: Callable[[Event], None],
        loop: asyncio.AbstractEventLoop,
        *,
        clock: Callable[[], float],
        start: float,
    ) -> None: ...
    def stop(self) -> None: ...


class LiveRun:
    """Sends requests into one session; each response becomes a root of the same timeline.

    A dropped or stalled background stream is resumed with `starting_after` = the last
    sequence number seen, and any event at or below it is dropped, so nothing is lost or
    duplicated. A background request with `"stream": false` is polled with backoff instead.
    """

    def __init__(
        self,
        session: Session,
        client: AsyncOpenAI,
        *,
        recorder: Recorder | None = None,
        idle_timeout: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_event: Callable[[Event], None] | None = None,
        taps: Taps | None = None,
        provider: str | None = None,
    ) -> None:
        self.session = session
        self.client = client
        self.provider = provider or detect_provider(str(getattr(client, "base_url", "")))
        """Who answers (tui/mcptui/model/providers.py): recorded in the header, shown with
        the stream, and named by the checks' SDK-drift findings."""
        session.provider = self.provider
        self.recorder = recorder
        if recorder is not None:  # shown, and counted as a failure: the file is incomplete
            recorder.on_failure = lambda message: self._note(
                "recording", message, level=ERROR_NOTE_LEVEL
            )
        self.idle_timeout = idle_timeout
        self.clock = clock
        self.start = clock()
        self.on_event = on_event
        self.on_settled: Callable[[], None] | None = None
        """Called once a send or an attach has followed its response to the end (`--otlp`
        sends that response's spans): on the run's loop, so it must not wait."""
        self.requests = 0
        self.first_request: dict[str, Any] | None = None
        self.current = Tracked()
        """The response followed last (what cancel cancels)."""
        self.followed: list[Tracked] = []
        """Every response sent for, in order: which request started which response."""
        self._turn = asyncio.Lock()
        """One send at a time: concurrent streams would interleave in one timeline."""
        self._cancelling = asyncio.Lock()
        """Held while a cancel request is out: the stream it ends is looked up (and noted)
        after the cancel's own note, so the recording reads in the order things were asked."""
        self.secrets: list[str] = merge_secrets(
            value_secrets(getattr(client, "api_key", None)),
            text_url_secrets(str(getattr(client, "base_url", ""))),
        )
        """What the requests name as secrets (request_secrets) and the API key: hidden
        wherever they are echoed."""
        self.scrubber = DeltaScrubber()
        """Secrets split across deltas: hidden on each item's joined text."""
        self.taps = taps
        """`--tap`: requests go out with the taps' server URLs (recorded with their own), and
        the MCP messages join this run's timeline."""
        self._tapping = False
        self.backlog: _Backlog | None = None
        """The stream being read: chunks received and not parsed yet (see `_read`)."""

    @property
    def behind(self) -> bool:
        """Bytes have arrived that are not events in the timeline yet."""
        return bool(self.backlog)

    def now(self) -> float:
        return self.clock() - self.start

    def add(self, event: Event, *, flush: bool = True) -> None:
        """Timeline, recording, listener: in that order, for every entry; redacted first, so
        what is shown, copied and saved is what the recording holds. `flush=False`: the
        caller flushes the recording once after a batch (at least once per chunk read)."""
        self._add_many(self.scrubber.push(event, self.secrets), flush=flush)

    def release_held(self) -> None:
        """The stream ended: the delta held back (a possible secret's start) goes out."""
        self._add_many(self.scrubber.release(self.secrets))

    def _add_many(self, events: list[Event], *, flush: bool = True) -> None:
        """Entries the scrubber let out, in order: redacted, then appended to the timeline,
        written and told to the listener as one batch (each step asks about credentials once
        for the batch: `redact_entries`, `Recorder.write_many`)."""
        if not events:
            return
        redact_entries(events, self.secrets)
        self.session.timeline.extend(events, follow=False)
        if self.recorder is not None:
            self.recorder.write_many(events, flush=flush)
        if self.on_event is not None:
            for event in events:
                self.on_event(event)

    def _note(self, kind: str, message: str, **details: Any) -> None:
        """A note: its URLs are about servers mcptui talks to, so redacted strictly."""
        self.add(note(kind, redact_text(message, strict_urls=True), self.now(), **details))

    @property
    def target(self) -> Endpoint:
        """Where this run's requests go: what a fetch made from its session (`o`) uses too."""
        query = urlencode(getattr(self.client, "default_query", None) or {})
        return Endpoint(str(self.client.base_url).rstrip("/"), query, self.provider)

    @property
    def endpoint(self) -> str:
        """`…/responses`, with the query every request carries (Azure's `api-version`)."""
        return self.target.responses_url

    def _opened(
        self,
        what: str,
        status: int | None,
        headers: dict[str, str],
        *,
        request: dict[str, Any] | None = None,
        **source: Any,
    ) -> None:
        """The first HTTP exchange opens the recording; later ones are notes in it."""
        self.requests += 1
        if self.requests > 1:
            details: dict[str, Any] = {
                "http_status": status,
                "http_headers": redact_headers(headers),
            }
            purpose = ""
            if request is not None:
                details["request"] = redact(request)
                purpose = request_purpose(request, self.session.timeline.state)
            self._note(
                "request",
                f"{what}: HTTP {status}" + (f" · {purpose}" if purpose else ""),
                **details,
            )
            return
        if self.taps is not None:
            source["taps"] = self.taps.describe()
        header = make_header(
            "live",
            request=request,
            endpoint=self.endpoint,
            http_status=status,
            http_headers=headers,
            secrets=self.secrets,
            provider=self.provider,
            **source,
        )
        self.session.header = header
        if self.recorder is not None:
            self.session.recording_path = str(self.recorder.open(header))

    def _http_error(self, what: str, exc: openai.APIStatusError, **source: Any) -> None:
        headers = kept_headers(exc.response.headers)
        self._opened(what, exc.status_code, headers, **source)
        self._note(
            "http_error",
            f"{what}: HTTP {exc.status_code}: {error_message(exc)}",
            level="error",
            status=exc.status_code,
            body=error_body(exc),
            request_id=headers.get("x-request-id"),
        )

    def _unreachable(self, what: str, exc: BaseException, **source: Any) -> None:
        if self.requests == 0:
            self._opened(what, None, {}, **source)
        self._note(
            "connection_error",
            f"{what}: could not reach {self.client.base_url}: {describe_exception(exc)}",
            level="error",
        )

    # -- sending -----------------------------------------------------------------------------

    async def send(self, request: dict[str, Any]) -> str | None:
        """Send one request and follow its answer into the session; the response id or None.
        A send made while another runs waits for it to finish."""
        if self.taps is not None and not self._tapping:
            self._tapping = True
            self.taps.start(
                self.add, asyncio.get_running_loop(), clock=self.clock, start=self.start
            )
        async with self._turn:
            try:
                return await self._send(request)
            finally:
                self._settled()

    def _settled(self) -> None:
        if self.on_settled is not None:
            self.on_settled()

    async def _send(self, request: dict[str, Any]) -> str | None:
        if self.first_request is None:
            self.first_request = request
        self.secrets = merge_secrets(self.secrets, request_secrets(request))
        tracked = self.current = Tracked(
            background=bool(request.get("background")), request=request
        )
        self.followed.append(tracked)
        if not streams(request):
            await self._poll_create(request, tracked)
            return tracked.id
        what = "POST /responses"
        known, extra = split_request({**self._routed(request), "stream": True})
        try:
            async with self.client.responses.with_streaming_response.create(
                **known, extra_body=extra or None
            ) as response:
                self._opened(
                    what, response.status_code, kept_headers(response.headers), request=request
                )
                ended = await self._read_answer(response, tracked)
        except openai.APIStatusError as exc:
            self._http_error(what, exc, request=request)
            return tracked.id
        except (openai.APIConnectionError, OSError) as exc:
            self._unreachable(what, exc, request=request)
            return tracked.id
        await self._follow(tracked, ended)
        return tracked.id

    def _routed(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request as sent: through the taps when tapping."""
        return self.taps.route(request) if self.taps is not None else request

    async def attach(self, response_id: str, after: int | None = None) -> None:
        """Follow an existing background response after sequence number `after` (from the
        start when None or negative)."""
        tracked = self.current = Tracked(
            id=response_id,
            background=True,
            last_seq=after if after is not None and after >= 0 else None,
        )
        try:
            await self._follow(tracked, "start")
        finally:
            self._settled()

    def request_for(self, response_id: str | None) -> dict[str, Any] | None:
        """The request, as sent (secrets and all), that started a response of this run: what
        a changed re-run of that response starts from."""
        return next(
            (
                t.request
                for t in reversed(self.followed)
                if response_id is not None and t.id == response_id
            ),
            None,
        )

    def approval_request(
        self, previous_response_id: str, approval_request_id: str, approve: bool
    ) -> dict[str, Any]:
        """The follow-up request that answers an `mcp_approval_request`."""
        # The request of the response answered: an edited re-send's tools, not the first's.
        base = self.request_for(previous_response_id) or self.first_request or {}
        request: dict[str, Any] = {
            key: base[key]
            for key in ("model", "tools", "metadata", "store", "background")
            if key in base
        }
        request.update(
            previous_response_id=previous_response_id,
            stream=True,
            input=[
                {
                    "type": "mcp_approval_response",
                    "approval_request_id": approval_request_id,
                    "approve": approve,
                }
            ],
        )
        return request

    async def cancel(self) -> None:
        """Cancel the background response being followed (the stream then ends)."""
        tracked = self.current
        if tracked.id is None or not tracked.background or tracked.terminal:
            self._note(
                "cancel", "nothing to cancel: no background response is running", level="warning"
            )
            return
        what = f"POST /responses/{tracked.id}/cancel"
        async with self._cancelling:
            try:
                raw = await self.client.responses.with_raw_response.cancel(tracked.id)
            except openai.APIStatusError as exc:
                self._http_error(what, exc)
                return
            except (openai.APIConnectionError, OSError) as exc:
                self._unreachable(what, exc)
                return
            body = raw.http_response.json()
            self._note(
                "cancel", f"cancel requested: {tracked.id} is {body.get('status')}", response=body
            )

    # -- following a response ----------------------------------------------------------------

    async def _follow(self, tracked: Tracked, ended: str) -> None:
        """Keep following until the response is terminal: `ended` says how the last stream
        ended ("end", "drop", "stall"), or "start" when there was none yet (attach)."""
        resumes = 0
        while tracked.id is not None and not tracked.terminal:
            if ended == "end" and await self._lookup(tracked):
                return  # closed cleanly before a terminal event: the lookup said why
            if not tracked.background:
                return  # a foreground stream cannot be resumed (the API answers 404)
            if ended != "start":
                if resumes == MAX_RESUMES:
                    self._note("resume", f"gave up after {MAX_RESUMES} resumes", level="error")
                    return
                resumes += 1
                await asyncio.sleep(min(0.2 * 2 ** (resumes - 1), 3.0))
                self._note(
                    "resume",
                    f"resuming {tracked.id} after sequence number {tracked.last_seq}",
                    starting_after=tracked.last_seq,
                    attempt=resumes,
                )
            result = await self._stream_existing(tracked, first=ended == "start")
            if result is None:
                return
            ended = result

    async def _stream_existing(self, tracked: Tracked, *, first: bool) -> str | None:
        """GET the response's stream after the last sequence number; None on an HTTP error."""
        assert tracked.id is not None
        after = tracked.last_seq
        what = f"GET /responses/{tracked.id}?stream=true" + (
            f"&starting_after={after}" if after is not None else ""
        )
        cursor: dict[str, Any] = {} if after is None else {"starting_after": after}
        try:
            async with self.client.responses.with_streaming_response.retrieve(
                tracked.id, stream=True, **cursor
            ) as response:
                if first:
                    self._opened(
                        what,
                        response.status_code,
                        kept_headers(response.headers),
                        attached=tracked.id,
                        starting_after=after,
                    )
                return await self._read_answer(response, tracked)
        except openai.APIStatusError as exc:
            self._http_error(what, exc, attached=tracked.id)
            return None
        except (openai.APIConnectionError, OSError) as exc:
            if first:
                self._unreachable(what, exc, attached=tracked.id)
                return None
            self._note("connection_error", f"{what}: {describe_exception(exc)}", level="warning")
            return "drop"

    async def _lookup(self, tracked: Tracked) -> bool:
        """GET the response and note its status; True when it is terminal."""
        assert tracked.id is not None
        async with self._cancelling:  # a cancel that ended this stream is noted first
            pass
        try:
            raw = await self.client.responses.with_raw_response.retrieve(tracked.id)
            body = raw.http_response.json()
        except (openai.APIError, OSError, ValueError) as exc:
            self._note(
                "status",
                f"the stream ended early and the response could not be "
                f"looked up: {describe_exception(exc)}",
                level="error",
            )
            return True
        tracked.learn(body)
        level = "error" if not tracked.terminal and not tracked.background else "info"
        self._note(
            "status",
            f"the stream ended before a terminal event; {tracked.id} is {tracked.status}",
            response=body,
            level=level,
        )
        return tracked.terminal

    async def _poll_create(self, request: dict[str, Any], tracked: Tracked) -> None:
        """A background request without streaming: POST, then GET with backoff until done."""
        what = "POST /responses"
        known, extra = split_request(self._routed(request))
        try:
            raw = await self.client.responses.with_raw_response.create(
                **known, extra_body=extra or None
            )
        except openai.APIStatusError as exc:
            self._http_error(what, exc, request=request)
            return
        except (openai.APIConnectionError, OSError) as exc:
            self._unreachable(what, exc, request=request)
            return
        self._opened(
            what, raw.http_response.status_code, kept_headers(raw.headers), request=request
        )
        body = raw.http_response.json()
        tracked.learn(body)
        self._note("poll", f"created {tracked.id}: {tracked.status}", response=body)
        if tracked.id is not None and self.recorder is not None:
            self._renamed(tracked.id)
        delay, polls = POLL_START, 0
        while not tracked.terminal and tracked.id is not None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, POLL_MAX)
            polls += 1
            try:
                raw = await self.client.responses.with_raw_response.retrieve(tracked.id)
            except openai.APIStatusError as exc:
                self._http_error(f"GET /responses/{tracked.id}", exc)
                return
            except (openai.APIConnectionError, OSError) as exc:
                self._note(
                    "connection_error", f"poll {polls}: {describe_exception(exc)}", level="warning"
                )
                continue
            body = raw.http_response.json()
            tracked.learn(body)
            self._note("poll", f"poll {polls}: {tracked.status}", response=body)

    async def _read_answer(self, response: Any, tracked: Tracked) -> str:
        """`_read` an opened streaming answer (the SDK's), its socket widened first."""
        widen_receive_buffer(response.http_response)
        return await self._read(response.iter_bytes(), tracked)

    async def _read(self, chunks: AsyncIterator[bytes], tracked: Tracked) -> str:
        """Ingest a stream until it ends ("end"), breaks ("drop") or goes quiet ("stall").

        Reading comes first: each chunk is stamped with its arrival as it is read, and parsed
        later, in slices (`_Backlog`), so that a fast stream is drained at the server's pace
        and every event's time is when it came off the wire, however long the app takes to
        take it in. While bytes keep coming, up to `PARSE_SLICE` of parsing follows every
        `READ_SLICE` of reading; when the socket has nothing, what is left is parsed at once.
        """
        backlog = self.backlog = _Backlog(self, tracked)
        iterator = chunks.__aiter__()
        read_since = self.clock()
        try:
            while True:
                try:
                    chunk = await self._next_chunk(iterator, backlog)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    await backlog.drain(final=True)
                    self._note(
                        "stall",
                        f"no data for {self.idle_timeout:g} s "
                        f"(--idle-timeout): {self._next_step(tracked)}",
                        level=self._level(tracked),
                    )
                    return "stall"
                except Exception as exc:  # httpx2 transport errors: the peer closed, reset…
                    await backlog.drain(final=True)
                    self._note(
                        "disconnect",
                        "the connection broke mid-stream: "
                        f"{describe_exception(exc)}; {self._next_step(tracked)}",
                        level=self._level(tracked),
                    )
                    return "drop"
                now = self.clock()
                backlog.append(now, chunk)
                if now - read_since >= READ_SLICE:
                    backlog.parse(PARSE_SLICE)
                    read_since = self.clock()
            await backlog.drain(final=True)
            return "end"
        finally:
            backlog.parse(None)  # cancelled mid-stream: keep what arrived
            self.release_held()
            self.backlog = None

    async def _next_chunk(self, iterator: AsyncIterator[bytes], backlog: _Backlog) -> bytes:
        """The next chunk; while it has not come (the socket is drained), parse the backlog."""
        if not backlog:
            if self.idle_timeout:
                return await asyncio.wait_for(anext(iterator), self.idle_timeout)
            return await anext(iterator)
        started = self.clock()
        fetch = asyncio.ensure_future(anext(iterator))
        try:
            while backlog and not fetch.done():
                await asyncio.wait((fetch,), timeout=CAUGHT_UP)
                if not fetch.done():
                    backlog.parse(PARSE_SLICE)
            if self.idle_timeout:
                left = max(0.0, self.idle_timeout - (self.clock() - started))
                return await asyncio.wait_for(fetch, left)
            return await fetch
        finally:
            if not fetch.done():
                fetch.cancel()

    @staticmethod
    def _level(tracked: Tracked) -> str:
        """A broken background stream is resumed (a warning); a foreground one is lost."""
        return "warning" if tracked.background and tracked.id else "error"

    @staticmethod
    def _next_step(tracked: Tracked) -> str:
        if tracked.background and tracked.id:
            return "resuming from the last sequence number"
        return "a foreground stream cannot be resumed; what arrived is kept"

    def _add_all(self, events: list[Event], tracked: Tracked, *, flush: bool = True) -> None:
        """Add a chunk's events as one batch (`flush=False`: the caller flushes the recording
        after it): those at or below the resume cursor are dropped, the rest go through the
        scrubber together (`DeltaScrubber.push_all`: a run of one item's deltas at once) and
        are added together (`_add_many`)."""
        fresh: list[Event] = []
        keep = fresh.append
        for event in events:
            if not event.is_note:
                lite = event.lite
                seq = lite.sequence_number if lite is not None else event.sequence_number
                if seq is not None:
                    last = tracked.last_seq
                    if last is not None and seq <= last:
                        continue  # already received before a resume
                    tracked.last_seq = seq
                # A text delta read fast holds no `response`: not decoded for nothing.
                response = None if lite is not None else event.raw.get("response")
                if isinstance(response, dict):
                    known = tracked.id
                    tracked.learn(response)
                    if known is None and tracked.id is not None:
                        self._renamed(tracked.id)
            keep(event)
        self._add_many(self.scrubber.push_all(fresh, self.secrets), flush=False)
        if flush and self.recorder is not None:
            self.recorder.flush()

    def _renamed(self, response_id: str) -> None:
        if self.recorder is not None and (path := self.recorder.name_after(response_id)):
            self.session.recording_path = str(path)

    async def aclose(self) -> None:
        """Close the recording and the HTTP client (the recording is valid either way)."""
        if self.taps is not None:
            await asyncio.to_thread(self.taps.stop)  # after a session's last goodbye
        if self.recorder is not None:
            self.recorder.close()
        await self.client.close()


RECEIVE_BUFFER = 4 << 20
"""Bytes the kernel may hold for a stream the app has not read yet (see
`widen_receive_buffer`)."""


def widen_receive_buffer(response: Any) -> None:
    """Let the kernel hold up to `RECEIVE_BUFFER` of a stream while the app parses.

    Linux starts a connection's receive buffer at 128 KB: a fast server fills that in under a
    millisecond of parsing and then waits, so a flood would come at the app's pace and be
    stamped so. With room for a few parse slices' worth, the server sends at its own pace
    and the reads that follow a slice find the bytes already there. Best effort: a socket
    that cannot be reached or widened (a test's transport, a system limit) stays as it is.
    """
    stream = getattr(response, "extensions", {}).get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:  # asyncio hands out a TransportSocket, which can set options
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)


READ_SLICE = 0.010
"""While a stream keeps sending, read this long (seconds) between slices of parsing."""
PARSE_SLICE = 0.005
"""Longest slice of parsing between reads while a stream keeps sending; the loop (the app's
ticks and frames) runs between slices too."""
CAUGHT_UP = 0.001
"""A read that has not completed after this long means the socket is drained: the backlog is
parsed while waiting."""


class _Backlog:
    """Chunks read but not parsed yet, each with its arrival time, and the stream's parser.

    Events get the arrival time of the chunk that completed them (the ingester's clock reads
    it), not the time they were parsed. Every parse slice flushes the recording once: what was
    parsed is on disk, as after each chunk before."""

    def __init__(self, run: LiveRun, tracked: Tracked) -> None:
        self.run = run
        self.tracked = tracked
        self.chunks: deque[tuple[float, bytes]] = deque()
        self.arrival = run.start
        self.ingester = StreamIngester(lambda: self.arrival, start=run.start)

    def __bool__(self) -> bool:
        return bool(self.chunks)

    def append(self, arrival: float, chunk: bytes) -> None:
        self.chunks.append((arrival, chunk))

    def parse(self, budget: float | None) -> None:
        """Parse and add chunks, oldest first, for up to `budget` seconds (None: all)."""
        if not self.chunks:
            return
        run, chunks, clock = self.run, self.chunks, self.run.clock
        deadline = None if budget is None else clock() + budget
        while chunks:
            self.arrival, chunk = chunks.popleft()
            run._add_all(self.ingester.feed(chunk), self.tracked, flush=False)
            if deadline is not None and clock() >= deadline:
                break
        if run.recorder is not None:
            run.recorder.flush()

    async def drain(self, *, final: bool = False) -> None:
        """Parse everything, a slice at a time, letting the loop run between slices;
        `final`: the stream is over, so an event it left unfinished is added too."""
        while self.chunks:
            self.parse(PARSE_SLICE)
            await asyncio.sleep(0)
        if final:
            self.run._add_all(self.ingester.finish(), self.tracked)


def live_client(base_url: str | Endpoint | None, api_key: str) -> AsyncOpenAI:
    """The SDK's client for a run. `max_retries=0`: the SDK would retry 429 and 5xx answers
    out of sight; here every attempt is the user's to see."""
    endpoint = base_url if isinstance(base_url, Endpoint) else endpoint_for(base_url)
    return async_client(endpoint, api_key, max_retries=0)


def live_run_on(
    session: Session, base_url: str | Endpoint | None, api_key: str, recorder: Recorder | None
) -> LiveRun:
    """A run that sends into an existing session (a replay sending an edited copy of its
    request, `e`): its responses join that timeline, recorded to a file of their own."""
    session.live = True
    return LiveRun(
        session, live_client(base_url, api_key), recorder=recorder, provider=_named(base_url)
    )


def _named(base_url: str | Endpoint | None) -> str | None:
    return base_url.provider if isinstance(base_url, Endpoint) else None


def recorded_base_url(header: dict[str, Any] | None) -> str | None:
    """The API base URL a recording's header names (`…/v1` of its `…/v1/responses`, its query
    kept), when it names one that is not redacted."""
    return base_of_endpoint((header or {}).get("endpoint"))


def live_session(
    base_url: str | Endpoint | None,
    api_key: str,
    recorder: Recorder | None,
    *,
    source: str,
    idle_timeout: float | None = None,
    taps: Taps | None = None,
) -> tuple[Session, LiveRun]:
    """A session that follows live events as they arrive, and the run that feeds it
    (`base_url` an Endpoint when the provider was named or its URL resolved already)."""
    client = live_client(base_url, api_key)
    session = Session(Timeline(), source=source, player=Player(instant=True), live=True)
    return session, LiveRun(
        session,
        client,
        recorder=recorder,
        idle_timeout=idle_timeout,
        taps=taps,
        provider=_named(base_url),
    )


def error_body(exc: openai.APIStatusError) -> Any:
    try:
        return exc.response.json()
    except ValueError:
        return exc.response.text[:2000]


def error_message(exc: openai.APIStatusError) -> str:
    body = error_body(exc)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or exc.message)
    return str(exc.message)
