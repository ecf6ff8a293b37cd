"""Run a pure function in a child process and await its result.

Diagnosing a 200k-event file takes about a second of CPU. In a thread it would hold the GIL
against the UI's own stepping (measured: p95 step latency 26 → 32 ms while it runs, plus gen-2
collections over its temporary state); a child process costs the UI nothing but the unpickling
of a small result. The child is a daemon, so quitting never waits for it, and cancelling the
awaiting task stops it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import types
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")


def _run(
    connection: Connection,
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    try:
        connection.send((True, function(*args, **kwargs)))
    except BaseException as exc:  # report, never hang the parent
        connection.send((False, f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


class ChildFailed(Exception):
    """The function raised in the child, or the child died."""


def start_child(
    target: Callable[..., Any], args: tuple[Any, ...], name: str
) -> multiprocessing.process.BaseProcess:
    """Start `target(*args)` in a fresh (spawned) daemon process; all must be picklable."""
    context = multiprocessing.get_context("spawn")  # never fork a process with threads
    process = context.Process(target=target, args=args, daemon=True, name=name)
    # Textual swaps sys.stderr for a capture whose fileno() is no descriptor, and the
    # resource tracker that spawning starts passes sys.stderr.fileno() on: it refused with
    # "bad value(s) in fds_to_keep" in a real terminal (never under the headless tests).
    captured, sys.stderr = sys.stderr, sys.__stderr__ or sys.stderr
    # Spawning imports the parent's main script again in the child (as `__mp_main__`), for
    # functions defined there; every target here lives in a module of its own, imported by
    # name. A host script's imports are not the child's to pay: under bench/tui_open.py the
    # reading helper's first piece came 320 ms after its start, the child importing the
    # bench, Textual and the app first (0.44 s against 0.07 s for the helper's own module).
    host, sys.modules["__main__"] = sys.modules.get("__main__"), _NO_MAIN
    try:
        process.start()
    finally:
        sys.stderr = captured
        if host is not None:
            sys.modules["__main__"] = host
    return process


_NO_MAIN = types.ModuleType("__main__")
"""A main module with no file and no spec: a spawned child imports none."""


def pipe() -> tuple[Connection, Connection]:
    """A one-way pipe to a child started by `start_child`: (receiving end, sending end)."""
    return multiprocessing.get_context("spawn").Pipe(duplex=False)


async def in_child(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`function(*args, **kwargs)` in a fresh (spawned) process; all must be picklable."""
    receiver, sender = pipe()
    process = start_child(_run, (sender, function, args, kwargs), "mcptui-child")
    sender.close()
    loop = asyncio.get_running_loop()
    try:
        ok, value = await loop.run_in_executor(None, _receive, receiver)
    finally:
        if process.is_alive():
            process.terminate()  # cancelled: the blocked receive ends with EOFError
        receiver.close()
    if not ok:
        raise ChildFailed(value)
    return value


def _receive(receiver: Connection) -> tuple[bool, Any]:
    try:
        return receiver.recv()
    except (EOFError, OSError) as exc:
        return False, f"the child process ended without an answer ({type(exc).__name__})"
