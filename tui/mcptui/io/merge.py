"""A stream recording and a tap recording made apart, merged into one timeline.

`mcptui run --tap` records both sides on one clock. A tap run beside someone else's app
(`mcptui tap`, with the stream from `mcptui proxy`, a paste or an archive) has a clock of its
own, so the two are aligned before they are interleaved: on a `tools/call` whose tool name and
arguments match an `mcp_call` of the stream (OpenAI sends the call once the arguments are done,
so that is where it goes); else on a listing just before the stream's first event (OpenAI lists
tools before it starts a stream); else (no listing answered: a server down, a refused listing)
with the tap's last attempt just before the stream's first event, which is then its failure; a
stream with no times gets the tap's messages first, in their order. Which alignment was used is
said, never guessed silently.

A tap file often holds more than this stream's traffic (`mcptui probe --tool X` through the
same tap before the run): of the calls that could anchor the alignment, the one that lines up
the most of the stream's calls wins; then the one nearest to where the two recordings' start
times (`created`) put it; then one with a listing just before the stream; then the latest.
Once aligned, a session (or, without one, an HTTP exchange) with no message in a response's
time span is left out (said in the header): none of it is that response's. A response's span
begins at the listing just before it.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import replace
from datetime import datetime
from typing import Any

from mcptui.io.recording import Loaded, Problem
from mcptui.model.events import ARGUMENT_DONE, Event, is_wire_note
from mcptui.model.state import parse_json_text

AFTER = 1e-6
BEFORE = 0.001
"""How far before the stream's first event a listing is placed when nothing better aligns."""
SKEW = 1.0
"""Seconds by which two calls aligned on one may still be off (each its own latency)."""
LEAD = 30.0
"""How long before a response's stream OpenAI's listing for it may have been made."""
NEAR = 5.0
"""Seconds within which the recordings' start times (whole seconds, two clocks) agree."""


def merge_tap(stream: Loaded, tap: Loaded) -> Loaded:
    """`stream` with the MCP messages of `tap` interleaved on its clock."""
    wire = [event for event in tap.events if event.is_note and is_wire_note(event.raw)]
    problems = type(stream.problems)(stream.problems)
    if not wire:
        problems.append(
            Problem(None, f"{tap.source}: no MCP messages a tap recorded: nothing merged")
        )
        return replace(stream, problems=problems)
    offset, how = alignment(stream.events, wire, _wall_offset(stream.header, tap.header))
    moved = [
        event.copy(
            t=None if offset is None or event.t is None else event.t + offset,
            line=None,
            is_note=True,
            stream=None,
        )
        for event in wire
    ]
    outside = 0
    if offset is not None and how.startswith("on "):  # aligned on the traffic itself
        kept = of_the_stream(stream.events, moved)
        outside = len(moved) - len(kept)
        moved = kept
    if offset is None:
        events = moved + [_copy(event) for event in stream.events]
    else:
        keyed = [(event.t, 0, n, event) for n, event in enumerate(stream.events)] + [
            (event.t, 1, n, event) for n, event in enumerate(moved)
        ]
        last = float("-inf")
        ordered = []
        for t, side, n, event in keyed:  # an entry without a time keeps its neighbour's
            last = t if t is not None else last
            ordered.append((last, side, n, event))
        ordered.sort(key=lambda entry: entry[:3])
        events = [_copy(event) for *_, event in ordered]
    header = dict(stream.header or {})
    header["tap"] = {"source": tap.source, "messages": len(wire) - outside, "aligned": how}
    if outside:
        header["tap"]["outside"] = outside
        header["tap"]["outside_why"] = (
            "sessions with no message in the stream's time span "
            "(earlier or later traffic through the tap)"
        )
    return replace(
        stream, events=events, header=header, problems=problems, format=f"{stream.format} + tap"
    )


def _copy(event: Event) -> Event:
    """A fresh entry (the merged timeline numbers its entries anew)."""
    return event.copy(stream=None)


def alignment(
    stream: list[Event], wire: list[Event], wall: float | None = None
) -> tuple[float | None, str]:
    """Seconds to add to the tap's times, and how they were found; None: the stream has no
    times. `wall`: the offset the recordings' start times suggest (None: unknown)."""
    times = [event.t for event in stream if event.t is not None]
    if not times:
        return None, "the stream has no times: the tap's messages come first"
    calls = _call_times(stream)
    sent = [
        (event.t, key)
        for event in wire
        if event.t is not None and (key := _call_key(event)) is not None
    ]
    listings = [
        event.t
        for event in wire
        if event.t is not None
        and str(event.raw.get("message", "")).startswith("← result tools/list")
    ]
    start = times[0]

    by_key: dict[Any, list[float]] = {}
    for t, key in sorted(sent, key=lambda entry: entry[0]):
        by_key.setdefault(key, []).append(t)

    def score(offset: float, t: float) -> tuple[int, bool, bool, float]:
        near = wall is None or abs(offset - wall) <= NEAR
        listed = any(start - LEAD <= at + offset <= start + SKEW for at in listings)
        return _lined_up(calls, by_key, offset), near, listed, t

    # Each tap call as the counterpart of the first stream call alike: if one is, that is
    # the offset, and the others line up (or not) with the rest.
    candidates = [(calls[key][0] - t + AFTER, t, key) for t, key in sent if key in calls]
    if candidates:
        # Just after the arguments: adding floats must not put the call before them.
        offset, _, key = max(candidates, key=lambda c: score(c[0], c[1]))
        return offset, f"on tools/call {key[0]}"
    if listings:
        anchor = max(
            listings, key=lambda t: (wall is None or abs(start - BEFORE - t - wall) <= NEAR, t)
        )
        return start - BEFORE - anchor, "on the tools/list, just before the stream"
    timed = [event.t for event in wire if event.t is not None]
    if not timed:
        return None, "the tap's messages have no times: they come first"
    # No listing answered (a server that could not be reached, a listing that failed): the
    # stream failed after those attempts, so the last of them goes just before it (of those
    # the start times put before it, when the recordings have them).
    before = [t for t in timed if wall is None or t + wall <= start + NEAR]
    anchor = max(before) if before else min(timed)
    return start - BEFORE - anchor, "the tap's last message just before the stream's start"


def _lined_up(
    calls: dict[tuple[Any, str], list[float]], sent: dict[Any, list[float]], offset: float
) -> int:
    """How many of the stream's calls a tap call alike lines up with (one each, within SKEW)
    at `offset`; `sent`: the tap's call times by (tool, arguments), in order."""
    count = 0
    for key, dones in calls.items():
        times = sent.get(key, [])
        used: set[int] = set()
        for done in dones:
            at = bisect_left(times, done - SKEW - offset)
            while at < len(times) and times[at] + offset <= done + SKEW:
                if at not in used:
                    used.add(at)
                    count += 1
                    break
                at += 1
    return count


def _call_key(event: Event) -> tuple[Any, str] | None:
    """(tool name, arguments) of a tools/call the tap saw sent."""
    message = event.raw.get("jsonrpc")
    if (
        not isinstance(message, dict)
        or message.get("method") != "tools/call"
        or event.raw.get("direction") == "received"
    ):
        return None
    params = params if isinstance(params := message.get("params"), dict) else {}
    return params.get("name"), _canonical(params.get("arguments") or {})


def _wall_offset(stream: dict[str, Any] | None, tap: dict[str, Any] | None) -> float | None:
    """The offset the two recordings' start times (`created`) suggest: each recording's clock
    starts about when it was created."""
    try:
        return (
            datetime.fromisoformat(str((tap or {})["created"]))
            - datetime.fromisoformat(str((stream or {})["created"]))
        ).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def of_the_stream(stream: list[Event], wire: list[Event]) -> list[Event]:
    """The aligned tap messages of sessions (an HTTP exchange, without one) that have a
    message in a response's time span: from the listing just before it (or its first event)
    to its last event."""
    spans = _spans(stream)
    listings = [
        e.t
        for e in wire
        if e.t is not None and str(e.raw.get("message", "")).startswith("→ tools/list")
    ]
    windows = []
    for first, last in spans:
        before = [t for t in listings if first - LEAD <= t <= first + SKEW]
        windows.append((min(before[-1], first) if before else first, last))
    kept_units = {
        _unit(n, event)
        for n, event in enumerate(wire)
        if event.t is None or any(low - SKEW <= event.t <= high + SKEW for low, high in windows)
    }
    return [event for n, event in enumerate(wire) if _unit(n, event) in kept_units]


def _spans(stream: list[Event]) -> list[tuple[float, float]]:
    """Each response's (first, last) time in a stream (a new one at each response.created
    after the first)."""
    spans: list[list[float]] = []
    opened = False
    for event in stream:
        if event.t is None:
            continue
        created = not event.is_note and event.canonical_type == "response.created"
        if not spans or (created and opened):
            spans.append([event.t, event.t])
            opened = False
        opened = opened or created
        spans[-1][1] = max(spans[-1][1], event.t)
    return [(first, last) for first, last in spans]


def _unit(position: int, event: Event) -> Any:
    """What a tap message belongs to: its session; else (the modern era) its HTTP exchange."""
    raw = event.raw
    if isinstance(raw.get("session"), str) and raw["session"]:
        return ("session", raw["session"])
    if type(raw.get("http_exchange")) is int:
        return ("exchange", raw["http_exchange"])
    return ("note", position)


def _call_times(stream: list[Event]) -> dict[tuple[Any, str], list[float]]:
    """(tool name, arguments) of each mcp_call → when the arguments of each such call were
    done: one pass over the events (the session folds the stream itself; this needs only
    these two facts)."""
    names: dict[Any, Any] = {}
    first: dict[Any, float | None] = {}
    timed: dict[Any, tuple[tuple[Any, str], float]] = {}
    """Item id → its key and time (the arguments' done event's over the finished item's)."""

    def seen(item_id: Any, name: Any, arguments: Any, t: float | None, done: bool = False) -> None:
        if (
            t is not None
            and isinstance(arguments, str)
            and arguments
            and (done or item_id not in timed)
        ):
            timed[item_id] = ((name, _canonical(parse_json_text(arguments))), t)

    for event in stream:
        raw = event.raw
        item = raw.get("item")
        if isinstance(item, dict) and item.get("type") == "mcp_call":
            names[item.get("id")] = item.get("name")
            first.setdefault(item.get("id"), event.t)
            # Arguments only in the finished item (no arguments.done): its first event.
            seen(item.get("id"), item.get("name"), item.get("arguments"), first[item.get("id")])
        elif event.canonical_type == ARGUMENT_DONE:
            seen(
                raw.get("item_id"),
                names.get(raw.get("item_id")),
                raw.get("arguments"),
                event.t,
                done=True,
            )
    found: dict[tuple[Any, str], list[float]] = {}
    for key, t in timed.values():
        found.setdefault(key, []).append(t)
    return found


def _canonical(value: Any) -> str:
    """Arguments compared as values, not as text (key order and spacing differ)."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)
