"""Reading the rest of a recording while its first screen is up (tui/mcptui/io/indexed.py).

`mcptui replay` opens on the file's first piece; the rest is read a piece at a time (about
10 ms each) between frames, so keys and repaints go on meanwhile and the header says how much
is read. In a big file a helper process reads ahead (mcptui/io/read_ahead.py): the app takes each
piece it has sent and, while the next is not there yet, naps between frames (`HELPER_POLL`).
Whatever needs the whole file waits for the end: a step not read yet or a failure asked for
on the command line (unless the user has stepped meanwhile), an instant replay's jump to the
end, and the checks (which would otherwise call a stream unfinished that is only not read
yet). An instant replay folds each piece as it is read (`Timeline.fold_ahead`), so the jump
itself has nothing left to fold.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import TYPE_CHECKING

from mcptui.io.read_ahead import PIECE

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host


INSTANT_PIECE = 8 * PIECE
"""Bytes read at a time for an instant replay: about 80 ms of reading and folding, so a key
waits at most that long. Each turn of the loop between pieces costs about 4 ms (ticks,
timers, messages): 4 MB pieces took 0.90-1.26 s to the 200k-event bench's first paint,
8 MB 0.90-1.04 s, in alternating runs."""
PROGRESS_SECONDS = 0.1
"""How often the header's `reading N%` is brought up to date."""
HELPER_POLL = 0.002
"""Seconds between looks for the reading helper's next piece (mcptui/io/read_ahead.py) meanwhile."""


class Loading:
    """Background reading of the inspector screen's session."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    diagnose_after_jump = False
    """All is read and an instant replay is to jump to the end: check the events after it."""

    def start_loading(self) -> bool:
        """Read the rest of the file in the background; False when it is all read."""
        if self.screen.session.loading is None:
            return False
        self.screen.run_worker(self._read_rest(), group="load", exit_on_error=False)
        return True

    @property
    def reading(self) -> float | None:
        """How much of the file is read (0..1) while it is being read, else None."""
        loading = self.screen.session.loading
        return None if loading is None else loading.fraction

    async def _read_rest(self) -> None:
        session = self.screen.session
        # An instant replay shows nothing but progress until all is read: bigger pieces, and
        # the header's progress redrawn a few times a second, not after every piece.
        player = session.player
        size = INSTANT_PIECE if player.instant else PIECE
        shown = 0.0
        # It also folds each piece as it comes, for the jump (unless the user has paused).
        while session.load_more(size, ahead=player.instant and player.playing, wait=False):
            if (now := time.monotonic()) - shown >= PROGRESS_SECONDS:
                shown = now
                self.screen.header_clock.refresh_header()
            # a frame, a key, a tick between pieces; a nap while the helper reads the next
            loading = session.loading
            await asyncio.sleep(HELPER_POLL if loading is not None and loading.waiting else 0)
        self.all_read()

    def all_read(self) -> None:
        """The whole file is in: keep the collector off it, then do what waited for it."""
        gc.freeze()
        self.screen.header_clock.refresh_header()
        if (
            self.screen.open_at is not None
            and self.screen.session.timeline.position == self.screen.opened_at
        ):
            self.screen._open_at(self.screen.open_at)  # unless the user has stepped meanwhile
        player = self.screen.session.player
        if player.instant and player.playing:
            # The jump to the end is what the user waits for: the checks (in a child process
            # reading the file again) start once the frame of the tick that makes it is
            # drawn (`after_frame` there), not beside it.
            self.diagnose_after_jump = True
            self.screen.playback._tick()  # the jump now, not at the next tick (up to 33 ms on)
        else:
            self.screen.diagnosing.diagnose(force=True)
