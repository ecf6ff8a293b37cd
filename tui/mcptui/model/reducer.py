"""The reducer: folds timeline events into `SessionState`, one event at a time, reversibly.

The same reducer serves live runs, replays and stepping. Going forward, `apply` changes the
state in place and writes every change to an undo journal (old attribute values, list appends,
dict insertions); going backward, `undo` pops the journal back to the mark taken before the last
event. Both cost O(changes made by one event), a handful of entries, whatever the stream's
length, so a step on a 200k-event stream is as cheap as on a short one. Jumps are done by the
`Timeline`, which replays from zero instead of undoing when that is shorter.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, NamedTuple

from mcptui.model.events import ARGUMENT_DELTA, ARGUMENT_DONE, Event, is_wire_note
from mcptui.model.fast_read import TEXT_DELTA
from mcptui.model.redaction import redact
from mcptui.model.state import (
    TERMINAL_STATUSES,
    ItemState,
    ResponseState,
    SessionState,
)
from mcptui.model.status import approval_answers
from mcptui.model.timing import TOOL_TIMEOUT_METADATA

_MISSING = object()


# -- undo journal entries ---------------------------------------------------------------------
# One small record per kind of change, told apart by type on undo. NamedTuples rather than
# frozen slotted dataclasses: the reducer writes one or more per event, and a NamedTuple is
# built about twice as fast as a frozen dataclass (whose __init__ goes through
# object.__setattr__ field by field) and unpacked as fast as a tuple.


class SetAttr(NamedTuple):
    """`obj.attr` was `old` before the event set it (`Reducer._set`)."""

    obj: Any
    attr: str
    old: Any


class PutKey(NamedTuple):
    """`target[key]` was `old` (`_MISSING`: absent) before the event put it (`Reducer._put`)."""

    target: dict[Any, Any]
    key: Any
    old: Any


class TextDelta(NamedTuple):
    """What a text delta read fast changed (`Reducer._fast_delta`): the values it replaced;
    undoing it also pops the item's last event index and text part."""

    resp: ResponseState
    item: ItemState
    last_sequence: int | None
    resp_first_t: float | None
    resp_last_t: float | None
    item_first_t: float | None
    item_last_t: float | None


class Continued(NamedTuple):
    """A text delta that continued a run (`Reducer.fold`): what it replaced is what the delta
    before it set, so nothing is kept (`Reducer._undo_continued`)."""

    timed: bool


CONTINUED = Continued(timed=True)
"""Journal entry of a timed text delta that continued a run (`Reducer.fold`)."""
CONTINUED_UNTIMED = Continued(timed=False)
"""The same, untimed."""

JournalEntry = SetAttr | PutKey | TextDelta | Continued | list[Any]
"""A list is an append to that list, undone by popping it (no record: appends are the most
frequent change, and the list itself says all there is to undo)."""
_INDEX = attrgetter("index")
_DELTA = attrgetter("lite.delta")


def _run_end(events: Sequence[Event], start: int, count: int, item_id: str, untimed: bool) -> int:
    """Where a run of text deltas continuing at `start` ends: each read fast, on the fold's
    stream, to `item_id`, with a sequence number, timed as the run's first is (or not)."""
    for end in range(start, count):
        event = events[end]
        lite = event.lite
        if (
            lite is None
            or lite.item_id != item_id
            or not lite.sequence_number
            or (event.t is None) is not untimed
            or event.stream is not None
        ):
            return end
    return count


RESPONSE_STATUS_BY_TYPE = {
    "response.created": None,
    "response.queued": "queued",
    "response.in_progress": "in_progress",
    "response.completed": "completed",
    "response.failed": "failed",
    "response.incomplete": "incomplete",
    "response.cancelled": "cancelled",
}
TERMINAL_TYPE_BY_STATUS = {
    status: kind for kind, status in RESPONSE_STATUS_BY_TYPE.items() if status in TERMINAL_STATUSES
}
"""A polled Response object with this status is final: its output completes the items."""
TERMINAL_TYPES = frozenset(TERMINAL_TYPE_BY_STATUS.values())
"""The events that end a response."""

ITEM_STATUS_SUFFIXES = {
    "in_progress": "in_progress",
    "completed": "completed",
    "failed": "failed",
    "incomplete": "incomplete",
    "cancelled": "cancelled",
}

# Which item type an event implies when it arrives before (or without) its output_item.added.
_TYPE_BY_EVENT_FAMILY = {
    "output_text": "message",
    "content_part": "message",
    "refusal": "message",
    "mcp_call_arguments": "mcp_call",
    "function_call_arguments": "function_call",
    "custom_tool_call_input": "custom_tool_call",
    "reasoning_summary_text": "reasoning",
    "reasoning_summary_part": "reasoning",
    "reasoning_text": "reasoning",
}

TEXT_DELTA_TYPES = frozenset({TEXT_DELTA, "response.refusal.delta"})
TEXT_DONE_TYPES = frozenset({"response.output_text.done", "response.refusal.done"})
ARGUMENT_DELTA_TYPES = frozenset(
    {
        ARGUMENT_DELTA,
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
    }
)
ARGUMENT_DONE_TYPES = frozenset(
    {ARGUMENT_DONE, "response.function_call_arguments.done", "response.custom_tool_call_input.done"}
)
REASONING_DELTA_TYPES = frozenset(
    {"response.reasoning_summary_text.delta", "response.reasoning_text.delta"}
)

RESPONSE_ATTR_TYPES = {
    "id": str,
    "status": str,
    "model": str,
    "background": bool,
    "previous_response_id": str,
}

ERROR_NOTE_LEVEL = "error"
"""Notes with this `level` (HTTP errors, dropped streams) count as failures."""


def is_failure_event(event: Event) -> bool:
    """Whether an event marks a failure on its own: what "next failure" jumps to."""
    if event.lite is not None:
        return False  # a text delta
    if event.is_note:
        return event.raw.get("level") == ERROR_NOTE_LEVEL
    kind = event.type
    if kind == "error" or kind.endswith(".failed"):
        return True
    if kind == "response.output_item.done":
        written = event.written or event.payload
        if written is not None and not _may_hold_failure(written):
            return False  # not decoded (nor searched for secrets) to find out
        item = event.raw.get("item")
        return isinstance(item, dict) and (
            item.get("status") == "failed" or item.get("error") not in (None, "")
        )
    return False


def _may_hold_failure(written: bytes) -> bool:
    """Whether an `output_item.done` as written may hold a failed item: a `"failed"` string or an
    `"error"` key, each spelled plainly or with an escape. A message's is 10 KB of text that
    the failure scan of a recording would otherwise decode before the fold does."""
    return b'"failed"' in written or b'"error"' in written or b"\\u" in written


def item_type_for_event(event_type: str) -> str:
    """The item type an item-level event implies, e.g. `response.mcp_call.failed` → `mcp_call`."""
    family = event_type.removeprefix("response.").split(".", 1)[0]
    return _TYPE_BY_EVENT_FAMILY.get(family, family)


class Reducer:
    """Folds events into a `SessionState`; every change can be undone event by event."""

    __slots__ = ("_journal", "_marks", "_sessions", "_streams", "_touched", "state")

    def __init__(self) -> None:
        self.state = SessionState()
        self._journal: list[JournalEntry] = []
        self._marks = array("q")
        """Where each applied event's journal entries start (8 bytes an event, no int object)."""
        self._touched: list[ResponseState | ItemState] = []
        """What each applied event touched (its item, else its response), for undo's caller."""
        self._streams: dict[int, ResponseState] = {}
        """The response each tagged stream (`Event.stream`) is on."""
        self._sessions: dict[str, ResponseState] = {}
        """The response each MCP session a tap saw belongs to."""

    @property
    def applied(self) -> int:
        """How many events have been applied (and not undone)."""
        return len(self._marks)

    # -- journal primitives -------------------------------------------------------------------

    def _set(self, obj: Any, attr: str, value: Any) -> None:
        old = getattr(obj, attr)
        if old is value:
            return
        self._journal.append(SetAttr(obj, attr, old))
        setattr(obj, attr, value)

    def _push(self, target: list[Any], value: Any) -> None:
        target.append(value)
        self._journal.append(target)

    def _put(self, target: dict[Any, Any], key: Any, value: Any) -> None:
        self._journal.append(PutKey(target, key, target.get(key, _MISSING)))
        target[key] = value

    def undo(self, events: Sequence[Event]) -> tuple[ResponseState | None, ItemState | None]:
        """Revert the last applied event (of `events`, the ones applied in order); returns
        the response and item it had touched."""
        if not self._marks:
            return None, None
        # Look it up before reverting: the event may have created the response itself.
        result = self.touched(len(self._touched) - 1)
        self._touched.pop()
        mark = self._marks.pop()
        journal = self._journal
        while len(journal) > mark:
            entry = journal.pop()
            # `type(entry) is`, not isinstance (mypy narrows both): the commonest kinds first.
            if type(entry) is Continued:
                resp, item = result
                assert item is not None  # a delta of a run always touched its item
                self._undo_continued(resp, item, events, entry.timed)
            elif type(entry) is list:
                entry.pop()
            elif type(entry) is TextDelta:
                self._undo_delta(entry)
            elif type(entry) is SetAttr:
                obj, attr, old = entry  # unpacking: faster than three field reads
                setattr(obj, attr, old)
            elif type(entry) is PutKey:
                target, key, old = entry
                if old is _MISSING:
                    del target[key]
                else:
                    target[key] = old
        return result

    @staticmethod
    def _undo_continued(
        resp: ResponseState, item: ItemState, events: Sequence[Event], timed: bool
    ) -> None:
        """Undo a delta that continued a run: what it replaced is what the delta before it
        (the event before it, on the same item) had set; untimed, it changed no time."""
        before = events[item.events.pop() - 1]
        item.text_parts.pop()
        resp.last_sequence = before.lite.sequence_number
        if timed:
            resp.last_t = item.last_t = before.t

    def touched(self, index: int) -> tuple[ResponseState, ItemState | None]:
        """The response and item that applied event `index` went to (for the view)."""
        touched = self._touched[index]
        if isinstance(touched, ItemState):
            return self.state.responses[touched.response_key], touched
        return touched, None

    def touched_from(self, start: int) -> tuple[set[ResponseState], set[ItemState]]:
        """The responses and items that applied events `start` on went to, as `touched` gives
        them one by one (a long jump forward's, for the view)."""
        responses: set[ResponseState] = set()
        items: set[ItemState] = set()
        for touched in set(self._touched[start:]):
            if isinstance(touched, ItemState):
                responses.add(self.state.responses[touched.response_key])
                items.add(touched)
            else:
                responses.add(touched)
        return responses, items

    # -- snapshots ---------------------------------------------------------------------------

    def seed_response(self, response: dict[str, Any]) -> ResponseState:
        """Add a response from a Response object (`GET /v1/responses/{id}`), with no timeline.

        Call before any event: seeded state is the base that undo never goes below.
        """
        resp = self._new_response()
        resp.created_seen = True  # events that follow belong to a response of their own
        self._update_response(resp, response, None)
        self._reconcile_output(resp, response.get("output"), from_snapshot=True)
        return resp

    # -- applying events ---------------------------------------------------------------------

    def apply(self, event: Event) -> tuple[ResponseState, ItemState | None]:
        """Fold one event into the state; returns the response and item it touched."""
        self._marks.append(len(self._journal))
        stream = event.stream
        resp = self.state.current if stream is None else self._streams.get(stream)
        # Fast path for the bulk of every stream: a text delta for an item already known.
        if resp is not None:
            lite = event.lite
            if lite is not None:
                item_id, delta, seq = lite.item_id, lite.delta, lite.sequence_number
            elif event.kind == TEXT_DELTA and not event.is_note:
                raw = event.raw
                item_id, delta, seq = (
                    raw.get("item_id"),
                    raw.get("delta"),
                    raw.get("sequence_number"),
                )
            else:
                item_id = None
            if item_id is not None:
                item = resp.by_item_id.get(item_id) if type(item_id) is str else None
                if item is not None and type(delta) is str and type(seq) is int and seq != 0:
                    self._fast_delta(resp, item, event, delta, seq)
                    return resp, item
        resp, item = self._apply(event, resp)
        if stream is not None and self._streams.get(stream) is not resp:
            self._put(self._streams, stream, resp)
        self._touched.append(item or resp)
        return resp, item

    def fold(self, events: Sequence[Event]) -> None:
        """`apply` each event in turn: the same result, with a run of text deltas to one item
        folded in bulk (a replay's jump or a live batch folds thousands of events at a time,
        most of them such runs).

        The run's first delta is applied as `apply` would (`_fast_delta`); each delta after it
        changes only what that event's values give back on undo, so it is journalled as
        `CONTINUED` (`CONTINUED_UNTIMED` when the run has no times) instead of its old values
        (`_undo_continued`), and the run's marks, journal entries, event indexes and texts go
        in with one `extend` each."""
        marks, journal, touched = self._marks, self._journal, self._touched
        mark, fast, apply = marks.append, self._fast_delta, self.apply
        responses = self.state.responses
        resp: ResponseState | None = None
        by_item_id: dict[str, ItemState] = {}
        index, count = 0, len(events)
        while index < count:
            event = events[index]
            index += 1
            lite = event.lite
            if lite is not None and event.stream is None:
                if resp is None and responses:
                    resp = responses[-1]  # the one `apply` would fold it into
                    by_item_id = resp.by_item_id
                item_id = lite.item_id
                item = by_item_id.get(item_id)
                if item is not None and resp is not None and lite.sequence_number:
                    # (`resp` is never None when `item` is not: `by_item_id` is its, or empty)
                    mark(len(journal))
                    fast(resp, item, event, lite.delta, lite.sequence_number)
                    untimed = event.t is None
                    end = _run_end(events, index, count, item_id, untimed)
                    if end > index:
                        run = events[index:end]
                        start = len(journal)
                        marks.extend(range(start, start + end - index))
                        journal.extend(
                            repeat(CONTINUED_UNTIMED if untimed else CONTINUED, end - index)
                        )
                        item.events.extend(map(_INDEX, run))
                        item.text_parts.extend(map(_DELTA, run))
                        touched.extend(repeat(item, end - index))
                        last = run[-1]
                        resp.last_sequence = last.lite.sequence_number
                        if not untimed:
                            resp.last_t = item.last_t = last.t
                        index = end
                    continue
            apply(event)
            resp = None  # it may have opened another response
            by_item_id = {}

    def _fast_delta(
        self, resp: ResponseState, item: ItemState, event: Event, delta: str, seq: int
    ) -> None:
        """A text delta: one journal entry for all it changes (undone by `_undo_delta`)."""
        t = event.t
        self._journal.append(
            TextDelta(
                resp, item, resp.last_sequence, resp.first_t, resp.last_t, item.first_t, item.last_t
            )
        )
        resp.last_sequence = seq
        if t is not None:
            if resp.first_t is None:
                resp.first_t = t
            resp.last_t = t
            if item.first_t is None:
                item.first_t = t
            item.last_t = t
        item.events.append(event.index)
        item.text_parts.append(delta)
        self._touched.append(item)

    @staticmethod
    def _undo_delta(entry: TextDelta) -> None:
        resp, item, last_sequence, resp_first_t, resp_last_t, item_first_t, item_last_t = entry
        resp.last_sequence, resp.first_t, resp.last_t = last_sequence, resp_first_t, resp_last_t
        item.first_t, item.last_t = item_first_t, item_last_t
        item.events.pop()
        item.text_parts.pop()

    def _apply(
        self, event: Event, resp: ResponseState | None
    ) -> tuple[ResponseState, ItemState | None]:
        raw = event.raw
        t = event.t

        if event.is_note and is_wire_note(raw):
            owner = self._wire_owner(raw.get("session"), resp, t)
            self._push(owner.wire, event.index)
            return owner, None
        if event.is_note:
            snapshot = raw.get("response")
            if isinstance(snapshot, dict):  # a poll or lookup: the response as the API has it
                resp = (
                    self._response_with_id(snapshot.get("id"))
                    or self._unnamed_on_stream(event, resp)
                    or self._new_response()
                )
                self._update_response(
                    resp,
                    snapshot,
                    TERMINAL_TYPE_BY_STATUS.get(str(snapshot.get("status"))),
                    polled=True,
                )
            elif resp is None:
                resp = self._new_response()
            self._answer_approvals(raw.get("request"))
            self._push(resp.events, event.index)
            if raw.get("level") == ERROR_NOTE_LEVEL:
                self._push(resp.error_events, event.index)
            self._touch_response(resp, t)
            return resp, None

        kind = event.canonical_type
        seq = raw.get("sequence_number")
        if (
            resp is None
            or (
                kind == "response.created" and (resp.created_seen or resp.last_sequence is not None)
            )
            or (seq == 0 and resp.last_sequence is not None)
        ):
            resp = self._new_response()
        if type(seq) is int:
            self._set(resp, "last_sequence", seq)
        self._touch_response(resp, t)

        item_obj = raw.get("item")
        item_id = raw.get("item_id")
        output_index = raw.get("output_index")
        if item_id is None and isinstance(item_obj, dict):
            item_id = item_obj.get("id")
        # Malformed ids (arrays, objects) must not break the fold: treat them as absent.
        if type(item_id) is not str:
            item_id = None
        if type(output_index) is not int:
            output_index = None
        if item_id is None and output_index is None:
            self._apply_response_event(resp, event, kind)
            return resp, None

        item = self._item_for(resp, item_id, output_index, kind)
        self._record_on_item(item, event)

        if kind in TEXT_DELTA_TYPES:
            self._push_text(item.text_parts, raw.get("delta"))
        elif kind in ARGUMENT_DELTA_TYPES:
            self._push_text(item.argument_parts, raw.get("delta"))
        elif kind in REASONING_DELTA_TYPES:
            self._push_text(item.reasoning_parts, raw.get("delta"))
        elif kind == "response.output_item.added":
            if isinstance(item_obj, dict):
                self._set(item, "added", item_obj)
                self._update_item(item, item_obj)
        elif kind == "response.output_item.done":
            if isinstance(item_obj, dict):
                self._set(item, "final", item_obj)
                self._update_item(item, item_obj)
                if item_obj.get("status") is None:
                    self._set(item, "status", "failed" if item.failed else "completed")
            elif item.status not in TERMINAL_STATUSES:
                self._set(item, "status", "completed")
        elif kind in TEXT_DONE_TYPES:
            text = raw.get("text", raw.get("refusal"))
            if isinstance(text, str):
                self._set(item, "text_done", text)
        elif kind in ARGUMENT_DONE_TYPES:
            arguments = raw.get("arguments", raw.get("input"))
            if isinstance(arguments, str):
                self._set(item, "arguments_done", arguments)
        else:
            suffix = kind.rsplit(".", 1)[-1]
            status = ITEM_STATUS_SUFFIXES.get(suffix)
            if (
                status is not None
                and status != item.status
                and item.status not in TERMINAL_STATUSES
            ):
                self._set(item, "status", status)
            if raw.get("error") is not None:
                self._set(item, "error", raw["error"])
        return resp, item

    @staticmethod
    def _unnamed_on_stream(event: Event, resp: ResponseState | None) -> ResponseState | None:
        """The response a tagged stream opened with a `request` note and no id yet: the
        snapshot that answers the request is that response, not another one."""
        if event.stream is None or resp is None or resp.id is not None:
            return None
        return resp

    def _wire_owner(
        self, session: Any, resp: ResponseState | None, t: float | None
    ) -> ResponseState:
        """The response an MCP message a tap saw belongs to: its session's; else the open
        one; else the next (OpenAI lists a server's tools before the stream starts, so what
        comes after a finished response opens the one to come, which its events then join).

        A message seen before the last response ended stays with it, though written after
        its end: the tap's thread and the run's stream write one recording, so a server's 401
        to the listing can land a line after the API's 424 it caused (1 `run --tap` in 24
        under load); its time says where it belongs."""
        owner = self._sessions.get(session) if type(session) is str else None
        if owner is not None:
            return owner
        finished = resp is None or resp.status in TERMINAL_STATUSES or resp.request_failed
        if finished and not (resp is not None and seen_before_end(t, resp)):
            resp = self._new_response()
        assert resp is not None
        if type(session) is str:
            self._put(self._sessions, session, resp)
        return resp

    def _answer_approvals(self, request: Any) -> None:
        """A follow-up request answers earlier approval requests: mark them approved/denied."""
        for request_id, approved in approval_answers(request):
            for resp in reversed(self.state.responses):
                item = resp.by_item_id.get(request_id)
                if item is not None:
                    self._set(item, "answer", approved)
                    break

    def _record_on_item(self, item: ItemState, event: Event) -> None:
        """The item owns the event: it joins its list and stretches its timing."""
        self._push(item.events, event.index)
        t = event.t
        if t is not None:
            if item.first_t is None:
                self._set(item, "first_t", t)
            self._set(item, "last_t", t)

    def _push_text(self, parts: list[str], delta: Any) -> None:
        if isinstance(delta, str):
            parts.append(delta)
            self._journal.append(parts)

    def _touch_response(self, resp: ResponseState, t: float | None) -> None:
        if t is None:
            return
        if resp.first_t is None:
            self._set(resp, "first_t", t)
        self._set(resp, "last_t", t)

    def _response_with_id(self, response_id: Any) -> ResponseState | None:
        for resp in reversed(self.state.responses):
            if response_id is not None and resp.id == response_id:
                return resp
        return None

    def _new_response(self) -> ResponseState:
        resp = ResponseState(key=len(self.state.responses))
        self._push(self.state.responses, resp)
        return resp

    def _apply_response_event(self, resp: ResponseState, event: Event, kind: str) -> None:
        raw = event.raw
        self._push(resp.events, event.index)
        if kind == "response.created":
            self._set(resp, "created_seen", True)
        snapshot = raw.get("response")
        status = RESPONSE_STATUS_BY_TYPE.get(kind)
        if status is not None and (not isinstance(snapshot, dict) or not snapshot.get("status")):
            self._set(resp, "status", status)  # first: reconciling the output reads it
        if isinstance(snapshot, dict):
            self._update_response(resp, snapshot, kind)
        if kind == "error":
            self._push(resp.error_events, event.index)

    def _update_response(
        self,
        resp: ResponseState,
        snapshot: dict[str, Any],
        kind: str | None,
        *,
        polled: bool = False,
    ) -> None:
        for attr in ("id", "status", "model", "background", "previous_response_id"):
            value = snapshot.get(attr)
            # Malformed values (a dict for a status, a number for an id) are ignored: the raw
            # event still shows them, and everything downstream can rely on the types.
            if type(value) is not RESPONSE_ATTR_TYPES[attr]:
                continue
            if value != getattr(resp, attr):
                self._set(resp, attr, value)
        usage = snapshot.get("usage")
        if isinstance(usage, dict):
            self._set(resp, "usage", usage)
        error = snapshot.get("error")
        if error:
            self._set(resp, "error", error)
        metadata = snapshot.get("metadata")
        if isinstance(metadata, dict) and resp.tool_timeout is None:
            limit = metadata.get(TOOL_TIMEOUT_METADATA)
            try:
                seconds = float(limit) if isinstance(limit, str | int | float) else None
            except ValueError:
                seconds = None
            if seconds is not None and 0 < seconds < 1e6:
                self._set(resp, "tool_timeout", seconds)
        details = snapshot.get("incomplete_details")
        if isinstance(details, dict) and isinstance(details.get("reason"), str):
            self._set(resp, "incomplete_reason", details["reason"])
        tools = snapshot.get("tools")
        if isinstance(tools, list) and tools and not resp.tools:
            self._set(resp, "tools", redact(tools))
        if kind in (
            "response.completed",
            "response.failed",
            "response.incomplete",
            "response.cancelled",
        ):
            self._reconcile_output(resp, snapshot.get("output"), from_snapshot=polled)

    def _reconcile_output(self, resp: ResponseState, output: Any, *, from_snapshot: bool) -> None:
        """Take items the stream never announced (or never finished) from the final output.

        An item keeps the status the API gave it (`in_progress` in a cancelled response stays
        so: the view calls it interrupted); one the output lists without a status is complete
        only if the response completed."""
        if not isinstance(output, list):
            return
        for index, obj in enumerate(output):
            if not isinstance(obj, dict):
                continue
            obj_id = obj.get("id") if isinstance(obj.get("id"), str) else None
            item = resp.by_item_id.get(obj_id) if obj_id else None
            if item is None:
                item = resp.by_output_index.get(index)
            if item is None:
                item = self._item_for(resp, obj_id, index, "response.output_item.done")
                self._set(item, "from_snapshot", from_snapshot)
            if item.final is None:
                self._set(item, "final", obj)
                self._update_item(item, obj)
                if item.failed and item.status != "failed":
                    self._set(item, "status", "failed")
                elif not isinstance(obj.get("status"), str) and resp.status == "completed":
                    self._set(item, "status", "completed")

    def _item_for(
        self, resp: ResponseState, item_id: Any, output_index: Any, kind: str
    ) -> ItemState:
        item = resp.by_item_id.get(item_id) if item_id is not None else None
        if item is None and output_index is not None:
            candidate = resp.by_output_index.get(output_index)
            if candidate is not None and (
                item_id is None or candidate.item_id is None or candidate.item_id == item_id
            ):
                item = candidate
        if item is None:
            item = ItemState(
                key=len(resp.items),
                response_key=resp.key,
                output_index=output_index if type(output_index) is int else None,
                item_id=item_id if isinstance(item_id, str) else None,
                type=item_type_for_event(kind) if kind.startswith("response.") else kind,
            )
            self._push(resp.items, item)
            if item.output_index is not None and item.output_index not in resp.by_output_index:
                self._put(resp.by_output_index, item.output_index, item)
            if item.item_id is not None:
                self._put(resp.by_item_id, item.item_id, item)
            return item
        if item.item_id is None and isinstance(item_id, str):
            self._set(item, "item_id", item_id)
            self._put(resp.by_item_id, item_id, item)
        if item.output_index is None and type(output_index) is int:
            self._set(item, "output_index", output_index)
            if output_index not in resp.by_output_index:
                self._put(resp.by_output_index, output_index, item)
        return item

    def _update_item(self, item: ItemState, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if isinstance(kind, str) and kind != item.type:
            self._set(item, "type", kind)
        for attr in ("name", "server_label", "status"):
            value = obj.get(attr)
            if isinstance(value, str) and value != getattr(item, attr):
                self._set(item, attr, value)
        error = obj.get("error")
        if error is not None and error != "":
            self._set(item, "error", error)
            if item.status != "failed":
                self._set(item, "status", "failed")


def seen_before_end(t: float | None, resp: ResponseState) -> bool:
    """Whether a note stamped `t` was seen before `resp`'s last event (both timed)."""
    return t is not None and resp.last_t is not None and t <= resp.last_t
