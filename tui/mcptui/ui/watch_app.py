"""`mcptui watch DIR`: the app whose first screen is the folder's list of recordings
(ui/screens/watch.py). Enter pushes the usual inspector over the list, on the recording as it
stands then, shown whole (as `o` opens a file); Escape pops it, back to the list, which has
gone on being kept up to date meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.screen import Screen

from mcptui.io.folder_watch import FolderWatch
from mcptui.model.textsafe import visible
from mcptui.model.timeline import Timeline
from mcptui.sources.session import Session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.watch import WatchScreen


class WatchApp(McptuiApp):
    """The list of a folder's recordings first; each one opened in the inspector above it."""

    def __init__(self, folder: Path, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(Session(Timeline(), source=str(folder)))
        self.folder = folder
        self.watch_clock = clock
        """Seconds since the epoch, for the list (a test's clock decides what is quiet)."""

    def get_default_screen(self) -> Screen[Any]:
        return WatchScreen(FolderWatch(self.folder), clock=self.watch_clock)

    def open_recording(self, path: Path, *, writing: bool = False) -> None:
        """Show `path` in the inspector, above the list (the list's Enter); one the list
        says is being `writing` is followed, live (tui/mcptui/sources/follow.py)."""
        from mcptui.sources.replay import open_session

        session = open_session(str(path), follow=True if writing else None)
        if not session.usable:
            problems = "; ".join(str(p) for p in session.problems[:3]) or "nothing usable"
            self.notify(
                f"Could not open {visible(path.name)}: {visible(problems)}",
                severity="error",
                markup=False,
            )
            return
        self._show(session)

    def _show(self, session: Session) -> None:
        """A file opened from the list, or with `o` from the inspector (which it replaces):
        shown whole, on its first failure, as `o` shows one in `replay`; a file still being
        written goes on growing on screen (tui/mcptui/sources/follow.py)."""
        session.player.instant = True
        self.leave_live(session)
        self.session = session
        # A file still written plays on to its end and follows it; any other opens there.
        screen = InspectorScreen(session, open_at=None if session.live else "end")
        if isinstance(self.screen, InspectorScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def can_go_back(self) -> bool:
        return isinstance(self.screen, InspectorScreen)

    def action_back_to_list(self) -> None:
        if self.can_go_back():
            self.leave_live(None)
            self.pop_screen()

    async def action_quit(self) -> None:
        """A watch ends with 0: the recordings it listed are data, as a proxy's are."""
        self.exit(return_code=0)
