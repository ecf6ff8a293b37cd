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
direct's calls/s with the child, 0.84-0.86x recording here. The work itself is the same.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from mcptui.capture.steps import Replay, StepHub
from mcptui.model.failure_text import describe_exception

QUIET = 0.002
"""Seconds without a new request after which the steps of an answer are recorded anyway (a
lone call's answer is printed and written this late at most)."""


class DeferredHub(StepHub):
    """The relay's hub for `hub` (a `TapHub` that records and prints): the relay's calls are
    steps, stamped when they happen and recorded on `hub`, with those times, once the relay
    waits (see the module's docstring)."""

    def __init__(self, hub: Any, wanted: Callable[[str, str], bool] = lambda m, p: True) -> None:
        super().__init__(hub, wanted)
        self.hub = hub
        self._now = time.monotonic()
        hub.clock = lambda: self._now  # a step's notes are timed when the relay posted it
        self._replay = Replay(hub)
        self._steps: deque[tuple[Any, ...]] = deque()
        self._soon = False
        self._later: asyncio.TimerHandle | None = None
        self._told = False

    def post(self, *step: Any) -> None:
        """Queue one step, stamped now: recorded at the end of this turn of the relay's loop
        when it is a request (by then passed on), else within `QUIET` seconds."""
        self._steps.append((step[0], step[1], time.monotonic(), *step[2:]))
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

    def record(self) -> None:
        """Record every step posted so far, in order."""
        self._soon = False
        if self._later is not None:
            self._later.cancel()
            self._later = None
        steps = self._steps
        while steps:
            kind, key, self._now, *args = steps.popleft()
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
        self.record()
        self.hub.close()
