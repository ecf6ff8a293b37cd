"""Replay: a recording (or any dump `inspect` reads) as a session the app plays back.

All events are appended up front without being applied; the session's `Player` then moves the
cursor at the recorded pace. A live source appends the same way as events arrive, so the app
has one path for both.
"""

from __future__ import annotations

from mcptui.io.indexed import RecordingReader, recording_reader
from mcptui.io.reading import MAX_BYTES
from mcptui.io.recording import Loaded
from mcptui.sources.follow import Follower, growing
from mcptui.sources.session import Session


def open_session(
    path: str,
    *,
    speed: float = 1.0,
    instant: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
    whole: bool = False,
    follow: bool | None = False,
) -> Session:
    """Load `path` (any accepted format) as a session positioned at step 0; with `tap`, a
    tap recording made apart merged into it (tui/mcptui/io/merge.py). A recording is read a piece
    at a time (`Session.loading`: the app reads the rest between frames) unless `whole`.
    `follow`: read on what is appended to a recording or a dump of JSON lines
    (tui/mcptui/sources/follow.py), live; None: when it looks still written (it was written
    to just now and its last response has not ended), live once it grows (a run that crashed
    a moment ago grows no more, and stays "never finished")."""
    reader = recording_reader(path, max_bytes) if tap is None and path != "-" else None
    if reader is not None:
        session = Session.reading(reader, speed=speed, instant=instant)
        if whole:
            session.load_all()
        lines = type(reader) is RecordingReader  # a recording or JSON lines: not SSE, an array
        if lines and (follow or (follow is None and growing(path, session))):
            follower = Follower(session, path, reader)  # type: ignore[arg-type]
            session.follower = follower
            if follow:
                follower.go_live()
        return session
    return Session.from_loaded(load_merged(path, tap, max_bytes), speed=speed, instant=instant)


def load_merged(path: str, tap: str | None, max_bytes: int = MAX_BYTES) -> Loaded:
    """A file read whole. Its readers (archives, pastes, merging) load here, not with the
    module: a recording or dump read a piece at a time needs none of them (~4 ms of a small
    recording's first screen, bench/cold_start.py)."""
    from mcptui.io.formats import load_path
    from mcptui.io.merge import merge_tap

    loaded = load_path(path, max_bytes)
    if tap is None or not loaded.usable:
        return loaded
    return merge_tap(loaded, load_path(tap, max_bytes))
