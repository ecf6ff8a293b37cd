"""Reading an event fast: its type and the few fields the fold needs, without building a dict.

Most of any stream is `response.output_text.delta` events, and all the reducer needs of one is
its item id, delta and sequence number. msgspec decodes exactly those into a small struct and
skips the rest of the JSON without allocating it (measured on bench/ingest.py's stream: 0.36 µs
an event, against 0.74 µs for orjson building the whole dict and 2.5 µs for `json.loads`); the
event's JSON text is kept where it is and decoded whole only when something asks for `raw`.

Anything unusual (not valid JSON for msgspec, a field of an unexpected type, nesting deeper than
`MAX_DEPTH`, a delta that may hold a credential) is not read here: the caller falls back to the
tolerant path (tui/model/jsonsafe.py), so what is accepted, refused and redacted stays the same.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from tui.model.events import Event
from tui.model.jsonsafe import MAX_DEPTH

TEXT_DELTA = "response.output_text.delta"


class Lite(msgspec.Struct, gc=False):
    """The fields of an event the reducer's fast path folds."""

    type: str
    sequence_number: int | None = None
    item_id: str | None = None
    delta: str | None = None


class Record(msgspec.Struct, gc=False):
    """One line of an mcptui recording, `{"t": seconds, "event": {...}}`, read fast."""

    t: float | msgspec.UnsetType | None = msgspec.UNSET
    event: Lite | None = None
    note: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    mcptui: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    """Set on a header (or a line that is both): the tolerant reader decides."""


decode_lite = msgspec.json.Decoder(Lite).decode
_decode_record = msgspec.json.Decoder(Record).decode
LITE_FAILURES = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError,
                 RecursionError)
"""What msgspec raises on input the tolerant path must read instead."""
KINDS: dict[str, str] = {TEXT_DELTA: TEXT_DELTA}
"""Each event type's string, once (a million deltas share one `type` string)."""

REDACTION_MARKERS = ("sk-", "://", "earer", "Basic")
"""What makes a delta's text worth a look by tui/io/redact.py (its `redact_event` test)."""


def plain_delta(delta: str) -> bool:
    """A delta no redaction could change: it may go into the fold as it is."""
    return not ("sk-" in delta or "://" in delta or "earer" in delta or "Basic" in delta)


def too_nested(text: bytes) -> bool:
    """Could `text` nest deeper than the tolerant parser accepts? (Then it takes that path.)"""
    return text.count(b"{") + text.count(b"[") > MAX_DEPTH


def fast_event(lite: Lite, t: float | None, line: int | None, data: Any) -> Event:
    """An event read fast: lazy `raw` (from `data`), `lite` kept for a plain text delta."""
    kind = lite.type
    kind = KINDS.get(kind) or KINDS.setdefault(kind, kind)
    keep = None
    if (kind is TEXT_DELTA and type(lite.item_id) is str and type(lite.delta) is str
            and type(lite.sequence_number) is int and plain_delta(lite.delta)):
        keep = lite
    return Event(None, t=t, line=line, data=data, kind=kind, lite=keep)


def payload_event(payload: bytes, t: float | None, line: int) -> Event | None:
    """An SSE `data:` payload as a fast event, or None: the tolerant path must read it."""
    if too_nested(payload):
        return None
    try:
        lite = decode_lite(payload)
    except LITE_FAILURES:
        return None
    return fast_event(lite, t, line, payload)


def record_event(text: bytes, line: int, source: Any) -> Event | None:
    """A recording line as a fast event whose `raw` is read back from `source`, or None (a
    header, a note, anything unusual: the tolerant reader takes it)."""
    if too_nested(text):
        return None
    try:
        record = _decode_record(text)
    except LITE_FAILURES:
        return None
    lite = record.event
    t = record.t
    if (lite is None or t is msgspec.UNSET or record.note is not msgspec.UNSET
            or record.mcptui is not msgspec.UNSET or (t is not None and not math.isfinite(t))):
        return None
    return fast_event(lite, t, line, source)
