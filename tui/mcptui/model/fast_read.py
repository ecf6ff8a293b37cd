"""Reading an event fast: its type and the few fields the fold needs, without building a dict.

Most of any stream is `response.output_text.delta` events, and all the reducer needs of one is
its item id, delta and sequence number. msgspec decodes exactly those into a small struct
(`Delta`, its type and field types checked in C; any other event is read as a `Lite`) and
skips the rest of the JSON without allocating it (measured on bench/ingest.py's stream: 0.36 µs
an event, against 0.74 µs for orjson building the whole dict and 2.5 µs for `json.loads`); the
event's JSON text is kept where it is and decoded whole only when something asks for `raw`.

The two readers (mcptui/model/ingest.py for streams, mcptui/io/indexed.py for recordings) share the
rules here: a text that may nest deeper than `MAX_DEPTH`, or that msgspec refuses (invalid
JSON, a field of an unexpected type), goes the tolerant way (mcptui/model/jsonsafe.py), so what is
accepted and refused stays the same (`decoded`, `classified`); and `lite` is kept only for a
text delta whose text holds nothing redaction looks at (`classified`), so what the fold keeps
is what a redacted event says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from mcptui.model.jsonsafe import MAX_DEPTH
from mcptui.model.redaction import text_needs_redaction

T = TypeVar("T")

TEXT_DELTA = "response.output_text.delta"


class Lite(msgspec.Struct, gc=False):
    """The fields of an event the reducer's fast path folds."""

    type: str
    sequence_number: int | None = None
    item_id: str | None = None
    delta: str | None = None


class Record(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """One event line of an mcptui recording, `{"t": seconds, "event": {...}}`, read fast.

    Both fields are required and no other is allowed: the header, a note, an event without
    a time or with a time that is not a number is refused here (msgspec also refuses a
    number out of a float's range, such as `1e999`), and the tolerant reader decides:
    checked in C, not in the reading loop."""

    t: float | None
    event: Lite


class Delta(msgspec.Struct, tag_field="type", tag=TEXT_DELTA, gc=False):
    """A text delta, read as the fold keeps it: msgspec takes the line only if its `type` (every
    `type` key of it) is `TEXT_DELTA` and the three fields are there with these types, so the
    reading loop only asks `plain_delta` the rest. Anything else is read as a `Lite`."""

    sequence_number: int
    item_id: str
    delta: str


class DeltaRecord(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A `Record` whose event is a `Delta`: most of a recording's lines."""

    t: float | None
    event: Delta


decode_lite = msgspec.json.Decoder(Lite).decode
decode_record = msgspec.json.Decoder(Record).decode
decode_delta = msgspec.json.Decoder(Delta).decode
decode_delta_record = msgspec.json.Decoder(DeltaRecord).decode
UNSET = msgspec.UNSET
LITE_FAILURES = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError)
"""What msgspec raises on input the tolerant path must read instead."""
KINDS: dict[str, str] = {TEXT_DELTA: TEXT_DELTA}
"""Each event type's string, once (a million deltas share one `type` string)."""
SHALLOW = 2 * MAX_DEPTH + 1
"""Bytes outside a text's string values that cannot hold nesting deeper than `MAX_DEPTH`."""
SHALLOW_DELTA = SHALLOW + len(TEXT_DELTA)
"""The same for a text delta, whose type is one of its string values."""


def decoded(decode: Callable[[bytes], T], text: bytes) -> T | None:
    """`decode(text)`, or None when msgspec refuses it (the tolerant path must read it)."""
    try:
        return decode(text)
    except LITE_FAILURES:
        return None


def plain_delta(read: Delta, text: bytes, known: Sequence[str] = ()) -> bool:
    """Whether a text delta read as `Delta` from `text` is kept so: what `classified` asks of a
    `Lite` with the same fields (its text holds nothing redaction looks at, and `text` has no
    room for nesting deeper than `MAX_DEPTH`). When not, the line is read as a `Lite`.
    tui/mcptui/model/ingest.py inlines it for a stream (no secrets known there): the call was 4% of
    bench/ingest.py's time; tui/mcptui/io/indexed.py's reading loop too (6% of `inspect --json`
    on a 200k-event dump)."""
    delta = read.delta  # `plain_text`, inlined: this runs for most events of every stream
    return (
        not ("sk-" in delta or "://" in delta or "earer" in delta or "Basic" in delta)
        and not (known and any(secret in delta for secret in known))
        and len(text) - len(delta) - len(read.item_id) <= SHALLOW_DELTA
    )


def plain_text(delta: str, known: Sequence[str] = ()) -> bool:
    """Whether a delta's text holds nothing redaction looks at: no credential-like text
    (`text_needs_redaction`) and none of the `known` secrets."""
    return not text_needs_redaction(delta) and not (
        known and any(secret in delta for secret in known)
    )


def classified(
    lite: Lite, text: bytes, known: Sequence[str] = ()
) -> tuple[str, Lite | None] | None:
    """The event's type (one string per type) and what the fold may read of it: `lite` for a
    plain text delta, None for anything else (the fold reads `raw`). None instead when the
    tolerant path must read `text`: it may nest deeper than `MAX_DEPTH`.

    Nesting d deep takes 2d brackets outside the string values. For a text delta that bound
    is checked by arithmetic (the bytes left beside its type, item id and delta), so only
    other events pay for counting brackets. `known` secrets in a delta make it go the way
    of a dict, which redaction sees. Most text deltas never come here: `plain_delta` keeps
    them first.
    """
    delta, item_id = lite.delta, lite.item_id  # msgspec checked their types
    if (
        delta is not None
        and item_id is not None
        and lite.type == TEXT_DELTA
        and lite.sequence_number is not None
        and plain_text(delta, known)
    ):
        if len(text) - len(delta) - len(item_id) <= SHALLOW_DELTA:
            return TEXT_DELTA, lite
        kind, kept = TEXT_DELTA, lite
    else:
        kind, kept = KINDS.setdefault(lite.type, lite.type), None
    if text.count(b"{") + text.count(b"[") > MAX_DEPTH:
        return None
    return kind, kept
