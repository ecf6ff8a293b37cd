"""`mcptui replay FILE --screenshot OUT.svg [--step N | --failure]`: the app rendered headless
at a size and a step, saved as SVG, redacted like the palette's screenshot, then exit.

A picture for an issue or a forum post that shows what the app shows, made without a terminal
(CI, a script, a bug template).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from textual.pilot import Pilot

from mcptui.model.textsafe import shown_path

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


def take_screenshot(args: argparse.Namespace) -> int:
    """Exit 0 with the SVG written, 2 when the file, the size or OUT cannot be used, 3 on an
    internal error (as any command)."""
    from mcptui.cli.main import open_replay, refuse_line
    from mcptui.ui.app import McptuiApp

    size = parse_size(args.size)
    if size is None:
        return refuse_line(f"--size {args.size!r}: give COLUMNSxROWS, e.g. 120x40 (at least 20x8)")
    out = Path(args.screenshot)
    if out.is_dir():
        return refuse_line(f"--screenshot {out}: is a folder; name the .svg file to write")
    session = open_replay(
        args.file, instant=True, max_bytes=args.max_bytes, tap=args.tap, whole=True
    )
    if session is None:
        return 2
    open_at = "failure" if args.failure else args.step if args.step is not None else "end"
    app = McptuiApp(session, open_at=open_at)  # opening somewhere is opening paused
    saved: list[str] = []

    async def shoot(pilot: Pilot[None]) -> None:
        await settle(pilot)
        saved.append(app.redacted_screenshot())
        app.exit()

    app.run(headless=True, size=size, auto_pilot=shoot)
    if app.crash is not None:
        print(app.crash, file=sys.stderr)
        return app.return_code or 3
    if not saved:
        return refuse_line("the screenshot could not be taken")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(saved[0], encoding="utf-8")
    except OSError as exc:
        return refuse_line(f"cannot write {out}: {exc.strerror or exc}")
    print(f"mcptui: screenshot saved to {shown_path(out)}", file=sys.stderr)
    return 0


async def settle(pilot: Pilot[None]) -> None:
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
            and screen.diagnosis is not None
            and screen._diagnosed_total == screen.session.timeline.total
            and not any(w.group == "diagnose" and w.is_running for w in screen.workers)
        ):
            break
        await pilot.pause(0.05)
        waited += 0.05
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
