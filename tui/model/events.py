"""One entry of a stream's timeline: an event exactly as received, or a transport note.

Events keep the raw JSON object untouched, so that what the user sees, copies and saves is
what the server sent; everything derived (names, statuses, texts) lives in the reducer's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


@dataclass(slots=True, eq=False)
class Event:
    """A timeline entry.

    `raw` is the JSON object as received (for a note: the note object). `t` is the arrival time
    in seconds from the start of the stream, None when the source carries no timing. `line` is
    the line of the source file it came from, for messages about it.
    """

    raw: dict[str, Any]
    index: int = 0
    """Position in the session's timeline, from 0."""
    t: float | None = None
    line: int | None = None
    is_note: bool = False
    stream: int | None = None
    """Which of several concurrent streams it came on (the proxy's captures interleave in
    one timeline); None: the timeline is one stream after another."""

    @property
    def type(self) -> str:
        """The event's `type`, or a placeholder when it has none."""
        if self.is_note:
            return NOTE_TYPE
        value = self.raw.get("type")
        return value if isinstance(value, str) else "<no type>"

    @property
    def canonical_type(self) -> str:
        """The type with drifted spellings mapped to the wire spelling."""
        kind = self.type
        return TYPE_ALIASES.get(kind, kind)

    @property
    def sequence_number(self) -> int | None:
        value = self.raw.get("sequence_number")
        return value if type(value) is int else None

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
    """A note of what a tap saw on an MCP server's wire (tui/capture/tap.py): a message or
    an HTTP failure, sent to the server or received from it."""
    return raw.get("direction") in WIRE_DIRECTIONS and raw.get("kind") in WIRE_KINDS


def note(kind: str, message: str, t: float | None = None, **details: Any) -> Event:
    """Build a transport note for the timeline."""
    return Event({"kind": kind, "message": message, **details}, t=t, is_note=True)
