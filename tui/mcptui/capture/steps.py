"""The relay's calls on its hub as steps, recorded later: posted by a `StepHub` (stamped with
the relay's clock when they happen), made again on the recording hub by `Replay`.

Two hubs post them: the proxy's `OffloadedHub` (tui/mcptui/capture/offload.py) to a recorder
child, the tap's `DeferredHub` (tui/mcptui/capture/deferred.py) to its own process, for when
its relay waits. A step is `(kind, key, stamp, *arguments)`:

  x  a request: method, path, target, body (None: over the cap), headers
  b  its answer began: status, headers
  f  a chunk of the answer: bytes
  e  the answer ended: None, or why it broke off
  u  the upstream could not be reached: the message
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any


class StepRecorder:
    """The relay's handle on one exchange's answer: each of its steps is posted."""

    capture = None

    def __init__(self, hub: StepHub, key: int) -> None:
        self.hub = hub
        self.exchange = key

    def feed(self, chunk: bytes) -> None:
        self.hub.post("f", self.exchange, chunk)

    def end(self, broken: str | None = None) -> None:
        self.hub.post("e", self.exchange, broken)


class StepHub:
    """The relay's hub (tui/mcptui/capture/relay.py RelayHub) when the recording is made
    later: each exchange is a key, and each step of it is `post`ed. What the relay needs at
    once (where to relay, what a refusal says) comes from `local`, a hub of the recording's
    kind."""

    def __init__(self, local: Any, wanted: Callable[[str, str], bool]) -> None:
        self.local = local
        self.wanted = wanted
        """Whether an exchange (method, path) is recorded at all."""
        self.record_first: bool = local.record_first
        self.request_cap: int = local.request_cap
        self.upstream: str = local.upstream
        self.open_exchanges = 0
        self._keys = 0

    def post(self, *step: Any) -> None:
        """Queue one step (kind, key, arguments) for the recording, stamped now."""
        raise NotImplementedError

    def upstream_url(self, target: str) -> str:
        return self.local.upstream_url(target)

    def unreachable_answer(self, message: str) -> dict[str, Any]:
        return self.local.unreachable_answer(message)

    def exchange_for(
        self,
        method: str,
        path: str,
        target: str,
        body: bytes | None,
        headers: list[tuple[bytes, bytes]],
    ) -> int | None:
        if not self.wanted(method, path):
            return None
        self._keys += 1
        self._post_quietly("x", self._keys, method, path, target, body, headers)
        return self._keys

    def exchange_started(self) -> None:
        self.open_exchanges += 1

    def begin(self, exchange: int, status: int, headers: dict[str, str]) -> StepRecorder:
        self.post("b", exchange, status, headers)
        return StepRecorder(self, exchange)

    def unreachable(self, exchange: int, message: str) -> None:
        self._post_quietly("u", exchange, message)

    def recording_failed(self, exchange: Any, exc: BaseException) -> None:
        """Only a step that could not be posted gets here: the hub has told why already."""

    def ended(self, capture: Any, exchange: Any) -> None:
        self.open_exchanges -= 1

    def _post_quietly(self, *step: Any) -> None:
        """A step whose failure to post (told once by the hub) must not stop the relay."""
        with contextlib.suppress(OSError):
            self.post(*step)


class Replay:
    """The relay's calls on its hub (tui/mcptui/capture/relay.py `_Recording`), made again from
    the steps it posted: what the relay's process would have done."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.exchanges: dict[int, Any] = {}
        self.recorders: dict[int, Any] = {}

    def step(self, kind: str, key: int, *args: Any) -> None:
        hub = self.hub
        if kind == "x":
            exchange = hub.exchange_for(*args)
            if exchange is not None:
                hub.exchange_started()
                self.exchanges[key] = exchange
            return
        exchange = self.exchanges.get(key)
        if exchange is None:
            return
        if kind == "b":
            try:
                self.recorders[key] = hub.begin(exchange, *args)
            except Exception as exc:
                hub.recording_failed(exchange, exc)
        elif kind == "f":
            self._guarded(key, lambda recorder: recorder.feed(*args))
        elif kind == "e":
            self._guarded(key, lambda recorder: recorder.end(*args))
            recorder = self.recorders.pop(key, None)
            del self.exchanges[key]
            hub.ended(recorder.capture if recorder else None, exchange)
        elif kind == "u":
            del self.exchanges[key]
            hub.ended(hub.unreachable(exchange, *args), exchange)

    def _guarded(self, key: int, step: Callable[[Any], None]) -> None:
        """One recording step; a failure stops this exchange's recording (as the relay's)."""
        recorder = self.recorders.get(key)
        if recorder is None:
            return
        try:
            step(recorder)
        except Exception as exc:
            self.hub.recording_failed(recorder.exchange, exc)
            self.recorders[key] = None
