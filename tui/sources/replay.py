"""Replay: a recording (or any dump `inspect` reads) as a session the app plays back.

All events are appended up front without being applied; the session's `Player` then moves the
cursor at the recorded pace. A live source appends the same way as events arrive, so the app
has one path for both.
"""

from __future__ import annotations

from tui.importers import load_path
from tui.io.reading import MAX_BYTES
from tui.session import Session


def open_session(path: str, *, speed: float = 1.0, instant: bool = False,
                 max_bytes: int = MAX_BYTES) -> Session:
    """Load `path` (any accepted format) as a session positioned at step 0."""
    return Session.from_loaded(load_path(path, max_bytes), speed=speed, instant=instant)
