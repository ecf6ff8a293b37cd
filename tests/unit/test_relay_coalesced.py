"""The relay's coalescing reader: chunks that arrived together go on as one, and what broke
the upstream's stream is raised after the bytes that came before it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcptui.capture.relay import _Coalesced


async def upstream(*parts: bytes, broken: Exception | None = None) -> AsyncIterator[bytes]:
    for part in parts:
        yield part
    if broken is not None:
        raise broken


async def read_all_in(chunks: AsyncIterator[bytes]) -> _Coalesced:
    """A reader whose upstream has been read to its end (all of it queued)."""
    coalesced = _Coalesced(chunks)
    await coalesced._reader
    return coalesced


async def test_chunks_that_arrived_together_come_out_as_one_then_the_end() -> None:
    coalesced = await read_all_in(upstream(b"data: 1\n\n", b"data: 2\n\n"))
    assert await coalesced.next() == b"data: 1\n\ndata: 2\n\n"
    assert await coalesced.next() is None
    assert await coalesced.next() is None


async def test_a_break_is_raised_after_the_bytes_before_it() -> None:
    coalesced = await read_all_in(upstream(b"data: 1\n\n", broken=OSError("reset")))
    assert await coalesced.next() == b"data: 1\n\n"
    with pytest.raises(OSError, match="reset"):
        await coalesced.next()
    with pytest.raises(OSError, match="reset"):
        await coalesced.next()


async def test_a_break_before_any_bytes_is_raised_at_once() -> None:
    coalesced = await read_all_in(upstream(broken=ConnectionError("refused")))
    with pytest.raises(ConnectionError, match="refused"):
        await coalesced.next()
