"""Read an input file with bounds: a size limit, and a timeout for special files.

`/dev/zero` or an endless FIFO grew memory by gigabytes a second, a FIFO with no writer
blocked forever, and one that dripped a byte every 5 s was read forever. A regular file larger
than the limit is refused before reading; anything else (a FIFO, a device, standard input) is
read in chunks up to the limit until its end, and given up when `wait` seconds pass with less
than `TRICKLE` bytes read: nothing at all, or a drip.
"""

from __future__ import annotations

import array
import fcntl
import os
import select
import stat
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path

MAX_BYTES = 256 << 20
"""Default input limit (256 MiB; `--max-bytes` raises it). A 200k-event stream is ~50 MB."""
WAIT_ENV = "MCPTUI_INPUT_WAIT"


WAIT_SECONDS = 10.0
"""How long a FIFO or device may keep us waiting for its next bytes (`MCPTUI_INPUT_WAIT` sets
another, for tests)."""


def wait_seconds() -> float:
    """`WAIT_SECONDS`, or `MCPTUI_INPUT_WAIT` when it holds a usable number; read at each call,
    not at import, so a process forked after the import still follows its own environment."""
    try:
        seconds = float(os.environ.get(WAIT_ENV, ""))
    except ValueError:
        return WAIT_SECONDS
    return seconds if 0 < seconds < 1e6 else WAIT_SECONDS


TRICKLE = 256
"""Fewer bytes than this in `wait` seconds is no progress: the read is given up."""
CHUNK = 1 << 20


class InputError(Exception):
    """The input cannot be read within its bounds; the message says why, for a user."""


def size_text(count: int) -> str:
    return f"{count / (1 << 20):.1f} MB" if count >= 1 << 20 else f"{count:,} bytes"


def too_big(name: str, limit: int) -> InputError:
    return InputError(
        f"{name} is larger than --max-bytes {limit:,} ({size_text(limit)}): "
        "pass a larger --max-bytes to read it"
    )


def read_source(path: str, max_bytes: int = MAX_BYTES, what: str = "a recording") -> bytes:
    """`read_bounded`, with every failure an InputError that says why in one line (`what`:
    the kind of file expected, for a directory)."""
    try:
        return read_bounded(path, max_bytes)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_bounded(path: str, max_bytes: int = MAX_BYTES, wait: float | None = None) -> bytes:
    """The bytes of `path` (`-` for standard input), a FIFO given up after `wait` seconds
    without progress (None: `wait_seconds()`). Raises FileNotFoundError, IsADirectoryError
    and other OSErrors as `open` does, InputError past the bounds."""
    if wait is None:
        wait = wait_seconds()
    if path == "-":
        return _read_stdin(max_bytes, wait)
    info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(path)
    if stat.S_ISREG(info.st_mode):
        if info.st_size > max_bytes:
            raise too_big(f"{path} ({size_text(info.st_size)})", max_bytes)
        with open(path, "rb") as file:  # read(n) reserves n bytes: ask for what is there
            data = file.read(min(info.st_size, max_bytes) + 1)
            if len(data) > info.st_size:  # it grew since
                data += file.read(max_bytes + 1 - len(data))
        if len(data) > max_bytes:  # it grew since
            raise too_big(path, max_bytes)
        return data
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return _read_stream(descriptor, path, max_bytes, wait)
    finally:
        os.close(descriptor)


def _read_stdin(max_bytes: int, wait: float) -> bytes:
    """A pipe or terminal is read like a FIFO; a redirected file (or a stand-in without a
    descriptor) is read directly, up to the limit."""
    buffer = sys.stdin.buffer
    try:
        descriptor: int | None = buffer.fileno()
    except (OSError, ValueError):
        descriptor = None
    if descriptor is None or stat.S_ISREG(os.fstat(descriptor).st_mode):
        data = buffer.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise too_big("standard input", max_bytes)
        return data
    return _read_stream(descriptor, "standard input", max_bytes, wait)


def _read_stream(descriptor: int, name: str, max_bytes: int, wait: float) -> bytes:
    """Chunks until end of file; given up when a window of `wait` seconds brings fewer than
    `TRICKLE` bytes (nothing, or a drip that would never end)."""
    if stat.S_ISFIFO(os.fstat(descriptor).st_mode) and not _data_within(descriptor, wait):
        # Opened without a writer, a FIFO reads as end-of-file at once: wait for bytes.
        raise InputError(
            f"{name}: nothing was written to it in {wait:g} s (a FIFO with no writer?)"
        )
    chunks: list[bytes] = []
    total = 0
    window_end, window_start_total = time.monotonic() + wait, 0
    while True:
        left = window_end - time.monotonic()
        if left <= 0:
            if total - window_start_total < TRICKLE:
                raise _stalled(name, total, total - window_start_total, wait)
            window_end, window_start_total = time.monotonic() + wait, total
            continue
        ready, _, _ = select.select([descriptor], [], [], left)
        if not ready:
            continue  # the window is over: judged above
        try:
            chunk = os.read(descriptor, min(CHUNK, max_bytes + 1 - total))
        except BlockingIOError:
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise too_big(name, max_bytes)


def _stalled(name: str, total: int, recent: int, wait: float) -> InputError:
    if total == 0:
        return InputError(f"{name}: no data in {wait:g} s (a pipe nobody writes to?)")
    if recent == 0:
        return InputError(
            f"{name}: no more data after {size_text(total)} in {wait:g} s "
            "(a pipe nobody writes to?)"
        )
    return InputError(
        f"{name}: only {recent:,} bytes in the last {wait:g} s after "
        f"{size_text(total)}: given up (a pipe that never ends?)"
    )


def _data_within(descriptor: int, wait: float) -> bool:
    """Whether bytes are waiting in a FIFO within `wait` seconds (polled: `select` says a
    writerless FIFO is readable, at end-of-file)."""
    deadline = time.monotonic() + wait
    available = array.array("i", [0])
    while True:
        try:
            fcntl.ioctl(descriptor, termios.FIONREAD, available, True)
        except OSError:
            return True  # cannot tell: read and see
        if available[0] > 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def overwrites_input(output: str | None, inputs: Sequence[str]) -> str | None:
    """The input that writing to `output` would destroy (a report written over the recording
    it reports on), or None. `-` (standard output) never does."""
    if not output or output == "-":
        return None
    target = Path(output)
    for source in inputs:
        if source == "-":
            continue
        try:
            if target.exists() and target.samefile(source):
                return source
        except OSError:
            continue
    return None


def output_problem(output: str, flag: str) -> str | None:
    """Why nothing can be written at `output` (given with `flag`), said before any work: no
    name, its folder is a file, it is a folder, or a pipe or socket that would block until
    something reads it. A device such as /dev/null is fine."""
    if output == "":
        return f"{flag} needs a file name" + (" (or - for standard output)" if flag == "-o" else "")
    target = Path(output)
    for folder in (target.parent, *target.parent.parents):
        if folder.exists():
            if not folder.is_dir():
                return f"{folder} is a file, not a folder"
            break
    if target.is_dir():
        return "it is a folder: name a file in it"
    try:
        mode = target.stat().st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "it is a pipe or socket, which would block until something reads it"
    return None
