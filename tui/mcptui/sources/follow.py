"""Following a file another process is still writing: a `mcptui run` or the proxy recording
into it, an app appending its events one JSON line at a time.

`mcptui replay FILE` reads what the file holds; a `Follower` then reads what is appended to it,
a complete line at a time, into the same timeline, as a live run adds what arrives (as toolong
and `tail -f` follow a log). A line still being written (no newline yet) waits for its end. New
entries are redacted as the file's first part was: each event with the secrets the file named,
each item's deltas on their joined text (tui/mcptui/io/scrub.py). Line formats only: a
recording or one JSON event per line; a whole-text format (SSE, an array, a paste) has no place
where a complete entry ends.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from mcptui.io.indexed import RecordingReader
from mcptui.io.reading import MAX_BYTES
from mcptui.io.recording import Loaded, Problem, read_record
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event, note
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import redact_event
from mcptui.model.state import TERMINAL_STATUSES
from mcptui.sources.session import Session

POLL_SECONDS = 0.2
"""How often the app asks the follower for what is new: a stat when nothing is."""
GROWING_SECONDS = 10.0
"""A file written to this recently, whose last response has not ended, may still be written:
`replay` follows it without `--follow`, live once it grows."""
MAX_READ = 4 << 20
"""Bytes read at a poll at most (the rest at the next): a writer far ahead never stalls keys."""


class Follower:
    """Reads the lines appended to `path` after `offset` into `session`'s timeline."""

    def __init__(
        self,
        session: Session,
        path: str,
        reader: RecordingReader,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_line: int = MAX_BYTES,
    ) -> None:
        """Follow `path` from where `reader` (the session's first reading) stops: after the
        last complete line of what it read."""
        self.session = session
        self.path = path
        self.reader = reader
        self.bare = reader.bare
        self.clock = clock
        self.offset = follow_start(path, reader.size)
        """Where the next line starts: the end of the last complete line read."""
        self.line = 0
        self._first = 0
        """The first line read here: the one the first reading may have found cut off."""
        self._read_already: int | None = None
        """The line the first reading took whole though it had no newline yet: not again."""
        self.running = True
        """The last response has not ended: the writer has more to write."""
        self._scrubber = DeltaScrubber()
        self._identity = _identity(path)
        self.ended: str | None = None
        """Why following stopped (the file was removed, replaced or cut short), once it has."""
        self.last_growth = clock()
        self.started = False
        self._partial = b""
        """The start of a line still being written, read at an earlier poll."""
        self.max_line = max_line

    def _start(self) -> None:
        """Once the first reading is done (it reads a big file on in the app): where the
        lines read so far end, and what their last response says."""
        self.started = True
        cut = self.offset < self.reader.size  # its last line had no newline yet
        self.line = self.reader.lines_read - cut  # counted as read, not read again
        tail = self.session.timeline.events[-1:]
        if cut and tail and tail[0].line == self.line + 1:
            self._read_already = self.line + 1
        self._first = self.line + 1
        self.running = not _last_response_ended(self.session)

    def poll(self) -> int:
        """Read what was appended since the last poll into the timeline: the entries added."""
        if self.ended is not None or self.session.loading is not None:
            return 0
        if not self.started:
            self._start()
        try:
            with open(self.path, "rb") as file:
                info = os.fstat(file.fileno())
                if _identity_of(info) != self._identity or info.st_size < self.offset:
                    return self._end("the file was replaced or cut short while followed")
                at = self.offset + len(self._partial)
                if info.st_size <= at:
                    return 0
                data = self._partial + os.pread(file.fileno(), min(MAX_READ, info.st_size - at), at)
        except FileNotFoundError:
            return self._end("the file was removed while followed")
        except OSError as exc:
            return self._end(f"the file can no longer be read ({exc.strerror or exc})")
        self.last_growth = self.clock()
        self.go_live()
        complete = data.rfind(b"\n") + 1
        if not complete:  # a line still being written: kept, and read on from its end
            if len(data) > self.max_line:
                return self._end(f"a line longer than {self.max_line:,} bytes")
            self._partial = data
            return 0
        self._partial = data[complete:]
        self.offset += complete
        return self._take(data[:complete].split(b"\n")[:-1])

    def go_live(self) -> None:
        """The session is live from now: the file is being written. A view that stood at the
        end of what was read (a replay played to its end, `watch` opening a file whole)
        follows what comes, as a live run's does."""
        session = self.session
        if not session.live and session.timeline.at_end:
            session.player.instant = True
            session.player.play(session.timeline.position, self.clock())
        session.live = True
        session.receiving = self.writing

    def _take(self, lines: list[bytes]) -> int:
        loaded = Loaded(source=self.path)
        events: list[Event] = []
        for line in lines:
            self.line += 1
            if self.line == self._read_already:
                continue
            if self.line == self._first:
                self._forget_cut_line(self.line)
            event = self._event(self.line, line, loaded)
            if event is not None:
                events.append(event)
                self._learn(event)
        self.session.problems.extend(loaded.problems)
        known = self.session.secrets
        ready: list[Event] = []
        for event in events:
            event.raw = redact_event(event.raw, known)
            ready += self._scrubber.push(event, known)
        self.session.timeline.extend(ready, follow=False)
        return len(ready)

    def _event(self, number: int, line: bytes, loaded: Loaded) -> Event | None:
        if not self.bare:
            return read_record(number, line, loaded)
        if not line.strip():
            return None
        try:
            obj = loads(line)
        except ValueError:
            loaded.problems.append(Problem(number, "invalid JSON"))
            return None
        if not isinstance(obj, dict):
            loaded.problems.append(
                Problem(number, f"expected a JSON object, got {type(obj).__name__}")
            )
            return None
        return Event(obj, line=number)  # no envelopes: such a dump is read whole (sniff.py)

    def _learn(self, event: Event) -> None:
        kind = event.kind
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self.running = True
        elif kind in _ENDS:
            self.running = False

    def _forget_cut_line(self, number: int) -> None:
        """The line the first reading found cut off (it was being written) is whole now: its
        problem goes."""
        problems = self.session.problems
        problems[:] = [p for p in problems if p.line != number]

    def _end(self, why: str) -> int:
        """Stop following, with a note that says why; the view is a replay again."""
        self.ended = why
        self.session.live = False
        self.session.timeline.extend(
            [note("follow", f"stopped following: {why}", level="warning")], follow=False
        )
        return 1

    def writing(self) -> bool:
        """Whether the file is still being written: it grew lately, or its last response has
        not ended (a slow tool call writes nothing for a while)."""
        if self.ended is not None:
            return False
        return self.running or self.clock() - self.last_growth < 2 * POLL_SECONDS + 1


_ENDS = frozenset(f"response.{status}" for status in TERMINAL_STATUSES)


def _last_response_ended(session: Session) -> bool:
    current = session.timeline.final_state().current
    return current is not None and current.status in TERMINAL_STATUSES


def growing(path: str, session: Session, *, now: float | None = None) -> bool:
    """Whether `path` looks still written: modified in the last `GROWING_SECONDS` and its
    last response not ended (`replay` then follows it unasked)."""
    try:
        modified = os.stat(path).st_mtime
    except OSError:
        return False
    now = time.time() if now is None else now
    return now - modified < GROWING_SECONDS and not _last_response_ended(session)


def follow_start(path: str, size: int) -> int:
    """Where following starts: after the last complete line of the file's first `size` bytes
    (what the first reading read)."""
    end = size
    try:
        with open(path, "rb") as file:
            while end > 0:  # back a megabyte at a time: the last line may be a long one
                start = max(0, end - (1 << 20))
                found = os.pread(file.fileno(), end - start, start).rfind(b"\n")
                if found >= 0:
                    return start + found + 1
                end = start
    except OSError:
        return 0
    return 0


def _identity(path: str) -> Any:
    try:
        return _identity_of(os.stat(path))
    except OSError:
        return None


def _identity_of(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino
