"""A stream recording and a tap recording made apart, merged into one timeline.

`mcptui run --tap` records both sides on one clock. A tap run beside someone else's app
(`mcptui tap`, with the stream from `mcptui proxy`, a paste or an archive) has a clock of its
own, so the two are aligned before they are interleaved: on the first `tools/call` whose tool
name and arguments match an `mcp_call` of the stream (OpenAI sends the call once the arguments
are done, so that is where it goes); else the listing just before the stream's first event
(OpenAI lists tools before it starts a stream); a stream with no times gets the tap's messages
first, in their order. Which alignment was used is said, never guessed silently.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tui.io.recording import Loaded, Problem
from tui.model.events import ARGUMENT_DONE, Event, is_wire_note
from tui.model.state import parse_json_text

AFTER = 1e-6
BEFORE = 0.001
"""How far before the stream's first event a listing is placed when nothing better aligns."""


def merge_tap(stream: Loaded, tap: Loaded) -> Loaded:
    """`stream` with the MCP messages of `tap` interleaved on its clock."""
    wire = [event for event in tap.events if event.is_note and is_wire_note(event.raw)]
    problems = type(stream.problems)(stream.problems)
    if not wire:
        problems.append(Problem(None, f"{tap.source}: no MCP messages a tap recorded: "
                                "nothing merged"))
        return replace(stream, problems=problems)
    offset, how = alignment(stream.events, wire)
    moved = [event.copy(t=None if offset is None or event.t is None else event.t + offset,
                        line=None, is_note=True, stream=None) for event in wire]
    if offset is None:
        events = moved + [_copy(event) for event in stream.events]
    else:
        keyed = [(event.t, 0, n, event) for n, event in enumerate(stream.events)] + \
            [(event.t, 1, n, event) for n, event in enumerate(moved)]
        last = float("-inf")
        ordered = []
        for t, side, n, event in keyed:  # an entry without a time keeps its neighbour's
            last = t if t is not None else last
            ordered.append((last, side, n, event))
        ordered.sort(key=lambda entry: entry[:3])
        events = [_copy(event) for *_, event in ordered]
    header = dict(stream.header or {})
    header["tap"] = {"source": tap.source, "messages": len(wire), "aligned": how}
    return replace(stream, events=events, header=header, problems=problems,
                   format=f"{stream.format} + tap")


def _copy(event: Event) -> Event:
    """A fresh entry (the merged timeline numbers its entries anew)."""
    return event.copy(stream=None)


def alignment(stream: list[Event], wire: list[Event]) -> tuple[float | None, str]:
    """Seconds to add to the tap's times, and how they were found; None: the stream has no
    times."""
    times = [event.t for event in stream if event.t is not None]
    if not times:
        return None, "the stream has no times: the tap's messages come first"
    calls = _call_times(stream)
    for event in wire:
        message = event.raw.get("jsonrpc")
        if event.t is None or not isinstance(message, dict) or \
                message.get("method") != "tools/call":
            continue
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        key = (params.get("name"), _canonical(params.get("arguments") or {}))
        if key in calls:
            # Just after the arguments: adding floats must not put the call before them.
            return calls[key] - event.t + AFTER, f"on tools/call {params.get('name')}"
    listed = [event.t for event in wire if event.t is not None
              and str(event.raw.get("message", "")).startswith("← result tools/list")]
    anchor = listed[0] if listed else next((e.t for e in wire if e.t is not None), None)
    if anchor is None:
        return None, "the tap's messages have no times: they come first"
    return times[0] - BEFORE - anchor, ("on the tools/list, just before the stream"
                                        if listed else "the tap's first message at the "
                                        "stream's start")


def _call_times(stream: list[Event]) -> dict[tuple[Any, str], float]:
    """(tool name, arguments) of each mcp_call → when its arguments were done: one pass over
    the events (the session folds the stream itself; this needs only these two facts)."""
    names: dict[Any, Any] = {}
    first: dict[Any, float | None] = {}
    found: dict[tuple[Any, str], float] = {}

    def seen(name: Any, arguments: Any, t: float | None) -> None:
        if t is not None and isinstance(arguments, str) and arguments:
            found.setdefault((name, _canonical(parse_json_text(arguments))), t)

    for event in stream:
        raw = event.raw
        item = raw.get("item")
        if isinstance(item, dict) and item.get("type") == "mcp_call":
            names[item.get("id")] = item.get("name")
            first.setdefault(item.get("id"), event.t)
            # Arguments only in the finished item (no arguments.done): its first event.
            seen(item.get("name"), item.get("arguments"), first[item.get("id")])
        elif event.canonical_type == ARGUMENT_DONE:
            seen(names.get(raw.get("item_id")), raw.get("arguments"), event.t)
    return found


def _canonical(value: Any) -> str:
    """Arguments compared as values, not as text (key order and spacing differ)."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)
