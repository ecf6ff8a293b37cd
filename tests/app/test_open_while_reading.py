"""Opening a big recording paused (`--step [N]`): the rest of the file is read while the user
steps, and the end of reading never takes the user's steps away."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _app_support import SIZE, header_text, long_recording, screen_of, wait_until
from mcptui.sources.replay import open_session
from mcptui.sources.session import Session
from mcptui.ui.app import McptuiApp


def hold_reading(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Reading goes on (nothing more is read) until `gate["open"]`: keys land mid-reading."""
    gate = {"open": False}
    load_more = Session.load_more

    def gated(session: Session, *args: object, **kwargs: object) -> bool:
        if gate["open"]:
            return load_more(session, *args, **kwargs)
        time.sleep(0.005)  # a slow disk: the reading loop would spin without a pause
        return True

    monkeypatch.setattr(Session, "load_more", gated)
    return gate


async def test_steps_taken_while_a_recording_is_read_are_kept_when_it_is_all_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    session = open_session(str(long_recording(tmp_path / "long.jsonl", 8000)))
    assert session.loading is not None
    gate = hold_reading(monkeypatch)
    app = McptuiApp(session, open_at=0)  # `mcptui replay FILE --step`
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        for _ in range(3):
            await pilot.press("right")
        await pilot.pause()
        assert "step 3 / " in header_text(screen)
        assert "reading" in header_text(screen)

        gate["open"] = True
        assert await wait_until(pilot, lambda: session.loading is None, 30)
        await pilot.pause()
        total = session.timeline.total
        assert f"step 3 / {total}" in header_text(screen)  # not back at step 0
        assert "reading" not in header_text(screen)


async def test_a_step_asked_for_that_is_read_already_is_shown_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    session = open_session(str(long_recording(tmp_path / "long.jsonl", 8000)))
    gate = hold_reading(monkeypatch)
    app = McptuiApp(session, open_at=7)  # `--step 7`: in the first piece
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: "step 7 / " in header_text(screen), 10)
        assert "reading" in header_text(screen)  # without waiting for the rest
        gate["open"] = True
        assert await wait_until(pilot, lambda: session.loading is None, 30)
        await pilot.pause()
        assert f"step 7 / {session.timeline.total}" in header_text(screen)
