"""A recording's pieces, and a helper process that decodes their text deltas a piece ahead.

Decoding a text delta line (msgspec, the secret test, the item id kept once a run) is about
1.2 µs of the app's time, and a million-event recording is 97% such lines: more than the
whole of an instant replay's budget before its first screen. A second core can do it while
the app folds the piece before: the helper (`scan_ahead`, a spawned process) reads the file
a piece at a time and sends back, for each piece, its line offsets, the lines it did not
take, and the time, sequence number, item id and text of each delta it took; the app builds
their events from those lists in C (about 0.3 µs a delta, measured on bench/tui_open.py's
1M-event file) and reads every other line itself, exactly as before (tui/mcptui/io/indexed.py).

The helper takes a line only where the app's own reader would keep it as a plain text delta
(`decode_delta_record`, then `plain_delta`), save for the secrets the request names, which
the app learns as it reads (the header, a note) and checks each run of deltas against
(`RecordingReader._deltas`). Should the helper fail or die, the app reads on itself from the
first piece it did not get.
"""

from __future__ import annotations

import mmap
import os
from array import array
from collections.abc import Iterator
from itertools import accumulate, islice, repeat
from operator import add
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from mcptui.model.fast_read import (
    LITE_FAILURES,
    TEXT_DELTA,
    classified,
    decode_delta,
    decode_delta_record,
    decode_lite,
    decode_record,
    decoded,
    plain_delta,
)

if TYPE_CHECKING:  # multiprocessing loads with a helper (a big file): ~3 ms of a small start
    from multiprocessing.connection import Connection

BOM = b"\xef\xbb\xbf"
PIECE = 1 << 20
"""Bytes a reader (a recording's, a dump's) reads per `read` call (about 3k events, about
10 ms): the app reads one between frames."""
AHEAD_PIECE = 4 << 20
"""Bytes the helper reads at a time: about 12k events, 5 ms of the app's time to take. An
instant replay takes each piece as the helper sends it, the two a piece apart: 8 MB pieces
left each waiting on the other longer (first paint of bench/tui_open.py's 200k-event file
0.95-1.23 s against 0.89-0.97 s at 4 MB, 2 MB no better; 1M events 4.1-4.2 s against
3.5-3.7 s; alternating runs in one process)."""
AHEAD_AFTER = 32 << 20
"""Bytes left to read at which a helper is worth its start (a spawned interpreter's 50 ms of
the other core): about 100k events."""


class Pieces:
    """A file cut into pieces that end at a line's end (the file's last line may not)."""

    def __init__(self, fd: int, size: int, offset: int = 0) -> None:
        self.fd = fd
        self.size = size
        """Where the file ended when it was opened: reading stops there."""
        self.offset = offset
        """Bytes read so far (the next piece's bytes start here)."""
        self._rest = b""

    @property
    def cut_at(self) -> int:
        """Where the next piece starts: the end of the last whole line read."""
        return self.offset - len(self._rest)

    def seek(self, offset: int) -> None:
        """Go on from `offset`, a line's start (where another reader stopped)."""
        self.offset, self._rest = offset, b""

    @property
    def held(self) -> int:
        """Bytes read and not taken yet (the start of a line, or of a JSON value, cut off)."""
        return len(self._rest)

    def next(self, size: int) -> tuple[int, bytes, int, bool]:
        """The next piece: (where its text starts in the file, the text, where its last whole
        line ends in the text, whether it is the last piece). A BOM is blanked so that
        offsets stay the file's."""
        base, text, at_end = self.take(size)
        cut = len(text) if at_end else text.rfind(b"\n") + 1
        self.leave(text, cut)
        return base, text, cut, at_end

    def take(self, size: int) -> tuple[int, bytes, bool]:
        """`size` more bytes after those held: (where the text starts in the file, the text,
        whether it reaches the end). The caller says with `leave` where it stopped."""
        piece = os.pread(self.fd, size, self.offset)
        base = self.cut_at
        self.offset += len(piece)
        at_end = len(piece) < size or self.offset >= self.size
        text = self._rest + piece if self._rest else piece
        if base == 0 and text.startswith(BOM):
            text = b"   " + text[3:]
        return base, text, at_end

    def leave(self, text: bytes, cut: int) -> None:
        """`text` (from `take`) is used up to `cut`: the next piece starts there."""
        self._rest = text[cut:]


SEARCH_BLOCK = 256 << 10
"""Bytes searched at a time by `lines_holding`."""


def lines_holding(
    file: BinaryIO, needles: tuple[bytes, ...], longest: int | None = None
) -> Iterator[bytes | None]:
    """Each line of `file` that holds one of `needles` (once for each it holds), found by a
    byte search of the file mapped in memory, so that only those lines are decoded (read a
    block at a time, a 1M-event recording took 1.1 s of CPU before its first screen, 0.47 s
    mapped: no copy of each block, and no carry joined to the next; a big file is searched on
    both cores, tui/mcptui/io/byte_search.py). None stands for a line
    too long to search (over `longest`, 16 MB unless said): the caller reads the file its
    own way there. A BOM before the first line is dropped."""
    longest = LONGEST_SEARCHED if longest is None else longest
    try:
        view = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # empty, or a file that cannot be mapped
        yield from _lines_holding_by_blocks(file, needles, longest)
        return
    with view:
        first = len(BOM) if view[: len(BOM)] == BOM else 0
        found = None
        if len(view) >= SEARCHED_ON_TWO_CORES:
            from mcptui.io.byte_search import hits

            found = hits(file.fileno(), needles, first)
        for number, needle in enumerate(needles):
            offsets = iter(found[number]) if found is not None else None
            end = first  # where the line last taken ends: the search goes on from there
            while True:
                at = view.find(needle, end) if offsets is None else next(offsets, -1)
                if at < 0:
                    break
                if at < end:
                    continue  # a second hit of a line taken (byte_search.py's halves)
                start = max(view.rfind(b"\n", first, at) + 1, first)
                end = view.find(b"\n", at)
                end = len(view) if end < 0 else end
                yield None if end - start > longest else view[start:end]


SEARCHED_ON_TWO_CORES = 16 << 20
"""A file at least this big is searched by `byte_search.hits` (both cores, no GIL held):
below it, `mmap.find` takes under 10 ms and the threads and ctypes' import (2 ms) are not
worth it."""


LONGEST_SEARCHED = SEARCH_BLOCK * 64
"""A line longer than this is not searched (`lines_holding` says None)."""


def _lines_holding_by_blocks(
    file: BinaryIO, needles: tuple[bytes, ...], longest: int = 0
) -> Iterator[bytes | None]:
    """`lines_holding` of a file read a block at a time."""
    descriptor = file.fileno()
    size = os.fstat(descriptor).st_size
    offset = 0
    carry = b""
    while offset < size:
        block = carry + os.pread(descriptor, SEARCH_BLOCK, offset)
        if not offset and block.startswith(BOM):
            block = block[len(BOM) :]
        offset += SEARCH_BLOCK
        cut = block.rfind(b"\n") + 1 if offset < size else len(block)
        whole, carry = block[:cut], block[cut:]
        if len(carry) > (longest or LONGEST_SEARCHED):
            carry = b""
            yield None
        for needle in needles:
            at = whole.find(needle)
            while at >= 0:
                start = whole.rfind(b"\n", 0, at) + 1
                end = whole.find(b"\n", at)
                end = len(whole) if end < 0 else end
                yield whole[start:end]
                at = whole.find(needle, end)


def lines_of(text: bytes, cut: int) -> list[bytes]:
    """The lines of `text[:cut]` without their newlines (a piece from `Pieces.next`)."""
    rows = text[:cut].split(b"\n")
    if not rows[-1]:
        rows.pop()  # what the last newline ends (a line without one ends the file)
    return rows


def starts_of(rows: list[bytes], base: int) -> islice[int]:
    """Each row's offset in the file: the running sum of the lengths (newline included), in C."""
    return islice(accumulate(map(add, map(len, rows), repeat(1)), initial=base), len(rows))


class PieceScan(NamedTuple):
    """What the helper read of one piece."""

    base: int
    cut: int
    """The piece is the file's bytes `base .. base + cut`."""
    at_end: bool
    starts: bytes
    """Each line's offset (an `array("q")`'s bytes)."""
    others: list[int]
    """The lines (0 = the piece's first) that are not plain text deltas."""
    other_kinds: list[str | None]
    """Each other line's event type when it is read back when needed (`classified`, not a
    text delta: what no secret changes), None when the app must read the line itself (the
    header, a note, an odd line, anything that may nest deep)."""
    other_times: list[float | None]
    times: list[float | None]
    sequence_numbers: list[int]
    item_ids: list[str]
    """One string a run (pickled once a piece, so shared in the app too)."""
    deltas: list[str]


def scan_piece(base: int, text: bytes, cut: int, at_end: bool, bare: bool = False) -> PieceScan:
    """What `RecordingReader._rows` would keep of each line: a plain text delta (with no
    secrets known), the type of an event read back when needed, or nothing (it must read the
    line itself). The same calls in the same order, so the same verdicts. `bare`: each line
    is an event (a dump), with no time."""
    rows = lines_of(text, cut)
    others: list[int] = []
    kinds: list[str | None] = []
    other_times: list[float | None] = []
    times: list[float | None] = []
    numbers: list[int] = []
    item_ids: list[str] = []
    deltas: list[str] = []
    same = ""
    t: float | None = None
    for row, line in enumerate(rows):
        try:
            if bare:
                read = decode_delta(line)
            else:
                delta = decode_delta_record(line)
                read, t = delta.event, delta.t
        except LITE_FAILURES:
            pass
        else:
            if plain_delta(read, line):
                item_id = read.item_id
                if item_id == same:
                    item_id = same
                else:
                    same = item_id
                times.append(t)
                numbers.append(read.sequence_number)
                item_ids.append(item_id)
                deltas.append(read.delta)
                continue
        others.append(row)
        if bare:
            lite = decoded(decode_lite, line)
        else:
            record = decoded(decode_record, line)
            lite, t = (None, None) if record is None else (record.event, record.t)
        kind = None
        # A text delta's verdict depends on the secrets the app knows by then: the app's.
        if lite is not None and lite.type != TEXT_DELTA:
            kept = classified(lite, line)
            kind = None if kept is None else kept[0]
        kinds.append(kind)
        other_times.append(t)
    return PieceScan(
        base,
        cut,
        at_end,
        array("q", starts_of(rows, base)).tobytes(),
        others,
        kinds,
        other_times,
        times,
        numbers,
        item_ids,
        deltas,
    )


def scan_ahead(
    path: str, start: int, size: int, piece: int, connection: Connection, bare: bool = False
) -> None:
    """The helper: send a `PieceScan` of each piece of `path` from `start` (a line's start)
    to `size` bytes. Any failure ends it, and the app reads on itself."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            pieces = Pieces(fd, size, start)
            at_end = False
            while not at_end:
                base, text, cut, at_end = pieces.next(piece)
                connection.send(scan_piece(base, text, cut, at_end, bare))
        finally:
            os.close(fd)
    except BaseException:  # any end is the end: the app sees the pipe
        pass  # close and reads on itself (a traceback would land on the app's screen)
    finally:
        connection.close()


class Ahead:
    """The app's end of a helper: the pieces it scanned, in order."""

    def __init__(
        self, path: str, start: int, size: int, piece: int = AHEAD_PIECE, *, bare: bool = False
    ) -> None:
        from mcptui.io.child_process import pipe, start_child

        self._receiver, sender = pipe()
        try:
            self._process = start_child(
                scan_ahead, (path, start, size, piece, sender, bare), "mcptui-reader"
            )
        except BaseException:
            self._receiver.close()
            raise
        finally:
            sender.close()

    def ready(self) -> bool:
        """Whether `next` would answer at once (a piece, or the end of a helper that failed)."""
        try:
            return self._receiver.poll()
        except (EOFError, OSError):
            return True

    def next(self) -> PieceScan | None:
        """The next piece's scan; None when the helper ended without it (it is stopped)."""
        try:
            scan = self._receiver.recv()
        except (EOFError, OSError):
            scan = None
        if not isinstance(scan, PieceScan):
            self.close()
            return None
        return scan

    def close(self) -> None:
        """Stop the helper (a daemon: quitting the app never waits for it either)."""
        if self._process.is_alive():
            self._process.terminate()
        self._receiver.close()


def may_start_helper() -> bool:
    """Whether this process may start a helper: not from a helper or a child (a daemon
    process may not start one)."""
    import multiprocessing

    return not multiprocessing.current_process().daemon and (
        multiprocessing.parent_process() is None
    )
