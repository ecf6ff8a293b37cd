"""Where a stream's time went: per-item spans, silences between events, and slow MCP calls.

The question people bring to a failed MCP call is often "was it slow?": OpenAI gives up on a
tool after about 60 s (undocumented, protocol.md §2) and reports the same opaque 424 as for a
broken server. This module turns arrival times (`Event.t`) into spans per output item, the MCP
tool's own time (arguments done → result), long silences, and findings that say which of them
matter. Pure and O(n): the waterfall widget and `inspect` both draw from one `TimingReport`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import compress, islice
from operator import sub
from typing import cast

from mcptui.model.events import ARGUMENT_DONE, Event
from mcptui.model.findings import Finding, ordered
from mcptui.model.state import OPENAI_TOOL_TIMEOUT, ItemState, SessionState
from mcptui.model.status import item_status
from mcptui.model.textsafe import one_line
from mcptui.model.wire import WireLinks, link

GAP_THRESHOLD = 5.0
"""Seconds of silence between consecutive events worth flagging."""
TOOL_TIMEOUT_METADATA = "mcptui_tool_timeout_s"
"""Response metadata key where the emulator writes the limit it applied (`--tool-timeout`)."""
LIKELY_TIMEOUT = 50.0
"""An mcp_call failing after about a minute is likely OpenAI's tool timeout (~60 s,
undocumented); 50 s leaves room for the time the request took to reach the server."""


def likely_timeout_after(limit: float) -> float:
    """Seconds after which a failure is likely the limit (50 of 60 s, scaled); a success
    half as slow is worth a note (a slower day would time it out)."""
    return limit * LIKELY_TIMEOUT / OPENAI_TOOL_TIMEOUT


CALL_IN_PROGRESS = "response.mcp_call.in_progress"
CALL_ENDS = frozenset({"response.mcp_call.completed", "response.mcp_call.failed"})
_CALL_FINISHED = CALL_ENDS | {"response.output_item.done"}
FEW_LOOKUPS = 64
"""Up to this many gap ends, owners are found by bisection instead of a full index map."""


@dataclass(frozen=True, slots=True)
class ItemTiming:
    """One output item's span on the stream's clock (seconds from stream start)."""

    response_key: int
    item_key: int
    output_index: int | None
    type: str
    name: str | None
    status: str
    failed: bool
    start: float | None
    """The first event's arrival time; None without timestamps (or for snapshot items)."""
    end: float | None
    """The last event's arrival time."""
    tool_seconds: float | None
    """mcp_call only: arguments done (else `mcp_call.in_progress`) → `mcp_call.completed` or
    `.failed`: the time the MCP server (and OpenAI's client of it) took. None when unknown."""
    tool_start: float | None = None
    """When that tool time began, so a chart can place it inside the item's span."""
    mcp_sent: float | None = None
    """mcp_call with a tap: when the tools/call reached the MCP server."""
    mcp_answered: float | None = None
    """…and when its answer (or an HTTP failure) came back; None: no answer (yet)."""

    @property
    def duration(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return self.end - self.start

    def until(self, now: float | None) -> ItemTiming:
        """A running item's span (and a called tool's own time) stretched to the clock's
        `now`: a bar that grows while a live run waits, or a replay plays through a silence."""
        if (
            now is None
            or self.failed
            or self.status != "in_progress"
            or self.start is None
            or self.end is None
            or now <= self.end
        ):
            return self
        tool_seconds = self.tool_seconds
        if self.type == "mcp_call" and self.tool_start is not None:
            tool_seconds = now - self.tool_start
        return replace(self, end=now, tool_seconds=tool_seconds)


@dataclass(frozen=True, slots=True)
class Gap:
    """A silence between two consecutive timeline events."""

    after_index: int
    """Timeline index of the event before the silence."""
    before_index: int
    """Timeline index of the event after it."""
    seconds: float


@dataclass(frozen=True)
class TimingReport:
    """Everything timing-related about a session, for the waterfall and `inspect`."""

    items: list[ItemTiming]
    """Every output item of every response, in order."""
    start: float | None
    """The first event's arrival time (notes included): the zero of every clock shown."""
    end: float | None
    """Latest arrival time over all events."""
    gaps: list[Gap]
    findings: list[Finding]
    has_timing: bool
    """False when the source carried no timestamps (raw dumps): then item times are None and
    there are no findings."""


@dataclass(slots=True)
class _CallScan:
    tool_start: float | None = None
    tool_end: float | None = None
    end_index: int | None = None
    """The event that ended the call (`mcp_call.failed`/`.completed`), if there was one."""


def _scan_call(item: ItemState, events: Sequence[Event]) -> _CallScan:
    """One pass over an mcp_call's own events: when the tool started and answered."""
    args_done: float | None = None
    in_progress: float | None = None
    scan = _CallScan()
    for index in item.events:
        event = events[index]
        kind = event.canonical_type
        if kind == ARGUMENT_DONE:
            if args_done is None:
                args_done = event.t
        elif kind == CALL_IN_PROGRESS:
            if in_progress is None:
                in_progress = event.t
        elif kind in CALL_ENDS and scan.end_index is None:
            scan.end_index = index
            scan.tool_end = event.t
    scan.tool_start = args_done if args_done is not None else in_progress
    return scan


def _timing(item: ItemState, scan: _CallScan | None, status: str | None = None) -> ItemTiming:
    tool_seconds = None
    tool_start = scan.tool_start if scan is not None else None  # the tool may still be running
    if scan is not None and scan.tool_start is not None and scan.tool_end is not None:
        tool_seconds = max(0.0, scan.tool_end - scan.tool_start)
    return ItemTiming(
        response_key=item.response_key,
        item_key=item.key,
        output_index=item.output_index,
        type=item.type,
        name=item.name,
        status=status or item.status,
        failed=item.failed,
        start=item.first_t,
        end=item.last_t,
        tool_seconds=tool_seconds,
        tool_start=tool_start,
    )


def item_timing(item: ItemState, events: Sequence[Event], status: str | None = None) -> ItemTiming:
    """The span of one item; `events` is the timeline its `events` indexes point into."""
    return _timing(item, _scan_call(item, events) if item.type == "mcp_call" else None, status)


def spans_at_step(
    state: SessionState, events: Sequence[Event], start: float | None, end: float | None
) -> TimingReport:
    """The items' spans as of a step, for the waterfall: `state` folded to that step, the
    clock's zero `start` and the step's time `end`. No gaps or findings (the checks of the
    whole stream give those), so it costs only the items' own events, whatever the step."""
    items = []
    for resp in state.responses:
        links = link(resp, events)
        items += [
            _wired(item_timing(item, events, item_status(resp, item).word), links)
            for item in resp.items
        ]
    return TimingReport(items, start, end, [], [], start is not None)


def _wired(timing: ItemTiming, links: WireLinks) -> ItemTiming:
    """An mcp_call's timing with its tools/call on the MCP wire, when a tap saw it."""
    call = links.call_of(timing.item_key)
    if call is None:
        return timing
    return replace(timing, mcp_sent=call.sent_t, mcp_answered=call.answered_t)


def timing_report(
    state: SessionState,
    events: Sequence[Event],
    *,
    gap_threshold: float = GAP_THRESHOLD,
    links: Mapping[int, WireLinks] | None = None,
) -> TimingReport:
    """Spans, silences and timing findings for a folded session.

    `events` should be what `state` was folded from: for the state as of a step, pass
    `timeline.events[:timeline.position]`, or gaps after the cursor will be reported too.

    One pass over the arrival times (list comprehensions, no per-event method calls), one pass
    over each mcp_call's own events; the owner map for naming gaps is only built when there are
    gaps, from the reducer's per-item event lists. `links`: each response's tap messages tied
    to its items (tui/mcptui/model/wire.py), when the caller has them already.
    """
    times: list[float | None] = [event.t for event in events]
    # No None in `times`: the same list, not a copy (`_gaps` is told by identity).
    known = [t for t in times if t is not None] if None in times else cast("list[float]", times)
    has_timing = bool(known)
    items: list[ItemTiming] = []
    findings: list[Finding] = []
    for resp in state.responses:
        tied = links[resp.key] if links is not None else link(resp, events)
        for item in resp.items:
            status = item_status(resp, item).word
            if item.type != "mcp_call":
                items.append(_timing(item, None, status))
                continue
            scan = _scan_call(item, events)
            timing = _wired(_timing(item, scan, status), tied)
            items.append(timing)
            if has_timing:
                finding = _call_finding(item, timing, scan, resp.tool_limit)
                if finding is not None:
                    findings.append(finding)
    if not has_timing:
        return TimingReport(items, None, None, [], [], False)

    gaps = _gaps(times, known is times, gap_threshold)
    # A timeout's silence is already told by its likely_timeout finding on the same event; the
    # silence before a new request (a re-run, an approval's follow-up) is the user's time.
    explained = {f.event_index for f in findings if f.code == "likely_timeout"}
    flagged = [
        gap
        for gap in gaps
        if gap.before_index not in explained and events[gap.before_index].note_kind != "request"
    ]
    if flagged:
        findings.extend(_gap_findings(state, events, flagged))
    # One zero for every clock shown: the first timed event (as the player counts).
    return TimingReport(items, known[0], max(known), gaps, ordered(findings), True)


def _gaps(times: list[float | None], all_known: bool, threshold: float) -> list[Gap]:
    """Silences of at least `threshold` between consecutive events that both have a time.

    Positions are timeline indexes: the reducer's per-item event lists use the same numbers.
    """
    if all_known:  # the usual case: no Python-level work per event, only per gap
        diffs: list[float] = list(map(sub, islice(times, 1, None), times))
        if not diffs or max(diffs) < threshold:
            return []
        at = compress(range(len(diffs)), map(threshold.__le__, diffs))
        return [Gap(i, i + 1, diffs[i]) for i in at]
    pairs = zip(times, islice(times, 1, None), strict=False)
    return [
        Gap(i, i + 1, b - a)
        for i, (a, b) in enumerate(pairs)
        if a is not None and b is not None and b - a >= threshold
    ]


def _call_finding(
    item: ItemState, timing: ItemTiming, scan: _CallScan, limit: float = OPENAI_TOOL_TIMEOUT
) -> Finding | None:
    seconds = timing.tool_seconds if timing.tool_seconds is not None else timing.duration
    if seconds is None:
        return None
    name = _tool_name(item)
    likely = likely_timeout_after(limit)
    if timing.failed and seconds >= likely:
        which = (
            "OpenAI's tool-call timeout (about 60 s)"
            if limit == OPENAI_TOOL_TIMEOUT
            else f"the {limit:g} s tool time limit this response names"
        )
        return Finding(
            "warning",
            "likely_timeout",
            f"{name} failed after {seconds:.1f} s: likely {which}",
            event_index=scan.end_index if scan.end_index is not None else _last_event(item),
            response_key=item.response_key,
            item_key=item.key,
            suggestion=f"make the tool answer well within {limit:g} s (return partial results, or "
            "start the work and let another tool fetch the result)",
        )
    if not timing.failed and seconds >= likely / 2:
        return Finding(
            "info",
            "slow_tool",
            f"{name} took {seconds:.1f} s: close to the {limit:g} s limit",
            event_index=scan.end_index if scan.end_index is not None else _last_event(item),
            response_key=item.response_key,
            item_key=item.key,
        )
    return None


def _tool_name(item: ItemState) -> str:
    return one_line(item.name, 80) if item.name else "the MCP call"


def _last_event(item: ItemState) -> int | None:
    return item.events[-1] if item.events else None


def _gap_findings(state: SessionState, events: Sequence[Event], gaps: list[Gap]) -> list[Finding]:
    owner = _owners(state, {i for gap in gaps for i in (gap.after_index, gap.before_index)})
    out = []
    for gap in gaps:
        after_owner, before_owner = owner.get(gap.after_index), owner.get(gap.before_index)
        if after_owner and before_owner and after_owner[0] != before_owner[0]:
            continue  # between two responses: a person's time, not a stream's silence
        before = events[gap.after_index]
        seq = before.sequence_number
        where = f"{before.type} (seq {seq})" if seq is not None else before.type
        message = f"{gap.seconds:.1f} s without events after {where}"
        # The keys point at what was waiting when we can name it, else at the event after.
        response_key, item = owner.get(gap.after_index, (None, None))
        waiting = _waiting_for(item, before) if item is not None else ""
        if waiting:
            message += waiting
        else:
            response_key, item = owner.get(gap.before_index, (response_key, None))
        out.append(
            Finding(
                "warning",
                "slow_gap",
                message,
                event_index=gap.before_index,
                response_key=response_key,
                item_key=item.key if item is not None else None,
            )
        )
    return out


def _owners(state: SessionState, wanted: set[int]) -> dict[int, tuple[int, ItemState | None]]:
    """Timeline index → (response key, item or None) for the `wanted` indexes.

    A few indexes are looked up by bisecting each item's (ordered) event list; many at once
    get a full map, built with dict.fromkeys at C speed. Either way O(n) at worst.
    """
    owner: dict[int, tuple[int, ItemState | None]] = {}
    for resp in state.responses:
        lists = [(resp.events, None), *((item.events, item) for item in resp.items)]
        for indexes, item in lists:
            if not indexes:
                continue
            if len(wanted) > FEW_LOOKUPS:
                owner.update(dict.fromkeys(indexes, (resp.key, item)))
                continue
            for index in wanted:
                if indexes[0] <= index <= indexes[-1]:
                    at = bisect_left(indexes, index)
                    if at < len(indexes) and indexes[at] == index:
                        owner[index] = (resp.key, item)
    return owner


def _waiting_for(item: ItemState, before: Event) -> str:
    """What the silence was spent on, when the event before it says so."""
    if item.type != "mcp_call":
        return ""
    kind = before.canonical_type
    if kind == ARGUMENT_DONE:
        return f": waiting for the MCP tool {_tool_name(item)}"
    if kind not in _CALL_FINISHED:
        return f": during the MCP call {_tool_name(item)}"
    return ""


def bar_span(
    start: float, end: float, axis_start: float, axis_end: float, width: int
) -> tuple[int, int]:
    """(first cell, cell count ≥ 1) of a bar for [start, end] on an axis `width` cells wide.

    Cells touched at all are drawn (floor of the start, ceiling of the end), so short spans stay
    visible; everything is clamped to the axis. A zero-length axis or width gives (0, 1).
    """
    span = axis_end - axis_start
    if span <= 0 or width <= 1 or not all(map(math.isfinite, (span, start, end, axis_start))):
        return 0, 1
    scale = width / span
    end = max(end, start)
    first = math.floor((start - axis_start) * scale)
    last = math.ceil((end - axis_start) * scale)
    first = min(max(first, 0), width - 1)
    last = min(max(last, first + 1), width)
    return first, last - first
