"""A live stream's connection gets room in the kernel for what the app has not read yet, so a
fast server is not held to the app's pace while the app parses (tui/mcptui/sources/live.py)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx2
from mcptui.sources.live import RECEIVE_BUFFER, widen_receive_buffer


def system_cap() -> int:
    """What Linux lets a process ask for (`net.core.rmem_max`), else no cap."""
    try:
        return int(Path("/proc/sys/net/core/rmem_max").read_text())
    except (OSError, ValueError):
        return RECEIVE_BUFFER


async def buffer_sizes() -> tuple[int, int]:
    """SO_RCVBUF of a real httpx2 stream's socket before and after widening it."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 2\r\n\r\nok"
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with (
        server,
        httpx2.AsyncClient() as client,
        client.stream("GET", f"http://127.0.0.1:{port}/") as response,
    ):
        sock = response.extensions["network_stream"].get_extra_info("socket")
        before = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        widen_receive_buffer(response)
        after = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        assert await response.aread() == b"ok"  # the stream still reads
    return before, after


def test_a_streams_socket_gets_room_for_what_the_app_has_not_read():
    before, after = asyncio.run(buffer_sizes())
    assert before < min(RECEIVE_BUFFER, system_cap())
    assert after >= min(RECEIVE_BUFFER, system_cap())


def test_a_response_without_a_socket_is_left_as_it_is():
    response = httpx2.Response(200, content=b"data: {}\n\n")  # e.g. a test's transport
    widen_receive_buffer(response)
    assert response.read() == b"data: {}\n\n"
