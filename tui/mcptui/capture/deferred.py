"""`mcptui tap --no-tui`: the tap's recording made in the relay's own process, while the relay
waits for its upstream.

An MCP exchange through the tap is a short request and a short answer, one after another: the
relay passes the request on, then has nothing to do until the server answers (1.3 ms of the
demo server's CPU a `tools/call`, its SSE answer included), and after it passes the answer
back, the client's next request comes within a fraction of that. So the steps the relay posts
(tui/mcptui/capture/steps.py) are recorded right after a request has gone on, in the time the
relay would have waited anyway; the steps of an answer wait for the next request, or for
`QUIET` seconds without one. Nothing is recorded between a read and its relay.

A recorder child (the proxy's, tui/mcptui/capture/offload.py) did the same work on the 2 cores
the client, the relay and the server share, at the lowest priority, yet took them from the
relay and the server: one `tools/call search` of the demo server after another, in turn in
blocks of 25 (bench/proxy.py's goal, 3 runs of each side by side), the tap made 0.80-0.81x of
direct's calls/s with the child, 0.83-0.86x recording here. The work itself is the same. A
child woken at the same moments as here (once a request has gone on) made 0.81-0.85x, and
0.796x in one of three rounds of bench/all.py.

What a child spared the relay is a large message's recording: a 10 MB answer recorded here
held the next request 0.28 s (a 30 MB one 0.85 s). So an exchange past `LARGE` bytes, and
whatever the relay posts until it is recorded, go to a thread of its own: the relay's thread
waits for the GIL at most `WORKER_SWITCH` seconds, or a long C call (orjson, a regex on the
whole text); the next request then waited 18-21 ms after a 10-30 MB answer.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections import deque
from typing import Any

from mcptui.capture.steps import Replay, StepHub
from mcptui.model.failure_text import describe_exception

QUIET = 0.002
"""Seconds without a new request after which the steps of an answer are recorded anyway (a
lone call's answer is printed and written this late at most)."""
LARGE = 256 * 1024
"""Bytes of an exchange (its request's body, its answer so far) past which it is recorded on a
thread of its own (`DeferredHub._work`), and what comes after it until that is done: a 10 MB
answer recorded by the relay's thread held its next request 0.28 s."""
WORKER_SWITCH = 0.0005
"""The interpreter's switch interval while the worker records (5 ms otherwise): how long the
relay's thread may wait for the GIL."""


class DeferredHub(StepHub):
    """The relay's hub for `hub` (a `TapHub` that records and prints): the relay's calls are
    steps, stamped when they happen and recorded on `hub`, with those times, once the relay
    waits (see the module's docstring). Only one thread records at a time: the relay's, or
    while a large exchange is recorded, `_work`'s."""

    def __init__(self, hub: Any) -> None:
        super().__init__(hub, lambda method, path: True)  # every message is the tap's
        self.hub = hub
        self._now = time.monotonic()
        hub.clock = lambda: self._now  # a step's notes are timed when the relay posted it
        self._replay = Replay(hub)
        self._steps: deque[tuple[Any, ...]] = deque()
        self._soon = False
        self._later: asyncio.TimerHandle | None = None
        self._told = False
        self._sizes: dict[int, int] = {}
        """Bytes of each open exchange's body and answer so far."""
        self._lock = threading.Lock()
        """Guards `_steps` and `_worker` between the relay's thread and the worker."""
        self._worker: threading.Thread | None = None

    def post(self, *step: Any) -> None:
        """Queue one step, stamped now: recorded at the end of this turn of the relay's loop
        when it is a request (by then passed on), else within `QUIET` seconds; by the worker
        while one runs, or when its exchange has grown past `LARGE` bytes."""
        stamped = (step[0], step[1], time.monotonic(), *step[2:])
        with self._lock:
            self._steps.append(stamped)
            if self._worker is not None:
                return  # it records this too, in order
            if self._grown(step) > LARGE:
                self._worker = threading.Thread(
                    target=self._work, name="mcptui tap recording", daemon=True
                )
                self._worker.start()
                return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (closing): at once
            self.record()
            return
        if step[0] == "x":
            if not self._soon:
                self._soon = True
                loop.call_soon(self.record)
        elif self._later is None and not self._soon:
            self._later = loop.call_later(QUIET, self.record)

    def _grown(self, step: tuple[Any, ...]) -> int:
        """The size of the step's exchange so far, this step included."""
        kind, key = step[0], step[1]
        size = self._sizes.get(key, 0) + sum(
            len(part) for part in step[2:] if isinstance(part, bytes | bytearray)
        )
        if kind in ("e", "u"):
            self._sizes.pop(key, None)
        else:
            self._sizes[key] = size
        return size

    def record(self) -> None:
        """Record every step posted so far, in order (unless the worker does)."""
        self._soon = False
        if self._later is not None:
            self._later.cancel()
            self._later = None
        while True:
            with self._lock:
                if self._worker is not None or not self._steps:
                    return
                step = self._steps.popleft()
            self._record(step)

    def _work(self) -> None:
        """The worker: record what is queued, until nothing is; the relay's thread takes the
        GIL back every `WORKER_SWITCH` seconds meanwhile (a long C call aside)."""
        switch = sys.getswitchinterval()
        sys.setswitchinterval(WORKER_SWITCH)
        try:
            while True:
                with self._lock:
                    if not self._steps:
                        self._worker = None
                        return
                    step = self._steps.popleft()
                self._record(step)
        finally:
            sys.setswitchinterval(switch)

    def _record(self, step: tuple[Any, ...]) -> None:
        kind, key, self._now, *args = step
        try:
            self._replay.step(kind, key, *args)
        except Exception as exc:  # the relay goes on; told once
            self._tell(exc)

    def _tell(self, exc: Exception) -> None:
        if not self._told and self.hub.on_problem is not None:
            self.hub.on_problem(
                f"a message could not be recorded: {describe_exception(exc)}; "
                "the traffic is unaffected"
            )
        self._told = True

    def close(self) -> None:
        """Record what is still queued; the hub closes its recording."""
        worker = self._worker
        if worker is not None:
            worker.join()
        self.record()
        self.hub.close()
