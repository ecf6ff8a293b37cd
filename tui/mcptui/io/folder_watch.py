"""A folder of recordings watched as they appear and grow (`mcptui watch DIR`).

Each `poll` lists the folder and stats its `*.jsonl` files: that is all it does for a file
whose size and modification time have not changed. A file seen for the first time is read
once, whole; a file that grew is read from where the last read stopped (its last whole line),
so a live run's recording costs what it appended. A file whose first line is not an mcptui
recording's header (`is_header`) is left out, and not read again until it is replaced.

Lines are read by the tolerant reader (`read_record`) and folded one at a time by the
reducer, then dropped: what a row needs is the fold (responses, failures, which are still
open) and a count, not the events. Once a file has been quiet for `QUIET_SECONDS` its fold is
dropped too, the row kept: a settled recording holds a few hundred bytes here. One that grows
again after that is read again from its start.

A file is known by its inode, not its name: a live run renames its recording once the
response id is known (`<time>-pending.jsonl` → `<time>-resp_….jsonl`, Recorder.name_after),
and its row goes on with the new name rather than being read again.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from mcptui.io.recording import Loaded, is_header, read_record
from mcptui.model.jsonsafe import loads
from mcptui.model.recording_status import RecordingSummary, summarize
from mcptui.model.reducer import Reducer

SUFFIX = ".jsonl"
QUIET_SECONDS = 30.0
"""A file not written to for this long is no longer being written: a response it leaves
open never finished. Long enough for a slow MCP call between two events (the emulator's
timeouts are 30 s); a run waiting for an approval has ended its response, so it shows as
completed meanwhile, not as abandoned."""
CHUNK = 1 << 20
"""Bytes read at a time from a file that grew."""


@dataclass(frozen=True, slots=True)
class Row:
    """A recording of the folder, as the list shows it."""

    path: Path
    started: datetime | None
    """The header's `created`, None when it has none that reads as a time."""
    summary: RecordingSummary
    size: int
    modified: float
    """The file's last modification, in seconds since the epoch."""

    @property
    def when(self) -> float:
        """When the recording began, for the order (its `created`, else its last change)."""
        return self.started.timestamp() if self.started is not None else self.modified


@dataclass(slots=True)
class Followed:
    """A recording read so far: where the last whole line ends, and the fold of its lines."""

    offset: int = 0
    lines: int = 0
    events: int = 0
    header: dict[str, object] | None = None
    reducer: Reducer = field(default_factory=Reducer)
    loaded: Loaded = field(default_factory=Loaded)
    """Where `read_record` keeps the header and the problems of bad lines."""

    def read_on(self, fd: int, size: int) -> bool | None:
        """Read the whole lines from `offset` to `size` and fold them. True when something
        was read, False when no line is whole yet, None when the file is no recording."""
        read = False
        while self.offset < size:
            data = os.pread(fd, min(CHUNK, size - self.offset), self.offset)
            end = data.rfind(b"\n") + 1
            if not data:
                break
            if not end:  # one line longer than a chunk, or a line still being written
                if len(data) < CHUNK or self.offset + len(data) >= size:
                    break
                long = _whole_line(fd, self.offset, size)
                if long is None:
                    break
                data, end = long, len(long)
            for line in data[:end].splitlines():
                self.lines += 1
                if self.lines == 1 and not _is_header_line(line):
                    return None
                event = read_record(self.lines, line, self.loaded)
                if event is not None:
                    event.index = self.events
                    self.events += 1
                    self.reducer.apply(event)
            self.offset += end
            read = True
        self.header = self.loaded.header
        return read


def _whole_line(fd: int, start: int, size: int) -> bytes | None:
    """A line longer than `CHUNK` from `start`, newline included, or None while unfinished."""
    parts: list[bytes] = []
    offset = start
    while offset < size:
        data = os.pread(fd, min(CHUNK, size - offset), offset)
        if not data:
            return None
        cut = data.find(b"\n")
        if cut >= 0:
            parts.append(data[: cut + 1])
            return b"".join(parts)
        parts.append(data)
        offset += len(data)
    return None


def _is_header_line(line: bytes) -> bool:
    try:
        return is_header(loads(line.removeprefix(b"\xef\xbb\xbf")))
    except ValueError:
        return False


@dataclass(slots=True)
class Tracked:
    """One file of the folder: what it looked like when last read, and its row."""

    path: Path
    size: int = -1
    mtime_ns: int = -1
    followed: Followed | None = None
    row: Row | None = None
    """None until its header is read (and for ever when it is no recording)."""
    foreign: bool = False
    """Its first line is not an mcptui header: left out until the file is replaced."""


class FolderWatch:
    """The recordings of one folder, kept up to date by `poll`."""

    def __init__(self, folder: Path, *, quiet: float = QUIET_SECONDS) -> None:
        self.folder = folder
        self.quiet = quiet
        self._files: dict[tuple[int, int], Tracked] = {}
        self.reads = 0
        """Files read (whole or their new lines) so far: what the polls cost beyond a stat."""

    def poll(self, now: float) -> bool:
        """Look at the folder once (`now`: seconds since the epoch, as file times are);
        True when a row appeared, changed or went. Raises OSError when the folder cannot be
        listed."""
        seen: set[tuple[int, int]] = set()
        changed = False
        with os.scandir(self.folder) as entries:
            for entry in entries:
                if not entry.name.endswith(SUFFIX):
                    continue
                try:
                    info = entry.stat()
                except OSError:
                    continue  # gone meanwhile, or a broken link
                if not stat.S_ISREG(info.st_mode):
                    continue
                key = (info.st_dev, info.st_ino)
                seen.add(key)
                changed |= self._look(key, Path(entry.path), info, now)
        for key in set(self._files) - seen:
            gone = self._files.pop(key)
            changed |= gone.row is not None
        return changed

    def rows(self) -> list[Row]:
        """The recordings, newest first (by when they began, then by name)."""
        found = [tracked.row for tracked in self._files.values() if tracked.row is not None]
        found.sort(key=lambda row: row.path.name, reverse=True)
        found.sort(key=lambda row: row.when, reverse=True)
        return found

    def _look(self, key: tuple[int, int], path: Path, info: os.stat_result, now: float) -> bool:
        tracked = self._files.get(key)
        if tracked is None:
            tracked = self._files[key] = Tracked(path)
        renamed = tracked.path != path
        tracked.path = path
        same = info.st_size == tracked.size and info.st_mtime_ns == tracked.mtime_ns
        growing = now - info.st_mtime < self.quiet
        if same:
            if tracked.row is None or tracked.followed is None:
                if renamed and tracked.row is not None:
                    tracked.row = _moved(tracked.row, path)
                return renamed and tracked.row is not None
            row = self._row(tracked, info, growing)  # the same bytes, perhaps quiet by now
            if not growing:
                tracked.followed = None  # settled: its row is all that is kept
            changed = row != tracked.row
            tracked.row = row
            return changed
        if tracked.foreign:
            return False
        if tracked.followed is None or info.st_size < tracked.followed.offset:
            tracked.followed = Followed()  # new, settled before, or cut short: from the start
        try:
            read = self._read(tracked.followed, path, info.st_size)
        except OSError:
            return False  # unreadable now: looked at again at its next change
        tracked.size, tracked.mtime_ns = info.st_size, info.st_mtime_ns
        if read is None:
            tracked.foreign, tracked.followed = True, None
            changed, tracked.row = tracked.row is not None, None
            return changed
        if tracked.followed.header is None:
            return False  # the header line is not whole yet
        row = self._row(tracked, info, growing)
        changed = row != tracked.row
        tracked.row = row
        if not growing:
            tracked.followed = None
        return changed

    def _read(self, followed: Followed, path: Path, size: int) -> bool | None:
        self.reads += 1
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            return followed.read_on(fd, size)
        finally:
            os.close(fd)

    @staticmethod
    def _row(tracked: Tracked, info: os.stat_result, growing: bool) -> Row:
        followed = tracked.followed
        assert followed is not None
        summary = summarize(followed.reducer.state, followed.events, growing=growing)
        return Row(tracked.path, _created(followed.header), summary, info.st_size, info.st_mtime)


def _moved(row: Row, path: Path) -> Row:
    return Row(path, row.started, row.summary, row.size, row.modified)


def _created(header: dict[str, object] | None) -> datetime | None:
    created = header.get("created") if header is not None else None
    if not isinstance(created, str):
        return None
    try:
        when = datetime.fromisoformat(created)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.astimezone()


def folder_problem(folder: str) -> str | None:
    """Why `folder` cannot be watched (missing, not a folder, not readable), or None."""
    path = Path(folder)
    try:
        info = path.stat()
    except FileNotFoundError:
        return "no such folder"
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder (give the folder recordings are written to)"
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as exc:
        return f"cannot list it: {exc.strerror or exc}"
    return None
