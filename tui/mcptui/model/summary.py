"""What a stream came to, as plain data: responses, items, failures. Shared by `inspect`
(text and `--json`), `run --no-tui` and the app's header."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcptui.model.errors import describe_error
from mcptui.model.events import Event
from mcptui.model.state import TERMINAL_STATUSES, ItemState, ResponseState, SessionState
from mcptui.model.status import item_status


@dataclass(slots=True, frozen=True)
class Failure:
    """One thing that went wrong, named the way a person would search for it."""

    response_id: str | None
    item_id: str | None
    type: str
    """`mcp_call`, `mcp_list_tools`, `response.failed`, `error`, or a note's kind."""
    name: str | None
    error: str
    event_index: int | None = None
    item_key: int | None = None
    response_key: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "response_id": self.response_id,
            "item_id": self.item_id,
            "type": self.type,
            "name": self.name,
            "error": self.error,
            "event_index": self.event_index,
        }


def item_failures(resp: ResponseState, item: ItemState) -> list[Failure]:
    if not item.failed:
        return []
    last = item.events[-1] if item.events else None
    return [
        Failure(
            resp.id,
            item.item_id,
            item.type,
            item.name,
            item.error_text or f"{item.type} {item.status}",
            last,
            item.key,
            resp.key,
        )
    ]


def response_failures(resp: ResponseState, events: list[Event]) -> list[Failure]:
    """`error` events, error notes and a failed response, in timeline order."""
    out: list[Failure] = []
    for index in resp.error_events:
        event = events[index]
        kind = event.note_kind or event.type
        message = event.raw.get("message") if event.is_note else None
        out.append(
            Failure(
                resp.id,
                None,
                kind,
                None,
                str(message) if message else describe_error(event.raw),
                index,
                None,
                resp.key,
            )
        )
    if resp.status == "failed" or resp.error is not None:
        failed_at = next(
            (i for i in reversed(resp.events) if events[i].type == "response.failed"), None
        )
        out.append(
            Failure(
                resp.id,
                None,
                "response.failed",
                None,
                describe_error(resp.error) or "response failed with no error details",
                failed_at,
                None,
                resp.key,
            )
        )
    return out


def failures(state: SessionState, events: list[Event]) -> list[Failure]:
    """Every failure in the state, response by response, items in output order."""
    out: list[Failure] = []
    for resp in state.responses:
        for item in resp.items:
            out.extend(item_failures(resp, item))
        out.extend(response_failures(resp, events))
    return out


def failure_count(state: SessionState) -> int:
    """`len(failures(...))` without describing each one: the header counts them on every
    step (at a million events, building the list took 10 ms a step)."""
    count = 0
    for resp in state.responses:
        count += sum(item.failed for item in resp.items)
        count += len(resp.error_events) + (resp.status == "failed" or resp.error is not None)
    return count


def is_excerpt(resp: ResponseState, events: Sequence[Event]) -> bool:
    """Whether only some of `resp`'s items came, none of its own events (created, in
    progress, a terminal one) nor a status: a paste of items, not a stream."""
    if resp.status is not None or resp.created_seen:
        return False
    total = len(events)
    return all(events[i].is_note for i in resp.events if i < total)


def unfinished(state: SessionState, events: list[Event]) -> list[Failure]:
    """Responses whose stream stopped before a terminal event: for a whole file or a run that
    is over (not for a replay mid-way), a problem the user must see. A Response object that
    is still in progress, or a request that got no response, is not one; nor is a response
    whose own error (a disconnect note, an `error` event) is listed already and says why; nor
    an excerpt, whose response has no event of its own (a post quoting the failed item, the
    Agents SDK's run items): it never said it began, so not that it stopped."""
    out: list[Failure] = []
    for resp in state.responses:
        if resp.status in TERMINAL_STATUSES or resp.error_events or is_excerpt(resp, events):
            continue
        streamed = [i for i in resp.events if not events[i].is_note]
        streamed += [i for item in resp.items for i in item.events]
        if not streamed:
            continue
        last = events[max(streamed)]
        seq = last.sequence_number
        where = f"{last.type}" + (f" #{seq}" if seq is not None else "")
        when = f" at {last.t:.2f}s" if last.t is not None else ""
        out.append(
            Failure(
                resp.id,
                None,
                "unfinished",
                None,
                f"never finished: last event {where}{when}, status {resp.status or 'unknown'}",
                max(streamed),
                None,
                resp.key,
            )
        )
    return out


def item_json(resp: ResponseState, item: ItemState) -> dict[str, Any]:
    shown = item_status(resp, item)
    return {
        "index": item.output_index,
        "id": item.item_id,
        "type": item.type,
        "name": item.name,
        "server_label": item.server_label,
        "status": item.status,
        "shown_status": shown.word,
        "status_reason": shown.reason,
        "error": item.error,
        "events": len(item.events),
        "duration_s": item.duration,
    }


def note_json(event: Event) -> dict[str, Any]:
    raw = event.raw
    return {
        "event_index": event.index,
        "t": event.t,
        "kind": event.note_kind,
        "level": raw.get("level") if isinstance(raw.get("level"), str) else "info",
        "message": str(raw.get("message", "")),
    }


def response_notes(resp: ResponseState, events: list[Event]) -> list[Event]:
    """The recording's notes about this response (requests, disconnects, resumes, HTTP
    errors, malformed lines), in timeline order."""
    return [events[i] for i in resp.events if events[i].is_note]


def response_json(resp: ResponseState, events: list[Event]) -> dict[str, Any]:
    return {
        "id": resp.id,
        "status": resp.status,
        "model": resp.model,
        "error": resp.error,
        "usage": resp.usage,
        "duration_s": resp.duration,
        "events": len(resp.events) + sum(len(item.events) for item in resp.items),
        "items": [item_json(resp, item) for item in resp.items],
        "notes": [note_json(event) for event in response_notes(resp, events)],
    }
