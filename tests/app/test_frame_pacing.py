"""The inspector draws its frames on a shorter period than Textual's screens
(`InspectorScreen.FRAME_SECONDS`) by replacing Textual's private `Screen._update_timer`. These
tests fail loudly when a Textual upgrade changes what that replacement relies on."""

from __future__ import annotations

import inspect

from _app_support import SAMPLE_424, SIZE, screen_of, step_to
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens import inspector
from mcptui.ui.screens.inspector import InspectorScreen
from textual.screen import Screen


def test_textuals_update_timer_is_still_made_where_the_inspector_replaces_it():
    made = inspect.getsource(Screen.__dict__["_update_timer"].fget)
    assert "self._on_timer_update" in made and 'name="screen_update"' in made
    assert "pause=True" in made
    assert list(inspect.signature(Screen._on_timer_update).parameters) == ["self"]
    # Textual pauses and resumes it through the property, never through its own attribute.
    source = inspect.getsource(Screen)
    assert "self._update_timer.resume()" in source and "self._update_timer.pause()" in source
    in_property = made.count("self.__update_timer")
    assert source.count("self.__update_timer") == in_property + 1  # + `None` in __init__


async def test_the_inspector_draws_its_frames_on_its_own_shorter_period():
    app = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await step_to(pilot, 3)
        timer = screen._update_timer
        assert timer is screen._frame_timer
        assert timer._interval == inspector.FRAME_SECONDS < 1 / 60
        assert getattr(screen, "_Screen__update_timer", None) is None  # no second timer
        assert isinstance(screen, InspectorScreen)
