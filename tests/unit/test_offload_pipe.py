"""The pipe to the recorder child (tui/mcptui/capture/offload.py): whatever does not fit goes
later, in order, whole, whether the loop drains it as the child reads or closing writes it."""

from __future__ import annotations

import asyncio
import threading
from multiprocessing import Pipe

from mcptui.capture.offload import _Pipe


def pieces() -> list[bytes]:
    """About 6 MB in pieces of many sizes: far more than the pipe holds."""
    return [bytes([n % 251]) * (1 + (n * 7919) % 20000) for n in range(600)]


def read_all(fd: int, into: bytearray) -> None:
    import os

    while chunk := os.read(fd, 65536):
        into += chunk


async def test_what_does_not_fit_is_drained_in_order_as_the_reader_reads() -> None:
    receiving, sending = Pipe(duplex=False)
    pipe = _Pipe(sending)
    sent = pieces()
    for piece in sent:
        pipe.write(piece)
    assert pipe.pending  # the pipe was full: the rest waits
    got = bytearray()
    reader = threading.Thread(target=read_all, args=(receiving.fileno(), got))
    reader.start()
    while pipe.pending:  # the loop writes as the reader makes room
        await asyncio.sleep(0.01)
    pipe.close()
    reader.join(10)
    assert bytes(got) == b"".join(sent)


def test_closing_writes_everything_still_pending_in_order() -> None:
    receiving, sending = Pipe(duplex=False)
    pipe = _Pipe(sending)
    sent = pieces()

    async def write() -> None:
        for piece in sent:
            pipe.write(piece)

    asyncio.run(write())  # the loop is gone before anything was drained
    assert pipe.pending
    got = bytearray()
    reader = threading.Thread(target=read_all, args=(receiving.fileno(), got))
    reader.start()
    pipe.close()
    reader.join(10)
    assert bytes(got) == b"".join(sent)
