"""`SafeApp.after_frame`: work that waits for a screen to be shown (an instant replay's checks,
the collector turned back on) runs once a frame is drawn, also where Textual's
`call_after_refresh` runs it at once: during a batch of updates, as at start-up in a real
terminal, where the checks' thread then shared the GIL with drawing the first frame
(bench/cold_start.py)."""

from __future__ import annotations

from typing import Any

from _app_support import wait_until
from mcptui.ui.safe_app import SafeApp
from rich.console import RenderableType
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static


class CountingApp(SafeApp):
    """Counts the frames drawn."""

    frames = 0

    def compose(self) -> ComposeResult:
        yield Static("before")

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        if renderable is not None and not self._batch_count:
            self.frames += 1
        super()._display(screen, renderable)


async def test_after_frame_waits_for_the_frame_a_batch_holds_back() -> None:
    app = CountingApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        seen: dict[str, int] = {}
        with app.batch_update():
            drawn = app.frames
            app.query_one(Static).update("after")
            app.screen.call_after_refresh(lambda: seen.setdefault("call_after_refresh", app.frames))
            app.after_frame(lambda: seen.setdefault("after_frame", app.frames))
            await pilot.pause()
            assert "after_frame" not in seen  # no frame is drawn during a batch
        assert await wait_until(pilot, lambda: "after_frame" in seen)
        assert seen["after_frame"] > drawn
        assert seen["call_after_refresh"] == drawn  # Textual's ran before the frame


async def test_when_shown_is_called_once_the_first_frame_is_drawn() -> None:
    app = CountingApp()
    shown: list[int] = []
    app.when_shown = lambda: shown.append(app.frames)
    async with app.run_test() as pilot:
        assert await wait_until(pilot, lambda: bool(shown))
        await pilot.pause()
    assert shown[0] >= 1
    assert len(shown) == 1
