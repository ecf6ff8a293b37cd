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

from tui.model.events import Event, note
from tui.model.jsonsafe import loads
from tui.model.sse import SSEDecoder, SSEMessage

FREEZE_EVERY = 20_000


class StreamIngester:
    """Feed it chunks of an SSE body; get back events stamped with their arrival time."""

    def __init__(self, clock: Callable[[], float] | None = None, start: float | None = None
                 ) -> None:
        self._decoder = SSEDecoder()
        self._clock = clock
        self._start = start if start is not None else (clock() if clock else None)
        self._since_freeze = 0

    def _now(self) -> float | None:
        if self._clock is None or self._start is None:
            return None
        return self._clock() - self._start

    def feed(self, chunk: bytes | str) -> list[Event]:
        return self._convert(self._decoder.feed(chunk))

    def finish(self) -> list[Event]:
        return self._convert(self._decoder.finish())

    def _convert(self, messages: list[SSEMessage]) -> list[Event]:
        if not messages:
            return []
        t = self._now()
        out: list[Event] = []
        for message in messages:
            if message.error is not None:
                out.append(note("malformed", message.error, t, level="warning",
                                line=message.line))
                continue
            data = message.data
            try:
                raw = loads(data)
            except ValueError as exc:
                if data.startswith("[DONE]"):
                    continue
                out.append(note("malformed", f"SSE data is not JSON ({exc}): {data[:200]!r}", t,
                                level="warning", line=message.line))
                continue
            if type(raw) is not dict:
                out.append(note("malformed", f"SSE data is not a JSON object: {data[:200]!r}", t,
                                level="warning", line=message.line))
                continue
            out.append(Event(raw, t=t, line=message.line))
        self._since_freeze += len(out)
        if self._since_freeze >= FREEZE_EVERY:
            self._since_freeze = 0
            gc.freeze()
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
