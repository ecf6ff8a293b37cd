"""Determinism for the app tests: no blinking cursors, no real clock; toasts on.

The inspector's playback clock is an injected seam (`InspectorScreen(clock=...)`). Every screen
built without one (McptuiApp builds its screens that way) gets a frozen fake clock here, so a
test that presses Space or `+` never depends on how fast the machine is. Tests that exercise
playback pass their own `FakeClock` explicitly.

Every `run_test()` mounts notifications, as a real terminal does: Textual's default leaves
them out, and a toast that cannot render (markup in a path, a rich Text) then crashes only
for users.
"""

from __future__ import annotations

import pytest
from _app_support import FakeClock
from mcptui.ui.screens.inspector import InspectorScreen
from textual.app import App
from textual.widgets import Input


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    # The filter box and the save/open prompts are Inputs: a blinking cursor would make
    # screenshots depend on when they are taken.
    monkeypatch.setattr(Input, "cursor_blink", False)
    frozen = FakeClock()
    defaults = InspectorScreen.__init__.__kwdefaults__
    assert defaults is not None and "clock" in defaults, "InspectorScreen lost its clock seam"
    monkeypatch.setitem(defaults, "clock", frozen)
    return frozen


@pytest.fixture(autouse=True)
def notifications_on(monkeypatch: pytest.MonkeyPatch) -> None:
    run_test = App.run_test

    def with_notifications(self: App[object], *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        kwargs.setdefault("notifications", True)
        return run_test(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "run_test", with_notifications)


@pytest.fixture
def frozen_clock(deterministic: FakeClock) -> FakeClock:
    """The clock of screens built without one."""
    return deterministic
