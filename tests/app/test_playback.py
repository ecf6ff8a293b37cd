"""Playback at the recorded pace, driven by a fake clock passed to the screen (its seam).

The screen's 30 Hz timer really runs; only the clock it reads is fake, so the position the
tests wait for is exactly the one the recorded `t` values and the speed give.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _app_support import (
    APP_CSS,
    SAMPLE_SUCCESS,
    SAMPLE_TIMEOUT,
    SIZE,
    FakeClock,
    events_until,
    header_text,
    index_of,
    recorded_events,
    screen_of,
    wait_until,
)
from textual.app import App
from textual.pilot import Pilot

from tui.app import McptuiApp
from tui.screens.inspector import InspectorScreen
from tui.sources.replay import open_session


class PlaybackApp(App[None]):
    """The inspector, playing from the start, on a clock the test controls."""

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
    await pilot.pause(0.15)  # several more ticks
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
        await wait_until(pilot, lambda: screen.session.timeline.position >= expected,
                         timeout=1.0)
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
