"""`mcptui proxy --no-tui`: the recording in a process of its own, off the relay's path. (The
tap, whose exchanges are short and one at a time, records in its relay's process while the
relay waits for the server: tui/mcptui/capture/deferred.py. The measures below that name the
tap were taken when it recorded here.)

Recording in the relay's process cost it 3 ms of CPU per short streamed request (parsing each
event, redacting, writing; the file's creation, header and rename) against 2.1 ms for relaying
it, and every stream the app had open waited while it ran: with 8 concurrent clients the proxy
took 0.25-0.36x of direct's requests/s, 0.76-1.0x with recording switched off (bench/proxy.py).

So the relay's process only hands each step of each exchange (its request, the answer's start,
each chunk, its end: tui/mcptui/capture/steps.py) to a recorder child, as one pickled message
on a pipe, in order and stamped with the relay's clock. The child runs the same hub and printer
on those steps with that clock: the recording is the one the relay's process would have
written, times included. It runs on the CPU nobody else wants (`Priority`), so under load it
lags and catches up.

Nothing is dropped on the way: a full pipe is buffered in the relay's memory, up to
`MAX_BACKLOG`, past which the relay waits for the child rather than drop a step. On Ctrl+C the
child ignores the signal (the terminal sends it to both) and exits only once the relay has
closed the pipe and every step sent is recorded. A child that died is told once on the
console; the app's traffic goes on.

The terminal UI keeps its hub in its own process: it shows each entry as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import struct
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from mcptui.capture.captures import CaptureHub, classify
from mcptui.capture.steps import Replay, StepHub
from mcptui.io.child_process import pipe, start_child

MAX_BACKLOG = 64 * 1024 * 1024
"""Bytes of steps the relay holds for a child that lags; past it the relay waits for it."""
PIPE_SIZE = 1024 * 1024
"""The pipe's own buffer (Linux's default is 64 KB): fewer times the relay finds it full."""
LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class ProxySpec:
    """What the recorder child needs to build the proxy's hub and printer."""

    upstream: str
    record_dir: Path
    start: float
    """The relay's clock when it started: the hub's start."""
    console_width: int | None
    otlp: tuple[str, float] | None = None
    """`--otlp`: the traces URL and the export timeout; the child sends the spans."""

    def wanted(self, method: str, path: str) -> bool:
        return classify(method, path) is not None

    def build(self, clock: Callable[[], float]) -> tuple[Any, Callable[[], int]]:
        """The child's hub and what reports at the end (its exit status)."""
        from rich.console import Console

        from mcptui.capture.printer import CapturePrinter

        hub = CaptureHub(self.upstream, self.record_dir, clock=clock)
        console = Console(highlight=False, width=self.console_width)
        printer = CapturePrinter(hub, console)
        otlp = live_otlp(self.otlp)
        follower = None
        if otlp is not None:
            from mcptui.share.otel_live import CaptureFollower

            follower = CaptureFollower(otlp, hub)

        def finish() -> int:
            if follower is not None:
                follower.flush()
            printer.finish()
            hub.close()
            if otlp is not None:
                end_export(otlp)
            count = len(hub.captures)
            console.print(
                f"mcptui proxy: {count} response{'s' if count != 1 else ''} captured, "
                f"{len(printer.failed)} with failures",
                style="dim",
                highlight=False,
            )
            return 1 if printer.failed else 0

        return hub, finish


Spec = ProxySpec


def end_export(otlp: Any) -> None:
    """The child's end of its live export. Everything is recorded by now, so a Ctrl+C (the
    child ignored it while recording: the terminal sends it to both processes) may cut the
    wait for a collector that does not answer; it is ignored again after."""
    from mcptui.share.otel_live import print_end

    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        print_end(otlp)
    except KeyboardInterrupt:  # between the wait and the line: the line is what is lost
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def live_otlp(otlp: tuple[str, float] | None) -> Any:
    """The child's live exporter for `--otlp` (a LiveExport), or None."""
    if otlp is None:
        return None
    from mcptui.share.otel_live import LiveExport

    return LiveExport(*otlp)


class _Pipe:
    """The sending end, written without blocking from the relay's loop; what does not fit is
    kept in order, as the pieces it came in (never one buffer moved on each write: shifting a
    few MB of backlog on every write the child made room for stalled the relay by
    milliseconds), and written as the child reads."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection  # owns the descriptor
        self.fd = connection.fileno()
        with contextlib.suppress(ImportError, AttributeError, OSError):  # Linux only
            import fcntl

            fcntl.fcntl(self.fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        os.set_blocking(self.fd, False)
        self.pending: deque[memoryview] = deque()
        self.size = 0
        """Bytes pending."""
        self.loop: asyncio.AbstractEventLoop | None = None
        self.broken: OSError | None = None

    def write(self, data: bytes) -> None:
        if self.broken is not None:
            raise self.broken
        if self.pending:
            self.pending.append(memoryview(data))
            self.size += len(data)
            if self.size > MAX_BACKLOG:
                self._write_all()  # the child lags far behind: wait for it
            return
        try:
            written = os.write(self.fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            self.broken = exc
            raise
        if written < len(data):
            self.pending.append(memoryview(data)[written:])
            self.size += len(data) - written
            self.loop = asyncio.get_running_loop()
            self.loop.add_writer(self.fd, self._drain)

    def _drain(self) -> None:
        try:
            self._write_some()
        except BlockingIOError:
            return
        except OSError as exc:
            self.broken = exc
            self.pending.clear()
            self.size = 0
        if not self.pending and self.loop is not None:
            self.loop.remove_writer(self.fd)
            self.loop = None

    def _write_some(self) -> None:
        """One write of as many pending pieces as the pipe takes."""
        written = os.writev(self.fd, list(islice(self.pending, 256)))
        self.size -= written
        while written:
            piece = self.pending[0]
            if len(piece) > written:
                self.pending[0] = piece[written:]
                return
            written -= len(piece)
            self.pending.popleft()

    def _write_all(self) -> None:
        """Write everything pending, waiting for the child as long as it takes."""
        if self.loop is not None:
            with contextlib.suppress(Exception):  # the loop may be closed already
                self.loop.remove_writer(self.fd)
            self.loop = None
        os.set_blocking(self.fd, True)
        try:
            while self.pending:
                self._write_some()
        except OSError as exc:
            self.broken = exc
            self.pending.clear()
            self.size = 0
        finally:
            os.set_blocking(self.fd, False)

    def close(self) -> None:
        if self.broken is None:
            self._write_all()
        self.connection.close()


class OffloadedHub(StepHub):
    """The relay's hub (mcptui/capture/relay.py RelayHub) when a child records: its answers to
    the relay itself (where to relay, what a refusal says) come from `local`, a hub of the same
    kind that records nothing; every step to record is posted to the child."""

    def __init__(self, spec: Spec, local: Any) -> None:
        super().__init__(local, spec.wanted)
        self.on_problem: Callable[[str], None] | None = None
        receiving, sending = pipe()
        # Ignored from its first instruction (a disposition exec keeps, and Python's start
        # leaves as it is): Ctrl+C while the child still imports would kill it.
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.process = start_child(record_steps, (receiving, spec), "mcptui recorder")
        finally:
            signal.signal(signal.SIGINT, interrupt)
        receiving.close()
        self._pipe = _Pipe(sending)
        self._told = False
        self._batch: list[bytes] = []
        """Steps posted in this turn of the relay's loop, written together."""

    def post(self, *step: Any) -> None:
        """Queue one step, stamped now, for the child. The steps of one turn of the relay's
        loop (an answer's start, its bytes and its end, when they came together) go in one
        write at the turn's end: a write a step woke the child, on the CPU the relay and its
        upstream share, two or three times a short exchange."""
        if self._pipe.broken is not None:
            self._tell_stopped(self._pipe.broken)
            raise self._pipe.broken
        data = pickle.dumps((step[0], step[1], time.monotonic(), *step[2:]), protocol=5)
        self._batch.append(LENGTH.pack(len(data)) + data)
        if len(self._batch) > 1:
            return  # a write is on its way
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (closing): at once
            self._flush()
            return
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        try:
            self._pipe.write(batch[0] if len(batch) == 1 else b"".join(batch))
        except OSError as exc:
            self._tell_stopped(exc)

    def _tell_stopped(self, exc: OSError) -> None:
        self._tell(
            f"the recorder process stopped ({exc.strerror or exc}): nothing more is "
            "recorded; the app's traffic is unaffected"
        )

    def _tell(self, message: str) -> None:
        if not self._told and self.on_problem is not None:
            self.on_problem(message)
        self._told = True

    def close(self) -> None:
        """Send what is pending and close the pipe: the child records the rest and exits."""
        if not self._pipe.connection.closed:
            self._flush()
            self._pipe.close()

    def finish(self) -> int:
        """Close, wait for the child to record everything; its exit status (1: a captured
        response failed, or the child did)."""
        self.close()
        if self.process.pid is not None:  # the drain is waited for: it gets our share
            restore(self.process.pid, os.nice(0))
        while True:
            try:
                self.process.join()
                break
            except KeyboardInterrupt:  # pressed again: the recording is still being finished
                continue
        return 0 if self.process.exitcode == 0 else 1


# -- the child ---------------------------------------------------------------------------------


def record_steps(receiving: Connection, spec: Spec) -> None:
    """The child: build the hub, replay every step, report, exit with the report's status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops the relay; this drains
    priority = Priority()
    now = [spec.start]
    hub, finish = spec.build(lambda: now[0])
    replay = Replay(hub)
    for step in polled_steps(receiving):
        now[0] = step[2]
        priority.keep_up(step[2])
        replay.step(step[0], step[1], *step[3:])
    code = finish()
    sys.stdout.flush()
    raise SystemExit(code)


POLL_SECONDS = 0.02
"""How long the recorder sleeps when the pipe is empty (`polled_steps`): at most this late on
the console, well under what a person notices."""


def polled_steps(receiving: Connection, poll: float = POLL_SECONDS) -> Iterator[tuple[Any, ...]]:
    """The relay's steps, in order, until it closes the pipe; read in batches.

    The child sleeps `poll` whenever the pipe is empty, rather than wait in `read`: a blocked
    reader is woken by every write, which costs both processes a switch per write on the cores
    the relay and its upstream share. Through the tap, one `tools/call` after another
    (`/proc` CPU per call, alternating blocks of 100): the recorder took 0.43 ms of CPU per
    call woken on each write, 0.29-0.31 ms polled, and the tap made 0.83x of its own
    calls/s without recording woken, 0.93-0.94x polled. A read that fills the buffer is followed
    at once by the next, so a fast stream never waits on the poll."""
    fd = os.dup(receiving.fileno())
    receiving.close()
    os.set_blocking(fd, False)
    pending = bytearray()
    try:
        while True:
            try:
                data = os.read(fd, PIPE_SIZE)
            except BlockingIOError:
                time.sleep(poll)
                continue
            if not data:
                return  # the relay closed the pipe: every step sent has been read
            pending += data
            at = 0
            while len(pending) - at >= LENGTH.size:
                size = LENGTH.unpack_from(pending, at)[0]
                end = at + LENGTH.size + size
                if end > len(pending):
                    break  # the rest of this step is still on its way
                yield pickle.loads(pending[at + LENGTH.size : end])
                at = end
            del pending[:at]
    finally:
        os.close(fd)


LAG_SECONDS = 1.0
"""How far behind the relay the recorder may fall on idle CPU alone before it takes a full
share again (`Priority`)."""

CAP_SYS_NICE = 23
"""The capability bit (linux/capability.h) that lets a process raise its priority again."""


class Priority:
    """The recorder runs only on CPU nobody else wants: Linux's SCHED_IDLE (a task of any other
    policy that wakes takes the core at once) at nice 10. At nice 10 alone it still held a core
    that a woken relay or server then waited for: one `tools/call` after another through the
    tap made 0.64-0.69x of direct's calls/s with it running, 0.75-0.77x with it stopped
    (SIGSTOP), alternating blocks of 50 calls; 0.67-0.75x at SCHED_IDLE.

    But idle CPU may not come (a build, or a test suite, on every core): once a step it
    records was stamped `LAG_SECONDS` ago, the recorder takes back the share it started with
    (SCHED_OTHER at its first nice), and when the relay stops, the relay gives it back
    (`restore`: a Ctrl+C waits for the drain, which may be one long step started at
    SCHED_IDLE, such as the first failure's diagnosis). A nice-10 share was not enough: in a
    loaded clean-clone CI run (load 5 on 2 cores) a proxy's Ctrl+C drain of one failed
    response took over 20 s. Going back needs CAP_SYS_NICE or a RLIMIT_NICE that allows the
    first nice (sched(7)): a process that could not go back does not lower itself."""

    def __init__(self) -> None:
        self.base = os.nice(0)
        self.lowered = False
        policy = getattr(os, "SCHED_IDLE", None)
        if policy is None or not may_return_to(self.base):
            return
        with contextlib.suppress(OSError):
            os.nice(10)
            self.lowered = True
            os.sched_setscheduler(0, policy, os.sched_param(0))

    def keep_up(self, stamped: float) -> None:
        """A step the relay stamped at `stamped` (its `time.monotonic()`) is being recorded."""
        if self.lowered and time.monotonic() - stamped > LAG_SECONDS:
            self.lowered = False
            restore(0, self.base)


def restore(pid: int, nice: int) -> None:
    """`pid` (0: this process) back to SCHED_OTHER at `nice`, where it is allowed to go."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, pid, nice)


def may_return_to(nice: int) -> bool:
    """Whether this process could set its nice back to `nice` after raising it: with
    CAP_SYS_NICE, or a RLIMIT_NICE soft limit of at least 20 - nice (setpriority(2))."""
    import resource

    with contextlib.suppress(OSError, ValueError, AttributeError):
        soft, _ = resource.getrlimit(resource.RLIMIT_NICE)
        if soft == resource.RLIM_INFINITY or 20 - nice <= soft:
            return True
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> CAP_SYS_NICE & 1)
    return False
