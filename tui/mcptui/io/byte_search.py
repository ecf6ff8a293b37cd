"""Where needles are in a big mapped file, searched on both cores: libc's `memmem` through
ctypes, which lets go of the GIL while it searches.

Why: before the first screen of a recording or a dump, the whole file is searched for the lines
that name secrets (`read_ahead.lines_holding`), two needles in a 340 MB, 1M-event recording.
`mmap.find` holds the GIL: the two searches took 0.28-0.34 s one after the other, the most of
that file's first paint. `memmem` alone took 0.10-0.12 s a needle, and the two in two threads
0.145 s for both (`bench/dumps.py --events 1000000 --paint-only` times the whole first paint).
Each needle's search is cut in two halves, so one needle (an SSE dump's) uses both cores too.

Where there is no `memmem` (no C library found, a mapping that cannot be written privately),
`hits` says None and the caller searches with `mmap.find` as before.
"""

from __future__ import annotations

import ctypes
import mmap
import threading
from array import array
from collections.abc import Callable
from typing import Any

SearchFn = Callable[..., Any]


def _libc() -> tuple[SearchFn, SearchFn] | None:
    try:
        libc = ctypes.CDLL(None)
        memmem, memchr = libc.memmem, libc.memchr
    except (OSError, AttributeError):
        return None
    memmem.restype = ctypes.c_void_p
    memmem.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
    memchr.restype = ctypes.c_void_p
    memchr.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)
    return memmem, memchr


_FOUND = _libc()


def hits(fd: int, needles: tuple[bytes, ...], first: int) -> list[array[int]] | None:
    """For each needle, the offsets of its first hit in each line of the file open at `fd`
    (from `first` on), in order; None when this search is not to be had here."""
    if _FOUND is None or not needles or any(not needle for needle in needles):
        return None
    try:
        # A private mapping: ctypes wants a writable buffer to give its address. Nothing is
        # written, so no page is ever copied.
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):
        return None
    anchor = ctypes.c_char.from_buffer(view)
    found = _search_all(anchor, len(view), needles, first)
    del anchor  # the mapping cannot close while its buffer is lent
    view.close()
    return found


def _search_all(
    anchor: ctypes.c_char, size: int, needles: tuple[bytes, ...], first: int
) -> list[array[int]]:
    """Each needle's hits, its two halves searched by this thread and a helper thread. The
    helper holds `anchor` (and so the mapping) while it searches: should this thread stop
    early (Ctrl+C), the file stays mapped until the helper is done with it."""
    base = ctypes.addressof(anchor)
    middle = first + (size - first) // 2
    tasks = [
        (number, start, end)
        for number in range(len(needles))
        for start, end in ((first, middle), (middle, size))
    ]
    found: dict[tuple[int, int, int], array[int]] = {}

    def work(_held: ctypes.c_char) -> None:
        while True:
            try:
                task = tasks.pop()  # atomic: the two threads never take the same task
            except IndexError:
                return
            number, start, end = task
            found[task] = _search(base, size, needles[number], start, end)

    helper = threading.Thread(target=work, args=(anchor,), name="mcptui-byte-search", daemon=True)
    helper.start()
    work(anchor)
    helper.join()
    return [
        found[(number, first, middle)] + found[(number, middle, size)]
        for number in range(len(needles))
    ]


def _search(base: int, size: int, needle: bytes, start: int, end: int) -> array[int]:
    """The hits of `needle` that begin in `start .. end`, one a line (the search goes on after
    each hit's line): a hit at the end of the first half's last line may repeat a line the
    second half also finds; the caller skips hits inside a line it has taken."""
    assert _FOUND is not None
    memmem, memchr = _FOUND
    out = array("q")
    at = start
    reach = min(end + len(needle) - 1, size)  # a needle that begins before `end`
    while at < end:
        hit = memmem(base + at, reach - at, needle, len(needle))
        if not hit:
            break
        offset = hit - base
        out.append(offset)
        newline = memchr(base + offset, 10, size - offset)
        if not newline:
            break
        at = newline - base
    return out
