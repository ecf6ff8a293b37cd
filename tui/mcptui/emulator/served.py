"""A recording served as the Responses API: `mcptui serve` answers `POST /v1/responses` with
the responses a recording holds, so an app meets a production failure again without OpenAI.

The recording's responses are split out of its timeline (`recorded_responses`): each is its
stream events with their times, its final Response object, or the HTTP error it was refused
with. A POST takes the recorded response whose request had the same `input`, else the next
one in order, starting again at the first after the last (an SDK retrying a recorded 429 gets
the 429 each time). Its events are played into a `StoredResponse` at the recorded pace, and
the emulator's own handlers stream, retrieve, resume and cancel it: `RecordedBuilder` stands in
for the scripted run's `ResponseBuilder`.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from mcptui.emulator.app import REQUEST_ID, DroppedConnection, Emulator, error, tail
from mcptui.emulator.builder import ResponseBuilder
from mcptui.emulator.faults import Faults
from mcptui.emulator.store import KEEP, TERMINAL, StoredResponse
from mcptui.io.recording import Loaded
from mcptui.model.redaction import hide_known, redact_entries

Json = dict[str, Any]
TERMINAL_EVENTS = frozenset({"response.completed", "response.failed", "response.incomplete"})


@dataclass
class Recorded:
    """One recorded answer to a create: stream events (with their `t`), the final Response
    object, or an HTTP error (status and body)."""

    request: Json | None = None
    """The request that got it, as the recording holds it (redacted): matched on `input`."""
    sent_t: float | None = None
    """When that request was sent, on the recording's clock (the header's request: 0), so the
    first event keeps its own wait (the time to first byte); None when the recording does not
    say."""
    events: list[tuple[float | None, Json]] = field(default_factory=list)
    final: Json | None = None
    status: int | None = None
    """An HTTP error's status (`body` its body); None for an answer."""
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set, repr=False)
    """Sequence numbers taken: a resumed stream's repeats are left out."""

    @property
    def response_id(self) -> str | None:
        for _, event in self.events[:1]:
            response = event.get("response")
            if isinstance(response, dict):
                return str(response.get("id"))
        return str(self.final.get("id")) if self.final else None

    @property
    def dropped(self) -> bool:
        """The recorded stream stopped before its terminal event (a dropped connection, a
        recording cut short): served, it stops there too, the connection closed mid-body."""
        return bool(self.events) and self.final is None

    @property
    def first_snapshot(self) -> Json | None:
        for _, event in self.events:
            if isinstance(event.get("response"), dict):
                return dict(event["response"])
        return self.final

    def take(self, t: float | None, event: Json) -> None:
        number = event.get("sequence_number")
        if isinstance(number, int):
            if number in self.seen:
                return
            self.seen.add(number)
        self.events.append((t, event))
        if event.get("type") in TERMINAL_EVENTS and isinstance(event.get("response"), dict):
            self.final = event["response"]


def recorded_responses(loaded: Loaded) -> list[Recorded]:
    """The responses of a loaded recording (any format `load_path` reads), in order. Its
    entries are redacted as a recording's are (an archive holds what went over the wire: a
    key its events echo is hidden before it is served)."""
    redact_entries(loaded.events, loaded.secrets)
    header = loaded.header or {}
    pending: Json | None = header.get("request") if isinstance(header, dict) else None
    pending_t: float | None = 0.0 if loaded.header is not None else None
    found: list[Recorded] = []
    current: Recorded | None = None

    def start(**fields: Any) -> Recorded:
        nonlocal pending, pending_t, current
        current = Recorded(request=pending, sent_t=pending_t, **fields)
        pending, pending_t = None, None
        found.append(current)
        return current

    for event in loaded.events:
        raw = event.raw
        if event.is_note:
            kind = raw.get("kind")
            if kind == "request" and isinstance(raw.get("request"), dict):
                pending, pending_t = raw["request"], event.t
            elif kind == "http_error" and (current is None or refused_create(raw)):
                status = raw.get("status")
                start(status=status if isinstance(status, int) else 500, body=raw.get("body"))
                current = None
            elif isinstance(response := raw.get("response"), dict):
                if current is not None and current.response_id == response.get("id"):
                    if response.get("status") in TERMINAL:
                        current.final = response
                else:
                    start(final=response)
            continue
        kind = raw.get("type")
        if not isinstance(kind, str):
            continue
        response = raw.get("response")
        new_id = response.get("id") if isinstance(response, dict) else None
        if current is None or (
            kind == "response.created" and new_id is not None and new_id != current.response_id
        ):
            start()
        assert current is not None
        current.take(event.t, raw)
    known = {recorded.response_id for recorded in found}
    for snapshot in loaded.snapshots:
        if isinstance(snapshot, dict) and snapshot.get("id") not in known:
            found.append(Recorded(final=hide_known(snapshot, loaded.secrets)))
    for recorded in found:
        if not recorded.events and recorded.final is not None:
            recorded.events = [(None, event) for event in stream_of(recorded.final)]
    headers = header.get("http", {}).get("headers") if isinstance(header, dict) else None
    if found and found[0].status is not None and isinstance(headers, dict):
        found[0].headers = {
            name: str(value) for name, value in headers.items() if name == "retry-after"
        }
    return found


def stream_of(final: Json) -> list[Json]:
    """Stream events for a response recorded without them (a create that was not streamed):
    created, in progress, each output item added and done, the terminal event. No deltas:
    the recording holds none."""
    start = {**final, "status": "in_progress", "output": []}
    for name in ("usage", "error", "completed_at", "incomplete_details"):
        if name in start:
            start[name] = None
    events: list[Json] = [
        {"type": "response.created", "response": start},
        {"type": "response.in_progress", "response": start},
    ]
    for index, item in enumerate(final.get("output") or []):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    status = final.get("status")
    if f"response.{status}" in TERMINAL_EVENTS:
        events.append({"type": f"response.{status}", "response": final})
    return [
        {"type": event.pop("type"), "sequence_number": number, **event}
        for number, event in enumerate(events)
    ]


def refused_create(note: Json) -> bool:
    """An `http_error` note of a create (`POST /responses: HTTP 429: …`), not of a retrieve
    or a cancel of a response already recorded."""
    message = str(note.get("message", ""))
    return message.startswith("POST ") and "/cancel" not in message.split(":", 1)[0]


class RecordedBuilder(ResponseBuilder):
    """A `ResponseBuilder` whose events and Response object are the recording's, as far as
    they have been played: the emulator's stream, retrieve and cancel read it unchanged."""

    def __init__(self, request: Json, recorded: Recorded) -> None:
        super().__init__(request)
        self.recorded = recorded
        self.snapshot = recorded.first_snapshot or {}
        self.id = str(recorded.response_id or self.id)
        self.status = str(self.snapshot.get("status") or self.status)

    def play(self, event: Json) -> None:
        self.events.append(event)
        response = event.get("response")
        if isinstance(response, dict):
            self.snapshot = response
            self.status = str(response.get("status") or self.status)

    def finished(self) -> None:
        """The recording has no more events: the final Response is the recorded one."""
        if self.recorded.final is not None and self.status not in ("cancelled",):
            self.snapshot = self.recorded.final
            self.status = str(self.snapshot.get("status") or self.status)

    def response(self) -> Json:
        out = copy.deepcopy(self.snapshot)
        if out:
            out["status"] = self.status
        return out


class ServedRecording(Emulator):
    """The emulator's routes, answered from recordings: `speed` 0 plays without delays."""

    def __init__(self, responses: list[Recorded], *, speed: float = 1.0, keep: int = KEEP) -> None:
        super().__init__(keep=keep)
        self.responses = responses
        self.speed = speed
        self.next = 0
        self.matched: dict[int, int] = {}
        """How often each response was matched by input: equal inputs take turns."""

    def pick(self, body: Json) -> Recorded:
        """The recorded response for this request: by `input`, else the next in order."""
        same = [
            recorded
            for recorded in self.responses
            if recorded.request is not None
            and "input" in body
            and recorded.request.get("input") == body["input"]
        ]
        if same:
            key = id(same[0])
            turn = self.matched.get(key, 0)
            self.matched[key] = turn + 1
            return same[turn % len(same)]
        recorded = self.responses[self.next % len(self.responses)]
        self.next += 1
        return recorded

    async def create(self, request: Request) -> Response:
        body = await self.create_body(request)
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict):
            return error(400, "The request body must be a JSON object.")
        recorded = self.pick(body)
        if recorded.status is not None:
            return JSONResponse(
                recorded.body, status_code=recorded.status, headers=recorded.headers
            )
        builder = RecordedBuilder(body, recorded)
        stored = StoredResponse(builder, request_id=str(request.scope.get(REQUEST_ID, "")))
        self.store.add(stored)
        stored.task = asyncio.create_task(self.play(stored, builder), name=f"served {stored.id}")
        if body.get("stream"):
            return self.stream(stored, after=-1, faults=Faults())
        if not stored.background:
            await stored.finished()
        return JSONResponse(builder.response())

    async def play(self, stored: StoredResponse, builder: RecordedBuilder) -> None:
        """The recorded events into the stored response, at the recorded pace: the first
        after the wait it had since its request was sent."""
        before = builder.recorded.sent_t
        try:
            for t, event in builder.recorded.events:
                if self.speed and t is not None and before is not None and t > before:
                    await asyncio.sleep((t - before) / self.speed)
                before = t if t is not None else before
                builder.play(event)
                stored.notify()
            builder.finished()
        finally:
            stored.end()

    def stream(
        self, stored: StoredResponse, *, after: int, faults: Faults, obfuscate: bool = True
    ) -> Response:
        return StreamingResponse(
            self.tail(stored, after, obfuscate=obfuscate),
            media_type="text/event-stream; charset=utf-8",
            headers={"cache-control": "no-cache"},
        )

    async def tail(
        self, stored: StoredResponse, after: int, *, obfuscate: bool
    ) -> AsyncIterator[bytes]:
        """The emulator's stream of the played events; closed mid-body where the recorded
        stream broke off."""
        async for data in tail(stored, after, Faults(), obfuscate=obfuscate):
            yield data
        builder = stored.builder
        if isinstance(builder, RecordedBuilder) and builder.recorded.dropped:
            raise DroppedConnection("the recorded stream stopped here")
