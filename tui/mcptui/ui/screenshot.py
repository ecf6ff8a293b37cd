"""`mcptui replay FILE --screenshot OUT.svg [--step N | --failure]`: the app rendered headless
at a size and a step, saved as SVG, redacted like the palette's screenshot, then exit.

A picture for an issue or a forum post that shows what the app shows, made without a terminal
(CI, a script, a bug template).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.pilot import Pilot

if TYPE_CHECKING:
    from mcptui.sources.session import Session
    from mcptui.ui.app import OpenAt

SIZE = re.compile(r"(\d+)[xX×](\d+)")
SETTLE_SECONDS = 10.0
"""How long the diagnosis (likely causes in the detail pane) may take before the picture is
taken anyway."""


def parse_size(text: str) -> tuple[int, int] | None:
    """`120x40` as (columns, rows); None when it is not a size a screen can have."""
    found = SIZE.fullmatch(text.strip())
    if found is None:
        return None
    columns, rows = int(found.group(1)), int(found.group(2))
    return (columns, rows) if 20 <= columns <= 1000 and 8 <= rows <= 500 else None


@dataclass(frozen=True)
class Shot:
    """What a headless run gave: the SVG, or the app's crash line and exit code."""

    svg: str | None
    crash: str | None = None
    return_code: int | None = None


def take_screenshot(session: Session, *, size: tuple[int, int], open_at: OpenAt) -> Shot:
    """Run the app headless at `size`, opened at `open_at`, and take its redacted picture
    once the screen has settled."""
    from mcptui.ui.app import McptuiApp

    app = McptuiApp(session, open_at=open_at)  # opening somewhere is opening paused
    saved: list[str] = []

    async def shoot(pilot: Pilot[object]) -> None:
        await settle(pilot)
        saved.append(app.redacted_screenshot())
        app.exit()

    app.run(headless=True, size=size, auto_pilot=shoot)
    if app.crash is not None:
        return Shot(None, app.crash, app.return_code)
    return Shot(saved[0] if saved else None)


async def settle(pilot: Pilot[object]) -> None:
    """Wait until the screen shows its final state: the checks of every event done (the
    detail pane then has the likely cause), and the layout refreshed after it."""
    from mcptui.ui.screens.inspector import InspectorScreen

    app = pilot.app
    waited = 0.0
    while waited < SETTLE_SECONDS:
        await pilot.pause()
        screen = app.screen
        if (
            isinstance(screen, InspectorScreen)
            and screen.diagnosing.diagnosis is not None
            and screen.diagnosing._diagnosed_total == screen.session.timeline.total
            and not any(w.group == "diagnose" and w.is_running for w in screen.workers)
        ):
            break
        await pilot.pause(0.05)
        waited += 0.05
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
