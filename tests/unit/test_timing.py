"""Timing: item spans, the MCP tool's own time, silences, likely timeouts, and bar geometry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _support import HTTP_ERROR_424, message_stream
from mcptui.io.formats import load_path
from mcptui.model import timing
from mcptui.model.events import Event, note
from mcptui.model.timeline import Timeline
from mcptui.model.timing import (
    GAP_THRESHOLD,
    LIKELY_TIMEOUT,
    Gap,
    TimingReport,
    bar_span,
    item_timing,
    timing_report,
)

REPO = Path(__file__).resolve().parents[2]

# message_stream: 0 created, 1 in_progress, 2 call added, 3 args delta, 4 args done,
# 5 mcp_call.completed, 6 call done, 7 message added, 8-9 text deltas, 10 text done,
# 11 message done, 12 response.completed.
ARGS_DONE, CALL_END = 4, 5
BASE_TIMES = [0.40, 0.41, 1.00, 1.10, 1.20, 2.20, 2.25, 2.30, 2.50, 2.70, 2.80, 2.85, 3.00]


def timed(raws: list[dict[str, Any]], times: list[float | None]) -> list[Event]:
    return [Event(raw, t=t) for raw, t in zip(raws, times, strict=True)]


def report_of(events: list[Event], **kwargs: Any) -> tuple[Timeline, TimingReport]:
    timeline = Timeline(events)
    timeline.seek_end()
    return timeline, timing_report(timeline.state, timeline.events, **kwargs)


def failing(raws: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """message_stream with its mcp_call failing with the 424 TaskGroup error."""
    for raw in raws:
        if raw["type"] == "response.mcp_call.completed":
            raw["type"] = "response.mcp_call.failed"
        item = raw.get("item")
        if raw["type"] == "response.output_item.done" and item["type"] == "mcp_call":
            item.update(status="failed", output=None, error=HTTP_ERROR_424)
    return raws


def with_tool_time(seconds: float) -> list[float]:
    """BASE_TIMES with the tool (args done → call end) taking `seconds`; later events shift."""
    shift = seconds - (BASE_TIMES[CALL_END] - BASE_TIMES[ARGS_DONE])
    return [t if i <= ARGS_DONE else t + shift for i, t in enumerate(BASE_TIMES)]


# -- items ------------------------------------------------------------------------------------


def test_item_spans_and_tool_seconds():
    timeline, report = report_of(timed(message_stream("hello"), BASE_TIMES))
    call, message = report.items

    assert (call.type, call.name, call.status, call.failed) == (
        "mcp_call",
        "lookup",
        "completed",
        False,
    )
    assert (call.start, call.end) == (1.00, 2.25)
    assert call.duration == pytest.approx(1.25)
    assert call.tool_seconds == pytest.approx(1.0)  # args done 1.20 → completed 2.20
    assert call.tool_start == 1.20
    assert message.type == "message"
    assert message.duration == pytest.approx(0.55)
    assert message.tool_seconds is None
    assert (report.start, report.end, report.has_timing) == (0.40, 3.00, True)
    assert report.gaps == [] and report.findings == []
    # item_timing alone agrees with the report
    item = timeline.state.responses[0].items[0]
    assert item_timing(item, timeline.events) == call


def test_tool_seconds_with_the_docs_spelling_of_arguments_done():
    raws = message_stream("hi")
    raws[ARGS_DONE]["type"] = "response.mcp_call.arguments.done"
    _, report = report_of(timed(failing(raws), with_tool_time(3.0)))

    call = report.items[0]
    assert call.failed
    assert call.tool_seconds == pytest.approx(3.0)


def test_tool_seconds_from_in_progress_without_arguments_done():
    raws = message_stream("hi")
    raws[ARGS_DONE] = {
        "type": "response.mcp_call.in_progress",
        "output_index": 0,
        "item_id": "mcp_1",
        "sequence_number": ARGS_DONE,
    }
    _, report = report_of(timed(raws, with_tool_time(2.0)))

    assert report.items[0].tool_seconds == pytest.approx(2.0)


def test_tool_seconds_unknown_without_a_call_end():
    raws = [raw for raw in message_stream("hi") if raw["type"] != "response.mcp_call.completed"]
    times = [t for i, t in enumerate(BASE_TIMES) if i != CALL_END]
    _, report = report_of(timed(raws, times))

    call = report.items[0]
    assert call.tool_seconds is None  # unknown: no end
    assert call.tool_start == BASE_TIMES[ARGS_DONE]  # when it began is known: a running tool
    assert call.until(9.0).tool_seconds is None  # completed items do not run on
    assert call.duration is not None


# -- gaps -------------------------------------------------------------------------------------


def test_gap_flagged_with_what_was_waiting():
    _, report = report_of(timed(message_stream("hi"), with_tool_time(12.3)))

    assert report.gaps == [Gap(ARGS_DONE, CALL_END, pytest.approx(12.3))]
    [finding] = report.findings  # 12.3 s is a slow gap, and below the slow-tool mark
    assert (finding.severity, finding.code) == ("warning", "slow_gap")
    assert finding.message == (
        "12.3 s without events after response.mcp_call_arguments.done "
        "(seq 4): waiting for the MCP tool lookup"
    )
    assert finding.event_index == CALL_END
    assert (finding.response_key, finding.item_key) == (0, 0)


def test_gap_between_items_names_the_event_and_points_at_the_one_after():
    times = [t if i < 7 else t + 7.95 for i, t in enumerate(BASE_TIMES)]  # before message added
    _, report = report_of(timed(message_stream("hi"), times))

    [finding] = report.findings
    assert finding.message == "8.0 s without events after response.output_item.done (seq 6)"
    assert finding.event_index == 7
    assert (finding.response_key, finding.item_key) == (0, 1)  # the message, added after it


def test_no_gap_below_the_threshold():
    times = [t if i < 7 else t + GAP_THRESHOLD - 0.2 for i, t in enumerate(BASE_TIMES)]
    _, report = report_of(timed(message_stream("hi"), times))

    assert report.gaps == [] and report.findings == []
    _, lower = report_of(timed(message_stream("hi"), times), gap_threshold=2.0)
    assert [g.before_index for g in lower.gaps] == [7]


def test_gaps_count_notes_and_skip_events_without_time():
    events = [
        *timed(message_stream("hi"), BASE_TIMES),
        note("disconnect", "stream dropped", t=20.0),
        note("resume", "resumed", t=None),
    ]
    _, report = report_of(events)

    assert [(g.after_index, g.before_index) for g in report.gaps] == [(12, 13)]
    assert report.end == 20.0
    assert report.findings[0].message.startswith(
        "17.0 s without events after response.completed (seq 12)"
    )


def test_the_pause_before_a_new_request_is_not_a_slow_gap():
    """A re-run or an approval's follow-up comes when the user asks: that wait is no stall."""
    first = timed(message_stream("hi"), BASE_TIMES)
    rerun = [
        note("request", "POST /responses: HTTP 200", t=40.0),
        *timed(message_stream("again"), [t + 40.1 for t in BASE_TIMES]),
    ]
    _, report = report_of([*first, *rerun])

    assert [(g.after_index, g.before_index) for g in report.gaps] == [(12, 13)]
    assert report.findings == []


def test_a_silence_between_two_responses_is_not_a_slow_gap():
    """Gaps are measured inside one response's stream: the time between two responses (a
    recording of two runs, a wait before approving) is a person's."""
    first = timed(message_stream("hi", response_id="resp_a"), BASE_TIMES)
    second = timed(message_stream("again", response_id="resp_b"), [t + 30.0 for t in BASE_TIMES])
    _, report = report_of([*first, *second])

    assert [(g.after_index, g.before_index) for g in report.gaps] == [(12, 13)]
    assert report.findings == []


# -- likely timeouts --------------------------------------------------------------------------


def test_likely_timeout_on_a_61_second_failure():
    _, report = report_of(timed(failing(message_stream("hi")), with_tool_time(61.2)))

    codes = [f.code for f in report.findings]
    assert codes == ["likely_timeout"]  # its silence is not told twice as a slow_gap
    assert [g.seconds for g in report.gaps] == [pytest.approx(61.2)]
    timeout = report.findings[0]
    assert timeout.severity == "warning"
    assert timeout.message == (
        "lookup failed after 61.2 s: likely OpenAI's tool-call timeout (about 60 s)"
    )
    assert timeout.event_index == CALL_END  # the mcp_call.failed event
    assert (timeout.response_key, timeout.item_key) == (0, 0)


def at_tool_seconds(seconds: float) -> list[float]:
    """Times (exact in binary) with the tool taking `seconds`: arguments done at 1 s."""
    return [0.0, 0.0, 0.5, 0.75, 1.0, 1.0 + seconds, *(2.0 + seconds + n for n in range(7))]


def test_a_failure_after_exactly_50_seconds_is_a_likely_timeout_and_just_under_is_not():
    # The boundary as a literal, not LIKELY_TIMEOUT: a changed constant must fail here too.
    _, at_limit = report_of(timed(failing(message_stream("hi")), at_tool_seconds(50.0)))
    _, under = report_of(timed(failing(message_stream("hi")), at_tool_seconds(49.75)))

    assert at_limit.items[0].tool_seconds == 50.0
    assert [f.code for f in at_limit.findings] == ["likely_timeout"]
    assert at_limit.findings[0].message == (
        "lookup failed after 50.0 s: likely OpenAI's tool-call timeout (about 60 s)"
    )
    assert under.items[0].tool_seconds == 49.75
    assert "likely_timeout" not in [f.code for f in under.findings]


def test_no_likely_timeout_on_a_2_second_failure():
    _, report = report_of(timed(failing(message_stream("hi")), with_tool_time(2.0)))

    assert report.items[0].failed
    assert report.findings == []


def test_slow_successful_tool_is_info():
    _, report = report_of(timed(message_stream("hi"), with_tool_time(0.6 * LIKELY_TIMEOUT)))

    slow = [f for f in report.findings if f.code == "slow_tool"]
    assert [(f.severity, f.item_key) for f in slow] == [("info", 0)]
    assert "close to the 60 s limit" in slow[0].message


def test_no_timestamps_means_no_timing_and_no_findings():
    _, report = report_of(timed(failing(message_stream("hi")), [None] * 13))

    assert report.has_timing is False
    assert (report.start, report.end, report.gaps, report.findings) == (None, None, [], [])
    assert [i.type for i in report.items] == ["mcp_call", "message"]
    assert all(
        i.start is None and i.duration is None and i.tool_seconds is None for i in report.items
    )


# -- sample recordings ------------------------------------------------------------------------


def report_of_recording(name: str) -> TimingReport:
    loaded = load_path(str(REPO / "recordings" / name))
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    return timing_report(timeline.state, timeline.events)


def test_timeout_recording_yields_likely_timeout():
    report = report_of_recording("mcp-timeout-424.jsonl")

    [timeout] = [f for f in report.findings if f.code == "likely_timeout"]
    call = next(i for i in report.items if i.item_key == timeout.item_key)
    assert call.type == "mcp_call" and call.failed
    assert call.tool_seconds is not None and call.tool_seconds >= LIKELY_TIMEOUT


def test_broken_schema_recording_has_no_likely_timeout():
    report = report_of_recording("mcp-424-broken-schema.jsonl")

    assert any(i.failed for i in report.items)
    assert not [f for f in report.findings if f.code == "likely_timeout"]


# -- bar geometry -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0.0, 10.0, 0.0, 10.0, 10), (0, 10)),  # the whole axis
        ((5.0, 5.0, 0.0, 10.0, 10), (5, 1)),  # zero length still shows one cell
        ((10.0, 10.0, 0.0, 10.0, 10), (9, 1)),  # at the very end: stays on the axis
        ((2.5, 5.0, 0.0, 10.0, 20), (5, 5)),  # proportional
        ((2.4, 2.6, 0.0, 10.0, 10), (2, 1)),  # within one cell
        ((-5.0, 20.0, 0.0, 10.0, 10), (0, 10)),  # clamped both sides
        ((12.0, 15.0, 0.0, 10.0, 10), (9, 1)),  # beyond the end
        ((3.0, 1.0, 0.0, 10.0, 10), (3, 1)),  # end before start
        ((1.0, 2.0, 4.0, 4.0, 10), (0, 1)),  # zero-length axis
        ((1.0, 2.0, 0.0, 10.0, 0), (0, 1)),  # no width
    ],
)
def test_bar_span(args: tuple[float, float, float, float, int], expected: tuple[int, int]):
    assert bar_span(*args) == expected


@pytest.mark.parametrize("few", [0, 64])
def test_gap_owners_agree_whichever_lookup_is_used(monkeypatch: pytest.MonkeyPatch, few: int):
    monkeypatch.setattr(timing, "FEW_LOOKUPS", few)
    times = [i * 6.0 for i in range(13)]  # every event after a silence
    _, report = report_of(timed(message_stream("hi"), times))

    assert len(report.gaps) == 12
    keys = [(f.event_index, f.response_key, f.item_key) for f in report.findings]
    assert keys == [
        (1, 0, None),
        (2, 0, 0),
        (3, 0, 0),
        (4, 0, 0),
        (5, 0, 0),
        (6, 0, 0),
        (7, 0, 1),
        (8, 0, 1),
        (9, 0, 1),
        (10, 0, 1),
        (11, 0, 1),
        (12, 0, None),
    ]
    assert report.findings[4].message.endswith(": waiting for the MCP tool lookup")
    assert report.findings[2].message.endswith(": during the MCP call lookup")
