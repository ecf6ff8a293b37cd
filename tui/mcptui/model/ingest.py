"""Bytes off the wire to timeline events: SSE framing, JSON, and notes for what is broken.

Live runs and benchmarks share this path. A `data:` payload that is not JSON becomes a visible
`malformed` note instead of an exception, and `[DONE]` markers are skipped.

Long streams allocate hundreds of thousands of small dicts that live as long as the session;
Python's cyclic garbage collector would rescan them over and over (measured: a third of the
ingest time at 200k events). Every `FREEZE_EVERY` events the ingester moves what exists to the
permanent generation with `gc.freeze()`; reference counting still frees anything dropped.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mcptui.model.events import Event, note
from mcptui.model.fast_read import (
    LITE_FAILURES,
    SHALLOW_DELTA,
    TEXT_DELTA,
    classified,
    decode_delta,
    decode_lite,
    decoded,
)
from mcptui.model.jsonsafe import loads
from mcptui.model.sse import SSEDecoder, SSEMessage, parse_sse

FREEZE_EVERY = 20_000


def regular_blocks(lines: list[bytes], n: int) -> bool:
    """Whether the lines of `n` blocks are `event: X`, `data: {...}`, blank, n times over: the
    API's shape. Checked on whole columns in C: strings between two that share a prefix in
    sort order share it too, so each column's min and max decide."""
    blank, events, data = lines[2::3], lines[0 : 3 * n : 3], lines[1::3]
    return (
        max(blank) == b""
        and min(events).startswith(b"event:")
        and max(events).startswith(b"event:")
        and min(data).startswith(b"data: ")
        and max(data).startswith(b"data: ")
    )


class StreamIngester:
    """Feed it chunks of an SSE body; get back events stamped with their arrival time.

    Bytes take a fast path while the stream is as the API sends it (`event: X` / `data: {...}`
    blocks, LF line ends): blocks are split on bytes, never decoded to text as a whole, and
    each payload is read by mcptui/model/fast_read.py. A block of any other shape is parsed by the
    general SSE parser; a CR, or a block larger than the limit, hands the rest of the stream to
    `SSEDecoder` (the reference parser), from where the fast path stopped.
    """

    def __init__(
        self, clock: Callable[[], float] | None = None, start: float | None = None
    ) -> None:
        self._decoder = SSEDecoder()
        self._clock = clock
        self._start = start if start is not None else (clock() if clock else None)
        self._since_freeze = 0
        self._fast = True
        self._open: list[bytes] = []
        """Bytes of the block still open (joined once it ends, as SSEDecoder does)."""
        self._open_size = 0
        self._line_no = 1

    def _now(self) -> float | None:
        if self._clock is None or self._start is None:
            return None
        return self._clock() - self._start

    def feed(self, chunk: bytes | str) -> list[Event]:
        if self._fast and type(chunk) is bytes:
            return self._frozen(self._feed_bytes(chunk))
        before = self._hand_over(b"") if self._fast else []
        return self._frozen(before + self._convert(self._decoder.feed(chunk)))

    def finish(self) -> list[Event]:
        before = self._hand_over(b"") if self._fast else []
        return self._frozen(before + self._convert(self._decoder.finish()))

    def _hand_over(self, chunk: bytes) -> list[Event]:
        """Leave the fast path for good: the reference parser takes the open block on."""
        self._fast = False
        self._decoder.set_line(self._line_no)
        pending = b"".join(self._open) + chunk
        self._open.clear()
        return self._convert(self._decoder.feed(pending)) if pending else []

    def _feed_bytes(self, chunk: bytes) -> list[Event]:
        if b"\r" in chunk:
            return self._hand_over(chunk)
        opened = self._open
        if b"\n\n" not in chunk and not (
            chunk[:1] == b"\n" and opened and opened[-1][-1:] == b"\n"
        ):
            opened.append(chunk)  # still inside a block: no join, no rescan
            self._open_size += len(chunk)
            if self._open_size > self._decoder.max_block:
                return self._hand_over(b"")
            return []
        if opened:
            opened.append(chunk)
            chunk = b"".join(opened)
            opened.clear()
        end = chunk.rfind(b"\n\n") + 2
        if end < len(chunk):
            opened.append(chunk[end:])
        self._open_size = len(chunk) - end
        body = chunk[:end]
        t = self._now()
        line_no = self._line_no
        lines = body.split(b"\n")
        n = len(lines) // 3
        if n and len(lines) == 3 * n + 1 and regular_blocks(lines, n):
            self._line_no = line_no + 3 * n
            return self._payload_events([line[6:] for line in lines[1::3]], t, line_no, 3)
        out: list[Event] = []
        for block in body[:-2].split(b"\n\n"):
            newline = block.find(b"\n")
            if (
                newline > 0
                and block.startswith(b"event:")
                and block.startswith(b"data:", newline + 1)
                and block.find(b"\n", newline + 1) < 0
            ):
                start = newline + 6
                payload = block[start + 1 :] if block[start : start + 1] == b" " else block[start:]
                out.extend(self._payload_events([payload], t, line_no, 3))
            elif newline < 0 and block.startswith(b"data:"):
                payload = block[6:] if block[5:6] == b" " else block[5:]
                out.extend(self._payload_events([payload], t, line_no, 2))
            elif block:
                out.extend(
                    self._convert(parse_sse(block.decode("utf-8", "replace"), first_line=line_no))
                )
            line_no += block.count(b"\n") + 2
        self._line_no = line_no
        return out

    def _payload_events(
        self, payloads: list[bytes], t: float | None, line_no: int, lines: int
    ) -> list[Event]:
        """Events of `data:` payloads `lines` lines apart, read by msgspec where it can."""
        out: list[Event] = []
        append = out.append
        for payload in payloads:
            try:
                delta = decode_delta(payload)
            except LITE_FAILURES:
                pass  # not a text delta (or an odd one): read as a `Lite` below
            else:
                text = delta.delta  # `plain_delta`, inlined: most events of every stream
                if (
                    not ("sk-" in text or "://" in text or "earer" in text or "Basic" in text)
                    and len(payload) - len(text) - len(delta.item_id) <= SHALLOW_DELTA
                ):
                    append(Event(None, 0, t, line_no, False, None, payload, TEXT_DELTA, delta))
                    line_no += lines
                    continue
            lite = decoded(decode_lite, payload)
            read = None if lite is None else classified(lite, payload)
            if read is None:
                out.extend(
                    self._convert([SSEMessage(payload.decode("utf-8", "replace"), line=line_no)])
                )
            else:
                append(Event(None, 0, t, line_no, False, None, payload, *read))
            line_no += lines
        return out

    def _frozen(self, events: list[Event]) -> list[Event]:
        self._since_freeze += len(events)
        if self._since_freeze >= FREEZE_EVERY:
            self._since_freeze = 0
            gc.freeze()
        return events

    def _convert(self, messages: list[SSEMessage]) -> list[Event]:
        if not messages:
            return []
        t = self._now()
        out: list[Event] = []
        for message in messages:
            if message.error is not None:
                out.append(note("malformed", message.error, t, level="warning", line=message.line))
                continue
            data = message.data
            try:
                raw = loads(data)
            except ValueError as exc:
                if data.startswith("[DONE]"):
                    continue
                out.append(
                    note(
                        "malformed",
                        f"SSE data is not JSON ({exc}): {data[:200]!r}",
                        t,
                        level="warning",
                        line=message.line,
                    )
                )
                continue
            if type(raw) is not dict:
                out.append(
                    note(
                        "malformed",
                        f"SSE data is not a JSON object: {data[:200]!r}",
                        t,
                        level="warning",
                        line=message.line,
                    )
                )
                continue
            out.append(Event(raw, t=t, line=message.line))
        return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Load a whole file without the cyclic collector rescanning what is being built."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
