"""When the cyclic garbage collector may run its older-generation passes.

A step allocates a few thousand short-lived objects (Rich segments, Textual strips and their
caches). Reference counting frees nearly all of them, but the collector still promotes what
happens to be alive at its young passes; every few dozen steps the full pass walked every
tracked object the screen holds (25-40 ms, in the middle of a step: the bench's step tail was
mostly that), and every ten young passes the middle one walked all that had survived them
(1-2 ms, one step in ten). While an inspector screen is open neither runs by itself; they run
when the user has not stepped for `IDLE_SECONDS` (checked every `CHECK_SECONDS`). The youngest
pass runs as usual, and what loading built is frozen out of every pass (tui/mcptui/model/ingest.py
for streams, tui/mcptui/ui/screens/loading.py once a recording is read).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

IDLE_SECONDS = 0.5
CHECK_SECONDS = 0.25
MIN_GAP_SECONDS = 1.0
"""At most one held-back pass a second (a replay playing is idle to this, and allocates)."""
NEVER = 1 << 30
"""A threshold the younger passes never reach."""

_holders = 0
_saved: tuple[int, int, int] | None = None


class CollectorPacer:
    """Holds the older passes back while one screen is shown; `stepped` on each user step,
    `check` from a timer."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last_step = clock()
        self.last_pass = self.last_step
        self.held = False
        self._middle_after = 10
        self._full_after = 10
        self.collected = 0
        """Unreachable objects the idle passes found (information)."""

    def hold(self) -> None:
        global _holders, _saved
        if self.held:
            return
        self.held = True
        if _holders == 0:
            _saved = gc.get_threshold()
            self._middle_after, self._full_after = _saved[1], _saved[2]
            gc.set_threshold(_saved[0], NEVER, NEVER)
        _holders += 1

    def release(self) -> None:
        global _holders, _saved
        if not self.held:
            return
        self.held = False
        _holders -= 1
        if _holders == 0 and _saved is not None:
            gc.set_threshold(*_saved)
            _saved = None

    def stepped(self) -> None:
        self.last_step = self.clock()

    def check(self) -> None:
        """The passes held back, when the user has paused and they would have run by now
        (the full one includes the middle one)."""
        now = self.clock()
        if (
            not self.held
            or now - self.last_step < IDLE_SECONDS
            or now - self.last_pass < MIN_GAP_SECONDS
        ):
            return
        _, young_passes, middle_passes = gc.get_count()
        if middle_passes >= self._full_after:
            self.collected += gc.collect()
        elif young_passes >= self._middle_after:
            self.collected += gc.collect(1)
        else:
            return
        self.last_pass = self.clock()
