"""One entry of a stream's timeline: an event exactly as received, or a transport note.

Events keep the raw JSON object untouched, so that what the user sees, copies and saves is
what the server sent; everything derived (names, statuses, texts) lives in the reducer's state.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, is_not
from typing import Any, Protocol

import msgspec

from mcptui.model.jsonsafe import loads_shallow

_DATA = attrgetter("_data")
_RAW = attrgetter("_raw")
_LINE = attrgetter("line")
_AT = attrgetter("_at")
NOTE_TYPE = "mcptui.note"
"""Type shown for transport notes (HTTP errors, disconnects, resumes), which are not events."""

# The argument events have been spelled three ways (protocol.md §1); the wire spelling wins.
ARGUMENT_DELTA = "response.mcp_call_arguments.delta"
ARGUMENT_DONE = "response.mcp_call_arguments.done"
TYPE_ALIASES: dict[str, str] = {
    "response.mcp_call.arguments.delta": ARGUMENT_DELTA,
    "response.mcp_call.arguments_delta": ARGUMENT_DELTA,
    "response.mcp_call.arguments.done": ARGUMENT_DONE,
    "response.mcp_call.arguments_done": ARGUMENT_DONE,
}


class EventSource(Protocol):
    """Where a lazily decoded event's JSON lives (a file read by offset, mcptui/io/indexed.py)."""

    bare: bool
    """Each line is the event's JSON itself (a dump), not a recording's `{"t", "event"}`."""

    def event_at(self, line: int) -> dict[str, Any]: ...

    def text_of(self, line: int) -> bytes: ...

    def span_of(self, first: int, last: int) -> bytes | None:
        """Lines `first` to `last` (both included) as written, in one piece (None: they are
        not one piece of the source)."""
        ...


class _Numbered(msgspec.Struct, gc=False):
    sequence_number: int | None = None


class _NumberedRecord(msgspec.Struct, gc=False):
    event: _Numbered


_INT_MIN, _UINT_MAX = -(2**63), 2**64 - 1
_decode_numbered = msgspec.json.Decoder(_Numbered).decode
_decode_numbered_record = msgspec.json.Decoder(_NumberedRecord).decode


class Event(msgspec.Struct, gc=False, eq=False):
    """A timeline entry.

    `raw` is the JSON object as received (for a note: the note object). `t` is the arrival time
    in seconds from the start of the stream, None when the source carries no timing. `line` is
    the line of the source file it came from, for messages about it.

    An event read fast (mcptui/model/fast_read.py) keeps no dict: its JSON stays where it came from
    (a payload's bytes, or a file's line, read back by offset) and `raw` decodes it on each use, so
    a million-event stream holds its type and the few fields the reducer folds (`lite`), not a
    million dicts. Decode-on-use is cheap (about a microsecond) and only the shown event, the
    checks and the rare non-delta event in a fold ask for it.

    A msgspec struct, built in C (a quarter of the time of a class with `__init__`, measured
    on bench/ingest.py) and never tracked by the cyclic collector (`gc=False`): an event refers
    to JSON values, bytes and its source, never back to anything that refers to it. Compared by
    identity (`eq=False`), as a plain object is.
    """

    _raw: dict[str, Any] | None = None
    index: int = 0
    """Position in the session's timeline, from 0."""
    t: float | None = None
    line: int | None = None
    is_note: bool = False
    stream: int | None = None
    """Which of several concurrent streams it came on (the proxy's captures interleave in
    one timeline); None: the timeline is one stream after another."""
    _data: bytes | EventSource | None = None
    _kind: str | None = None
    """The JSON `type`, for an event read fast (else read from `raw`)."""
    lite: Any = None
    """For a text delta read fast: its item id, delta and sequence number (the reducer's
    fast path); None otherwise."""
    _at: int | None = None
    """Where `_data` (a file) holds the event when `line` does not say: the element of a JSON
    array (mcptui/io/indexed.py's `ArrayReader`), whose events have no line of their own, or
    share one (a compact array is one line)."""
    partial: bool = False
    """Not the wire's event in full: values of it were cut out before it reached us (Node's
    `console.log` prints `[Object]` below depth 2), or it was built from an output item a
    paste holds alone: its shape is not judged against the SDK's."""

    @property
    def kind(self) -> str | None:
        """The JSON `type` (None when it has none), known without decoding the event."""
        kind = self._kind
        if kind is None:
            raw = self._raw
            if raw is not None:
                value = raw.get("type")
                return value if type(value) is str else None
        return kind

    @property
    def raw(self) -> dict[str, Any]:
        raw = self._raw
        if raw is not None:
            return raw
        data = self._data
        if type(data) is bytes:
            return loads_shallow(data)  # the fast reader bounded its nesting
        at = self.line if self._at is None else self._at
        assert data is not None and at is not None
        return data.event_at(at)  # type: ignore[union-attr]

    @raw.setter
    def raw(self, value: dict[str, Any]) -> None:
        self._raw = value
        self._data = None
        self._kind = None  # read from the dict now
        self.lite = None  # what the fold reads comes from the dict now

    @property
    def payload(self) -> bytes | None:
        """The JSON text as received, for an event read fast from a stream (else None)."""
        data = self._data
        return data if type(data) is bytes and self._raw is None else None

    @property
    def written(self) -> bytes | None:
        """For an event read fast from a file, the line it was read from as written (a
        recording's `{"t": …, "event": {…}}`); else None. What a check may read a few fields
        of without decoding the event whole (nor searching it for secrets: a text delta is
        read fast only when there is none in it)."""
        data = self._data
        at = self.line if self._at is None else self._at
        if self._raw is not None or data is None or type(data) is bytes or at is None:
            return None
        return data.text_of(at)  # type: ignore[union-attr]

    @property
    def written_bare(self) -> bool:
        """Whether `written` is the event's JSON itself (a dump's line), not a record."""
        return bool(getattr(self._data, "bare", False))

    def copy(self, **changes: Any) -> Event:
        """The same entry with other attributes, numbered anew by a timeline: a fast-read event
        stays so (`Event(event.raw, …)` would decode it and keep the dict)."""
        event = Event(
            self._raw,
            0,
            self.t,
            self.line,
            self.is_note,
            self.stream,
            self._data,
            self._kind,
            self.lite,
            self._at,
        )
        for name, value in changes.items():
            setattr(event, name, value)
        return event

    def __repr__(self) -> str:
        return f"Event(#{self.index} {self.type}, t={self.t}, line={self.line})"

    @property
    def type(self) -> str:
        """The event's `type`, or a placeholder when it has none."""
        if self.is_note:
            return NOTE_TYPE
        kind = self.kind
        return kind if kind is not None else "<no type>"

    @property
    def canonical_type(self) -> str:
        """The type with drifted spellings mapped to the wire spelling."""
        kind = self.type
        return TYPE_ALIASES.get(kind, kind)

    @property
    def sequence_number(self) -> int | None:
        lite = self.lite
        if lite is not None:
            return lite.sequence_number
        data = self._data
        if data is not None and self._raw is None and not self.is_note:
            # Read from the JSON as it came, not decoded whole (and searched for secrets):
            # the sequence check asks it of every event that is not a text delta.
            seq: int | bool | None = False
            try:
                if type(data) is bytes:
                    seq = _decode_numbered(data).sequence_number
                else:
                    line = self.written
                    if line is not None:
                        if data.bare:  # type: ignore[union-attr]
                            seq = _decode_numbered(line).sequence_number
                        else:
                            seq = _decode_numbered_record(line).event.sequence_number
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                pass  # an odd value (a float, a bool): read as the dict has it
            if seq is None or (type(seq) is int and _INT_MIN <= seq <= _UINT_MAX):
                return seq  # (beyond these a JSON reader makes a float of it)
        return sequence_number_in(self.raw)

    @property
    def note_kind(self) -> str | None:
        """For a note, what happened (`http_error`, `disconnect`, `resume`, …)."""
        if not self.is_note:
            return None
        kind = self.raw.get("kind")
        return kind if isinstance(kind, str) else "note"


WIRE_DIRECTIONS = frozenset({"sent", "received"})
WIRE_KINDS = frozenset({"mcp", "http_error", "connection_error", "disconnect"})


def is_wire_note(raw: dict[str, Any]) -> bool:
    """A note of what a tap saw on an MCP server's wire (tui/mcptui/capture/tap.py): a message or
    an HTTP failure, sent to the server or received from it."""
    return raw.get("direction") in WIRE_DIRECTIONS and raw.get("kind") in WIRE_KINDS


def payloads(events: Sequence[Event]) -> list[bytes] | None:
    """`payload` of each of `events` when every one has one (else None), read in C: a check
    reads those of thousands of text deltas in a row."""
    data = list(map(_DATA, events))
    if set(map(type, data)) != {bytes} or any(map(is_not, map(_RAW, events), repeat(None))):
        return None
    return data


def written_run(events: Sequence[Event]) -> tuple[bytes, bool] | None:
    """The lines `written` of `events`, joined, when they are lines in a row of one file,
    each read fast (else None), and whether they are a dump's (`written_bare`): one slice
    of the file for a run of text deltas instead of a read a delta (a check reads 180k
    of them on a 200k-event dump: 0.3 s of `inspect --json`, a tenth of it)."""
    source = events[0]._data if events else None
    start = events[0].line if events else None
    if source is None or isinstance(source, bytes) or start is None:
        return None
    if any(map(is_not, map(_DATA, events), repeat(source))) or any(
        map(is_not, map(_RAW, events), repeat(None))
    ):
        return None
    if any(map(is_not, map(_AT, events), repeat(None))):
        return None  # read back by another key than the line (`written`)
    if list(map(_LINE, events)) != list(range(start, start + len(events))):
        return None
    joined = source.span_of(start, start + len(events) - 1)
    return None if joined is None else (joined, bool(source.bare))


def sequence_number_in(raw: dict[str, Any]) -> int | None:
    """An event's `sequence_number` when it is an integer (what the stream orders by)."""
    value = raw.get("sequence_number")
    return value if type(value) is int else None


def note(kind: str, message: str, t: float | None = None, **details: Any) -> Event:
    """Build a transport note for the timeline."""
    return Event({"kind": kind, "message": message, **details}, t=t, is_note=True)
