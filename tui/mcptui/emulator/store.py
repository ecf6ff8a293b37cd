"""Responses the emulator holds for its lifetime: their events, and a way to wait for more.

Every response's events go into its builder's list as they happen; a stream (the first POST or
any later `GET ?stream=true&starting_after=N`) tails that list. So background runs go on when
a client drops, and a resumed stream gets exactly the events after N.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcptui.emulator.builder import ResponseBuilder
from mcptui.emulator.faults import Faults

TERMINAL = frozenset({"completed", "failed", "cancelled", "incomplete"})


@dataclass(eq=False)
class StoredResponse:
    builder: ResponseBuilder
    faults: Faults = field(default_factory=Faults)
    ended: bool = False
    """No more events will come (terminal event sent, cancelled, or the run broke)."""
    ready: asyncio.Future[dict[str, Any] | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    """Set once tools are listed: None, or an HTTP error to answer the POST with."""
    task: asyncio.Task[None] | None = None
    request_id: str = ""
    """`x-request-id` of the POST that created it (each later GET or cancel has its own)."""
    on_end: Callable[[], None] | None = None
    """The store's eviction, run when the response finishes."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> str:
        return self.builder.id

    @property
    def background(self) -> bool:
        return bool(self.builder.request.get("background"))

    @property
    def kept(self) -> bool:
        """Retrievable by id: not made with `"store": false` (the API then keeps nothing to
        fetch; the emulator keeps it only to stream and cancel it)."""
        return self.builder.request.get("store") is not False

    def notify(self, _event: object = None) -> None:
        """Wake every stream waiting for this response (called on each event)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def end(self) -> None:
        self.ended = True
        self.notify()
        if self.on_end is not None:
            self.on_end()

    def changed(self) -> asyncio.Event:
        """An event set at the next change; take it before reading, then wait on it."""
        return self._changed

    async def finished(self) -> None:
        while not self.ended:
            await self.changed().wait()


KEEP = 1000
"""Finished responses kept by default (`mcptui emulate --keep N`)."""


class Store:
    """Responses by id, plus the tasks running them (kept referenced until done).

    At most `keep` finished responses are kept, least recently used first out: a long-lived
    emulator grew without bound (89 → 306 MB over 400 requests). Running ones always stay."""

    def __init__(self, keep: int = KEEP) -> None:
        self.responses: dict[str, StoredResponse] = {}
        self.keep = keep

    def add(self, stored: StoredResponse) -> None:
        self.responses[stored.id] = stored
        stored.on_end = self._evict
        self._evict()

    def get(self, response_id: str) -> StoredResponse | None:
        stored = self.responses.pop(response_id, None)
        if stored is not None:
            self.responses[response_id] = stored  # most recently used: last
        return stored

    def _evict(self) -> None:
        finished = [key for key, stored in self.responses.items() if stored.ended]
        for key in finished[: max(0, len(finished) - self.keep)]:
            del self.responses[key]

    def discard(self, stored: StoredResponse) -> None:
        self.responses.pop(stored.id, None)

    async def close(self) -> None:
        """Cancel runs still going (server shutdown)."""
        tasks = [s.task for s in self.responses.values() if s.task and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
