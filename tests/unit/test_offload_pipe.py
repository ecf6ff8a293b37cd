"""The pipe to the recorder child (tui/mcptui/capture/offload.py): whatever does not fit goes
later, in order, whole, whether the loop drains it as the child reads or closing writes it."""

from __future__ import annotations

import asyncio
import itertools
import os
import pickle
import threading
from multiprocessing import Pipe
from pathlib import Path
from typing import Any

import pytest
from mcptui.capture.offload import (
    LENGTH,
    PIPE_SIZE,
    OffloadedHub,
    ProxySpec,
    _Pipe,
    polled_steps,
)


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


def bare_hub(sending: Any) -> tuple[OffloadedHub, list[bytes], list[str]]:
    """An OffloadedHub on a plain pipe, no child: what it writes, and what it tells."""
    hub = object.__new__(OffloadedHub)
    hub._pipe = _Pipe(sending)
    hub._batch = []
    hub._told = False
    hub._keys = 0
    hub.wanted = ProxySpec("http://127.0.0.1:9/v1", Path("."), 0.0, None).wanted
    told: list[str] = []
    hub.on_problem = told.append
    writes: list[bytes] = []
    write = hub._pipe.write

    def counted(data: bytes) -> None:
        writes.append(data)
        write(data)

    hub._pipe.write = counted  # type: ignore[method-assign]
    return hub, writes, told


def steps_in(data: bytes) -> list[tuple[Any, ...]]:
    steps = []
    while data:
        (size,) = LENGTH.unpack(data[: LENGTH.size])
        steps.append(pickle.loads(data[LENGTH.size : LENGTH.size + size]))
        data = data[LENGTH.size + size :]
    return steps


async def test_the_steps_of_one_turn_go_in_one_write_in_order() -> None:
    receiving, sending = Pipe(duplex=False)
    hub, writes, _ = bare_hub(sending)
    hub.post("b", 1, 200, {})
    hub.post("f", 1, b"data")
    hub.post("e", 1, None)
    assert writes == []  # at the turn's end
    await asyncio.sleep(0)
    assert len(writes) == 1
    steps = steps_in(writes[0])
    assert [(s[0], s[1], *s[3:]) for s in steps] == [
        ("b", 1, 200, {}),
        ("f", 1, b"data"),
        ("e", 1, None),
    ]
    assert steps[0][2] <= steps[1][2] <= steps[2][2]  # stamped when posted
    hub.post("x", 2, "POST", "/mcp", "/mcp", b"{}", [])
    hub.close()  # what is still queued goes before the pipe closes
    got = bytearray()
    read_all(receiving.fileno(), got)
    assert [s[0] for s in steps_in(bytes(got))] == ["b", "f", "e", "x"]


async def test_a_recorder_gone_is_told_once_and_the_relay_goes_on() -> None:
    receiving, sending = Pipe(duplex=False)
    hub, _, told = bare_hub(sending)
    receiving.close()  # the child died
    hub.post("f", 1, b"data")
    await asyncio.sleep(0)  # the write fails: told, nothing raised on the loop
    assert len(told) == 1 and "the recorder process stopped" in told[0]
    with pytest.raises(OSError):
        hub.post("f", 1, b"more")  # the relay's recording of this exchange stops
    assert (
        hub.exchange_for("POST", "/v1/responses", "/v1/responses", b"{}", []) is not None
    )  # never raises
    await asyncio.sleep(0)
    assert len(told) == 1


def test_the_recorder_reads_every_step_whole_however_the_writes_cut_them() -> None:
    """The child's reader (`polled_steps`): a step cut across writes, many in one write, one
    larger than the pipe's buffer; all read whole and in order, the last once the pipe closes."""
    receiving, sending = Pipe(duplex=False)
    steps = [("f", n, 0.0, bytes([n % 251]) * (1 + (n * 7919) % 3000)) for n in range(300)]
    steps.append(("f", 300, 0.0, b"x" * (3 * PIPE_SIZE)))
    steps.append(("e", 300, 0.0, None))
    data = b"".join(
        LENGTH.pack(len(blob)) + blob for blob in (pickle.dumps(s, protocol=5) for s in steps)
    )
    cuts = [0, 1, 3, 5000, 5001, 90000, len(data) // 2, len(data) - 2, len(data)]

    def write() -> None:
        fd = sending.fileno()
        for start, end in itertools.pairwise(cuts):
            view = memoryview(data)[start:end]
            while view:
                view = view[os.write(fd, view) :]
        sending.close()

    writer = threading.Thread(target=write)
    writer.start()
    got = list(polled_steps(receiving, poll=0.001))
    writer.join(10)
    assert got == steps
