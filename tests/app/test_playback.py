"""Playback at the recorded pace, driven by a fake clock passed to the screen (its seam).

The screen's 30 Hz timer really runs; only the clock it reads is fake, so the position the
tests wait for is exactly the one the recorded `t` values and the speed give.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from _app_support import (
    APP_CSS,
    SAMPLE_424,
    SAMPLE_SUCCESS,
    SAMPLE_TIMEOUT,
    SIZE,
    FakeClock,
    detail_text,
    events_until,
    find_node,
    header_text,
    index_of,
    labels,
    recorded_events,
    rendered_lines,
    screen_of,
    select,
    stream_times,
    wait_ticks,
    wait_until,
)
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.safe_app import SafeApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.findings import FindingsList
from textual.pilot import Pilot


class PlaybackApp(SafeApp):
    """The inspector, playing from the start, on a clock the test controls (in a SafeApp, as
    every app that shows it: the screen waits for drawn frames through it)."""

    CSS_PATH = APP_CSS

    def __init__(self, path: Path, clock: FakeClock) -> None:
        super().__init__()
        self.session = open_session(str(path))
        self.clock = clock

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.session, paused=False, clock=self.clock))


async def settle_at(pilot: Pilot[Any], expected: int) -> None:
    """Wait for playback to reach `expected`, then check it stays there (the clock is still)."""
    timeline = screen_of(pilot).session.timeline
    await wait_until(pilot, lambda: timeline.position >= expected)
    await wait_ticks(pilot, screen_of(pilot))  # several more ticks: none moved it
    assert timeline.position == expected


async def test_playback_follows_the_recorded_times():
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_SUCCESS, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 0.0))
        assert "playing 1x" in header_text(screen)

        clock.advance(1.0)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 1.0))
        clock.advance(1.5)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 2.5))
        assert 0 < screen.session.timeline.position < screen.session.timeline.total

        clock.advance(100)
        await settle_at(pilot, screen.session.timeline.total)
        # At the end playback stops by itself, and says so.
        assert await wait_until(pilot, lambda: "done" in header_text(screen))
        assert "playing" not in header_text(screen) and not screen.session.player.playing


async def test_space_pauses_and_resumes_from_where_it_stood():
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_SUCCESS, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        clock.advance(1.0)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 1.0))
        await pilot.press("space")
        assert "paused" in header_text(screen)
        clock.advance(10.0)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 1.0))

        # Resuming continues from the last shown event's time.
        position = screen.session.timeline.position
        resumed_at = screen.session.player.stream_time(position)
        await pilot.press("space")
        assert "playing" in header_text(screen)
        clock.advance(1.0)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, resumed_at + 1.0))


async def test_plus_doubles_the_speed():
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_SUCCESS, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 0.0))
        await pilot.press("+")
        assert "playing 2x" in header_text(screen)
        clock.advance(1.0)
        at_2x = events_until(SAMPLE_SUCCESS, 2.0)
        assert at_2x > events_until(SAMPLE_SUCCESS, 1.0)  # the sample tells the two apart
        await settle_at(pilot, at_2x)

        await pilot.press("minus")
        assert "playing 1x" in header_text(screen)


async def test_i_applies_everything_at_once():
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_SUCCESS, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 0.0))
        await pilot.press("i")
        total = len(recorded_events(SAMPLE_SUCCESS))
        await settle_at(pilot, total)  # without the clock moving at all
        assert screen.session.player.instant
        assert f"step {total} / {total}" in header_text(screen)
        assert "done" in header_text(screen)  # not "playing instant" with nothing left


async def test_speed_change_in_a_long_gap_keeps_the_time_already_waited():
    events = recorded_events(SAMPLE_TIMEOUT)
    failed_at = index_of(events, "response.mcp_call.failed")
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_TIMEOUT, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await settle_at(pilot, events_until(SAMPLE_TIMEOUT, 0.0))
        clock.advance(50.0)  # 50 s into the wait for the slow tool
        await settle_at(pilot, events_until(SAMPLE_TIMEOUT, 50.0))
        assert screen.session.timeline.position == failed_at  # still waiting
        await pilot.press("+")
        clock.advance(6.5)  # 13 s more of stream time at 2x: the failure (at ~62 s) is due
        expected = events_until(SAMPLE_TIMEOUT, 50.0 + 2 * 6.5)
        assert expected > failed_at
        await wait_until(pilot, lambda: screen.session.timeline.position >= expected, timeout=1.0)
        assert screen.session.timeline.position == expected


async def test_space_at_the_end_replays_from_the_start(frozen_clock: FakeClock):
    """McptuiApp's own screen, on the clock every screen gets by default in these tests."""
    app = McptuiApp(open_session(str(SAMPLE_SUCCESS)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        assert screen.session.timeline.at_end
        await pilot.press("space")
        assert "playing 1x" in header_text(screen)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 0.0))
        frozen_clock.advance(2.0)
        await settle_at(pilot, events_until(SAMPLE_SUCCESS, 2.0))


def header_clock(screen: InspectorScreen) -> tuple[float, float]:
    """The header's `t=NOW / TOTAL`, as numbers."""
    found = re.search(r"t=([\d.]+)s / ([\d.]+)s", header_text(screen))
    assert found, header_text(screen)
    return float(found.group(1)), float(found.group(2))


def call_label(screen: InspectorScreen) -> str:
    return next(label for label in labels(screen) if "mcp_call slow_report" in label)


async def test_a_replay_clock_runs_on_through_a_recorded_silence():
    """The timeout sample waits 60 s for slow_report. Played at 1x, 40 s into that silence the
    header's clock, the call's duration and its waterfall bar have moved on with time; paused,
    they stand at the step's own time again."""
    clock = FakeClock()
    app = PlaybackApp(SAMPLE_TIMEOUT, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        before_silence = events_until(SAMPLE_TIMEOUT, 2.0)
        clock.advance(2.0)
        await settle_at(pilot, before_silence)
        reached = screen.session.player.stream_time(before_silence)
        call_started = stream_times(SAMPLE_TIMEOUT)[
            index_of(recorded_events(SAMPLE_TIMEOUT), "response.mcp_call.in_progress")
        ]

        clock.advance(40.0)
        await settle_at(pilot, before_silence)  # no event in the silence
        assert await wait_until(pilot, lambda: header_clock(screen)[0] == 42.0)
        assert "waiting 40 s for slow_report" in header_text(screen)
        assert f"{42.0 - call_started:.2f}s" in call_label(screen)
        await pilot.press("v", "v")  # the waterfall: the call's bar has grown with the clock
        assert await wait_until(
            pilot, lambda: f"{42.0 - call_started:.2f}s" in waterfall_row(screen, "slow_report")
        )

        await pilot.press("v")  # the detail of the call: its duration and tool time run on
        await select(pilot, find_node(screen, lambda t: "mcp_call slow_report" in t, kind="item"))
        clock.advance(1.0)
        assert await wait_until(
            pilot, lambda: f"duration      {43.0 - call_started:.2f}s so far" in detail_text(screen)
        )
        assert "to now (still running)" in detail_text(screen)
        await pilot.press("space")  # paused: the clock stands at the step again
        assert await wait_until(pilot, lambda: header_clock(screen)[0] == round(reached, 2))
        assert "waiting" not in header_text(screen)
        assert f"{42.0 - call_started:.2f}s" not in call_label(screen)


async def test_header_detail_and_waterfall_share_one_zero_and_one_end(frozen_clock: FakeClock):
    """At any step the header's t= and the detail pane's `since start` are the same number,
    and the waterfall's axis ends at the header's total: all count from the first event."""
    app = McptuiApp(open_session(str(SAMPLE_TIMEOUT), instant=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(
            pilot,
            lambda: screen.session.timeline.at_end and screen.diagnosing.diagnosis is not None,
        )
        await pilot.press("home", *["right"] * 14)  # mcp_call.failed, after the silence
        await pilot.pause()
        now, total = header_clock(screen)
        assert now > 60
        since = re.search(r"time\s+([\d.]+)s since start", detail_text(screen))
        assert since, detail_text(screen)
        assert round(float(since.group(1)), 2) == now
        await pilot.press("v", "v")
        await pilot.pause()
        axis = waterfall_axis(screen).split()
        assert axis[0] == "0s" and axis[-1] == f"{total:.2f}s"


def waterfall_row(screen: InspectorScreen, name: str) -> str:
    return next(
        (line for line in rendered_lines(screen.query_one("#waterfall Static")) if name in line), ""
    )


def waterfall_axis(screen: InspectorScreen) -> str:
    """The waterfall's first line as drawn: `0s ┈┈┈ 42.00s`."""
    return rendered_lines(screen.query_one("#waterfall Static"))[0]


async def test_the_selected_row_is_on_screen_after_a_jump_at_80_columns(tmp_path: Path):
    """`G` on a stream with more items than rows: the last event's row is scrolled into view
    above the tree's horizontal scrollbar (labels are wider than the tree at 80 columns), not
    under it."""
    from _app_support import renumbered, screen_of, write_chunks
    from mcptui.sources.replay import open_session
    from mcptui.ui.app import McptuiApp

    raws: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}
    ]
    for n in range(60):
        item = {
            "id": f"mcp_{n}",
            "type": "mcp_call",
            "name": "search_documentation_pages",
            "server_label": "documentation",
            "arguments": "",
            "status": "in_progress",
        }
        raws += [
            {"type": "response.output_item.added", "output_index": n, "item": item},
            {
                "type": "response.output_item.done",
                "output_index": n,
                "item": {**item, "arguments": "{}", "output": "ok", "status": "completed"},
            },
        ]
    raws.append({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}})
    session = open_session(str(write_chunks(tmp_path / "many.jsonl", renumbered(raws))))
    async with McptuiApp(session, paused=True).run_test(size=(80, 24), notifications=True) as pilot:
        screen = screen_of(pilot)
        await pilot.press("G")
        await pilot.pause()
        await pilot.pause()
        tree = screen.tree
        assert str(tree.cursor_node.label).startswith("response.completed")
        top = tree.scroll_offset.y
        assert top <= tree.cursor_line < top + tree.scrollable_content_region.height
        assert tree.show_horizontal_scrollbar  # the case that hid it


T = TypeVar("T")


def frames_drawn(
    app: McptuiApp, look: Callable[[InspectorScreen], T], *, first: bool = False
) -> list[T]:
    """What `look` sees of the inspector at each frame the app draws (`first`: the first
    frame only), read just before the frame is written to the terminal."""
    seen: list[T] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        drawn = renderable is not None and isinstance(screen, InspectorScreen)
        if drawn and not (first and seen):
            seen.append(look(screen))
        original(screen, renderable)

    app._display = display  # type: ignore[method-assign]
    return seen


async def test_an_instant_replay_paints_its_end_first():
    """`replay --instant` of a file read whole: the first frame already shows the end, landed
    on the failure, not step 0 with the end one tick later (a frame of the cold start)."""
    session = open_session(str(SAMPLE_424), instant=True)
    app = McptuiApp(session)
    painted = frames_drawn(app, lambda screen: screen.session.timeline.position)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None)
        assert painted[0] == session.timeline.total
        assert "failed" in str(screen.tree.cursor_node.label)  # the mcp_call that got the 424


async def test_an_instant_replays_first_frame_shows_the_failures_detail():
    """The detail pane is drawn in the first frame, beside the tree: not a frame with an
    empty pane first (it drew on its Resize event, which at start-up came after the first
    frame)."""
    session = open_session(str(SAMPLE_424), instant=True)
    app = McptuiApp(session)
    first = frames_drawn(
        app, lambda screen: "\n".join(strip.text for strip in screen.detail._lines), first=True
    )
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_until(pilot, lambda: bool(first))
    assert "http_error 424" in first[0]


async def test_the_views_not_shown_at_first_are_mounted_after_the_first_frame():
    """The findings and waterfall views and the filter box are not in the first frame's
    screen (~20 ms of a small recording's first screen): they are mounted once it is drawn."""
    session = open_session(str(SAMPLE_424), instant=True)
    app = McptuiApp(session)
    hidden_at_first = frames_drawn(
        app,
        lambda screen: not screen.query(FindingsList) and not screen.query("#filter"),
        first=True,
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(
            pilot, lambda: bool(screen.query(FindingsList)) and bool(screen.query("#filter"))
        )
        assert not screen.query_one(FindingsList).display  # hidden, as they were composed
        assert not screen.query_one("#filter").display
    assert hidden_at_first == [True]


async def test_an_instant_replay_scrolls_to_a_failure_below_the_first_rows(tmp_path: Path):
    """The jump is made at mount, before the tree is laid out: the failed item's row is still
    scrolled into view."""
    from _app_support import renumbered, write_chunks

    raws: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}
    ]
    for n in range(60):
        item = {"id": f"mcp_{n}", "type": "mcp_call", "name": "search", "server_label": "docs"}
        done = {**item, "arguments": "{}", "output": "ok", "status": "completed"}
        if n == 50:
            done = {**item, "arguments": "{}", "status": "failed", "error": "http_error 424"}
        raws += [
            {"type": "response.output_item.added", "output_index": n, "item": item},
            {"type": "response.output_item.done", "output_index": n, "item": done},
        ]
    raws.append({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}})
    session = open_session(
        str(write_chunks(tmp_path / "many.jsonl", renumbered(raws))), instant=True
    )
    async with McptuiApp(session).run_test(size=(80, 24)) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None)
        await pilot.pause()
        tree = screen.tree
        assert "mcp_50" in str(tree.cursor_node.data) or "failed" in str(tree.cursor_node.label)
        top = tree.scroll_offset.y
        assert top <= tree.cursor_line < top + tree.scrollable_content_region.height
