"""The waterfall chart as text: rows, bar positions, durations, and stream text kept inert."""

from __future__ import annotations

import io
from pathlib import Path

from mcptui.io.formats import load_path
from mcptui.model.timeline import Timeline
from mcptui.model.timing import ItemTiming, TimingReport, timing_report
from mcptui.ui.widgets.waterfall import CALL_CELL, ITEM_CELL, NO_TIMESTAMPS, WaterfallChart
from rich.console import Console

REPO = Path(__file__).resolve().parents[2]
BAR_CELLS = ITEM_CELL + CALL_CELL


def timing(
    item_key: int,
    kind: str,
    start: float | None,
    end: float | None,
    *,
    name: str | None = None,
    status: str = "completed",
    response_key: int = 0,
    tool: tuple[float, float] | None = None,
) -> ItemTiming:
    return ItemTiming(
        response_key=response_key,
        item_key=item_key,
        output_index=item_key,
        type=kind,
        name=name,
        status=status,
        failed=status == "failed",
        start=start,
        end=end,
        tool_seconds=tool[1] if tool else None,
        tool_start=tool[0] if tool else None,
    )


def report(*items: ItemTiming, has_timing: bool = True) -> TimingReport:
    times = [t for i in items for t in (i.start, i.end) if t is not None]
    return TimingReport(
        list(items), min(times, default=None), max(times, default=None), [], [], has_timing
    )


def render(chart: WaterfallChart, width: int = 100) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(chart)
    return console.export_text().splitlines()


def rows(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("#")]


def bar_start(row: str) -> int:
    return min(row.index(c) for c in BAR_CELLS if c in row)


SAMPLE = report(
    timing(0, "mcp_list_tools", 0.4, 0.9),
    timing(1, "mcp_call", 5.0, 62.4, name="slow_report", status="failed", tool=(8.0, 50.0)),
    timing(2, "message", 62.5, 64.0),
)


def test_one_row_per_item_with_header_and_legend():
    lines = render(WaterfallChart(SAMPLE))

    # The axis counts from the first event (at 0.4 s), as the header's clock does.
    assert lines[0].split() == ["0s", lines[0].split()[1], "63.60s"]
    assert "the tool's own time" in lines[1]  # the legend
    assert [row.split()[:2] for row in rows(lines)] == [
        ["#0", "mcp_list_tools"],
        ["#1", "mcp_call"],
        ["#2", "message"],
    ]
    assert all(len(line) <= 100 for line in lines)


def test_failed_call_row_shows_duration_and_tool_time():
    [call_row] = [row for row in rows(render(WaterfallChart(SAMPLE))) if "slow_report" in row]

    assert call_row.rstrip().endswith("57.40s (50.00s)")
    assert ITEM_CELL in call_row and CALL_CELL in call_row  # tool time inside the call's span


def test_bars_are_placed_on_the_time_axis():
    first, call, last = rows(render(WaterfallChart(SAMPLE)))

    assert bar_start(first) < bar_start(call) < bar_start(last)
    # the message starts at 62.5 of 64 s: near the right end of the bar area
    assert bar_start(last) - bar_start(first) > 50


def test_several_responses_get_a_label_line_each():
    chart = WaterfallChart(
        report(timing(0, "message", 0.1, 1.0), timing(0, "message", 2.0, 3.0, response_key=1))
    )
    lines = render(chart)

    assert [line.strip() for line in lines if line.startswith("response")] == [
        "response 1",
        "response 2",
    ]
    assert len(rows(lines)) == 2


def test_markup_and_escapes_in_a_tool_name_are_shown_literally():
    chart = WaterfallChart(
        report(timing(0, "mcp_call", 0.0, 1.0, name="[bold]x[/]\x1b")), selected=(0, 0)
    )
    [row] = rows(render(chart))

    assert "#0 mcp_call [bold]x[/]\\x1b " in row


def test_long_labels_are_cut_to_the_label_column():
    chart = WaterfallChart(
        report(timing(0, "mcp_call", 0.0, 1.0, name="n" * 80), timing(1, "message", 0.0, 1.0))
    )
    long_row, short_row = rows(render(chart))

    assert "…" in long_row
    assert bar_start(long_row) == bar_start(short_row) == 29  # label column, then a space


def test_items_without_times_get_an_empty_row():
    chart = WaterfallChart(report(timing(0, "message", 0.0, 1.0), timing(1, "message", None, None)))
    _, untimed = rows(render(chart))

    assert not any(c in untimed for c in BAR_CELLS)
    assert untimed.rstrip().endswith("–")


def test_no_timestamps_shows_one_dim_line():
    lines = render(WaterfallChart(report(timing(0, "message", None, None), has_timing=False)))

    assert [line for line in lines if line.strip()] == [NO_TIMESTAMPS]


def test_timeout_recording_renders_its_failed_call():
    loaded = load_path(str(REPO / "recordings" / "mcp-timeout-424.jsonl"))
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    lines = render(WaterfallChart(timing_report(timeline.state, timeline.events)))

    [call_row] = [row for row in rows(lines) if "mcp_call" in row]
    assert "slow_report" in call_row
    assert call_row.rstrip().endswith("60.31s (60.24s)")


def test_a_running_call_grows_to_the_clocks_now():
    """A live run waiting on a slow tool: the call is still in progress at its last event
    (8.0 s), the clock says 30 s. Its bar, its duration and the tool's time reach 30 s."""
    waiting = report(
        timing(0, "mcp_list_tools", 0.0, 0.5),
        timing(1, "mcp_call", 1.0, 8.0, name="slow_search", status="in_progress", tool=(2.0, 6.0)),
    )
    still = rows(render(WaterfallChart(waiting)))[1]
    assert still.rstrip().endswith("7.00s (6.00s)")
    assert render(WaterfallChart(waiting))[0].split()[-1] == "8.00s"

    lines = render(WaterfallChart(waiting, now=30.0))
    assert lines[0].split()[-1] == "30.00s"
    call = rows(lines)[1]
    assert call.rstrip().endswith("29.00s (28.00s)")
    axis_end = len(lines[0].rstrip()) - 1  # the last column of the axis's "30.00s"
    assert bar_end(call) == axis_end  # the bar reaches now


def bar_end(row: str) -> int:
    return max(i for i, c in enumerate(row) if c in BAR_CELLS)


def test_finished_and_failed_items_do_not_grow():
    done = report(
        timing(0, "mcp_call", 0.0, 4.0, name="a", status="failed"), timing(1, "message", 4.0, 5.0)
    )
    assert [row.split()[-1] for row in rows(render(WaterfallChart(done, now=60.0)))] == [
        "4.00s",
        "1.00s",
    ]
