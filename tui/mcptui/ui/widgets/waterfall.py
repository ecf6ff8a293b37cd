"""A waterfall of a stream: one bar per output item on the stream's clock.

It answers "where did the time go?" at a glance: which item was slow, and for an `mcp_call` how
much of it the MCP tool itself took (arguments done → result), which is what OpenAI's ~60 s
tool timeout measures. The drawing is a Rich renderable that sizes itself to the width it is
given, so it works in the app, in tests and in plain console output alike; the widget only
scrolls it. Names come from the stream: they pass through `visible()` into `Text`, never markup.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from mcptui.model.textsafe import visible
from mcptui.model.timing import ItemTiming, TimingReport, bar_span
from mcptui.share.status_marks import seconds

LABEL_WIDTH = 28
"""Cells for `#index type name`; longer labels end in an ellipsis. In a narrow pane (an
80-column terminal) labels shrink (to 12 cells) before the bars drop under 20."""
MIN_BAR_WIDTH = 10
ITEM_CELL = "█"
"""An item's span."""
CALL_CELL = "▓"
"""An mcp_call's span outside the tool's own time (the model writing arguments, the result
coming back): drawn lighter so the tool's time (█) stands out inside it."""
WIRE_CELL = "━"
"""A tools/call on the MCP server's wire, as a tap saw it."""
NO_ANSWER_CELL = "┄"
"""A tools/call the MCP server never answered (before the call ended)."""
NO_TIMESTAMPS = "This source has no timestamps: no waterfall."


def bar_style(timing: ItemTiming) -> str:
    """Red failed, green completed, cyan still running, yellow anything else."""
    if timing.failed:
        return "red"
    return {"completed": "green", "in_progress": "cyan"}.get(timing.status, "yellow")


def duration_text(timing: ItemTiming) -> str:
    """`1.23s`, and for an mcp_call the tool's own time in parentheses: `61.20s (60.24s)`."""
    if timing.duration is None:
        return "–"
    text = seconds(timing.duration)
    if timing.type == "mcp_call" and timing.tool_seconds is not None:
        text += f" ({seconds(timing.tool_seconds)})"
    return text


def row_label(timing: ItemTiming) -> str:
    index = "?" if timing.output_index is None else str(timing.output_index)
    parts = [f"#{index}", timing.type]
    if timing.name:
        parts.append(timing.name)
    return visible(" ".join(parts).replace("\n", " "))


class WaterfallChart:
    """The waterfall as a Rich renderable: a header with the axis and a legend, then a row per
    item (label, bar, duration), with a label line per response when there are several."""

    def __init__(
        self,
        report: TimingReport,
        *,
        selected: tuple[int, int] | None = None,
        now: float | None = None,
    ) -> None:
        self.report = report
        self.selected = selected
        """(response_key, item_key) of the row to highlight."""
        self.now = now
        """The recorded clock now, when it runs on past the last event (running items grow
        to it); the axis starts at the first event, as every clock shown does."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        report = self.report
        if not report.has_timing:
            yield Text(NO_TIMESTAMPS, style="dim")
            return
        timings = [timing.until(self.now) for timing in report.items]
        axis_start = report.start or 0.0  # the session's first event: the header's zero
        axis_end = max(report.end or 0.0, self.now or 0.0, axis_start)
        durations = [duration_text(timing) for timing in timings]
        duration_width = max([6, *map(len, durations)])
        label_width = max(12, min(LABEL_WIDTH, options.max_width - duration_width - 23))
        bar_width = max(MIN_BAR_WIDTH, options.max_width - label_width - duration_width - 3)

        yield _line(Text(" " * (label_width + 1)), _axis(axis_start, axis_end, bar_width))
        yield _legend()
        if not timings:
            yield Text("No output items.", style="dim")
            return
        several = len({timing.response_key for timing in report.items}) > 1
        response_key = None
        for timing, duration in zip(timings, durations, strict=True):
            if several and timing.response_key != response_key:
                response_key = timing.response_key
                yield Text(f"response {response_key + 1}", style="bold")
            yield self._row(
                timing, duration, axis_start, axis_end, bar_width, duration_width, label_width
            )
            if timing.mcp_sent is not None:
                yield _wire_row(
                    timing, axis_start, axis_end, bar_width, duration_width, label_width
                )

    def _row(
        self,
        timing: ItemTiming,
        duration: str,
        axis_start: float,
        axis_end: float,
        bar_width: int,
        duration_width: int,
        label_width: int,
    ) -> Text:
        chosen = self.selected == (timing.response_key, timing.item_key)
        style = bar_style(timing)
        label = Text(row_label(timing), style="reverse" if chosen else "")
        label.truncate(label_width, overflow="ellipsis", pad=True)
        bar = Text(" ")
        if timing.start is not None and timing.end is not None:
            bar.append_text(_bar(timing, style, axis_start, axis_end, bar_width))
        bar.pad_right(bar_width + 2 - bar.cell_len)  # a space before the bar and after it
        return _line(
            label,
            bar,
            Text(duration.rjust(duration_width), style="bold red" if timing.failed else "dim"),
        )


def _wire_row(
    timing: ItemTiming,
    axis_start: float,
    axis_end: float,
    bar_width: int,
    duration_width: int,
    label_width: int,
) -> Text:
    """Under an mcp_call a tap saw: the tools/call on the MCP server's wire, from the request
    reaching the server to its answer; with no answer, dotted up to where the call ended."""
    assert timing.mcp_sent is not None
    answered = timing.mcp_answered
    end = answered if answered is not None else max(timing.end or timing.mcp_sent, timing.mcp_sent)
    first, count = bar_span(timing.mcp_sent, end, axis_start, axis_end, bar_width)
    label = Text("  ↳ tools/call (wire)", "dim")
    label.truncate(label_width, overflow="ellipsis", pad=True)
    bar = Text(
        " " + " " * first + (WIRE_CELL if answered is not None else NO_ANSWER_CELL) * count,
        "magenta" if answered is not None else "yellow",
    )
    bar.pad_right(bar_width + 2 - bar.cell_len)
    duration = seconds(answered - timing.mcp_sent) if answered is not None else "no answer"
    return _line(label, bar, Text(duration.rjust(duration_width), "dim"))


def _bar(timing: ItemTiming, style: str, axis_start: float, axis_end: float, width: int) -> Text:
    assert timing.start is not None and timing.end is not None
    first, count = bar_span(timing.start, timing.end, axis_start, axis_end, width)
    cells = [ITEM_CELL] * count
    if (
        timing.type == "mcp_call"
        and timing.tool_start is not None
        and timing.tool_seconds is not None
    ):
        cells = [CALL_CELL] * count
        tool_first, tool_count = bar_span(
            timing.tool_start, timing.tool_start + timing.tool_seconds, axis_start, axis_end, width
        )
        # The tool's cells, kept inside the item's own bar and at least one wide.
        lo = min(max(tool_first - first, 0), count - 1)
        hi = min(max(tool_first + tool_count - first, lo + 1), count)
        cells[lo:hi] = [ITEM_CELL] * (hi - lo)
    return Text(" " * first + "".join(cells), style=style)


def _axis(axis_start: float, axis_end: float, width: int) -> Text:
    left = "0s"
    right = seconds(axis_end - axis_start)
    rule = max(1, width - len(left) - len(right) - 2)
    return Text(f"{left} {'┈' * rule} {right}", style="dim")


def _legend() -> Text:
    legend = Text("", style="dim")
    legend.append(f"{CALL_CELL}{ITEM_CELL} mcp_call: {ITEM_CELL} the tool's own time · ")
    for name, style in (
        ("completed", "green"),
        ("failed", "red"),
        ("running", "cyan"),
        ("other", "yellow"),
    ):
        legend.append(f"{ITEM_CELL} ", style)
        legend.append(f"{name} ")
    legend.append("· duration (tool)")
    return legend


def _line(*parts: Text) -> Text:
    line = Text(no_wrap=True, overflow="crop")
    for part in parts:
        line.append_text(part)
    return line


class Waterfall(VerticalScroll):
    """The waterfall in a scrolling pane; `show` redraws it."""

    DEFAULT_CSS = """
    Waterfall { padding: 0 1; }
    Waterfall > Static { width: 1fr; height: auto; }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        # Made here, not in compose, so `show` works before the pane is mounted.
        self._chart = Static(Text("Nothing to show yet.", style="dim"))

    def compose(self) -> ComposeResult:
        yield self._chart

    def show(
        self,
        report: TimingReport,
        *,
        selected: tuple[int, int] | None = None,
        now: float | None = None,
    ) -> None:
        self._chart.update(WaterfallChart(report, selected=selected, now=now))
