"""Responses the emulator holds for its lifetime: their events, and a way to wait for more.

Every response's events go into its builder's list as they happen; a stream (the first POST or
any later `GET ?stream=true&starting_after=N`) tails that list. So background runs go on when
a client drops, and a resumed stream gets exactly the events after N.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from tui.emulator.builder import ResponseBuilder
from tui.emulator.faults import Faults

TERMINAL = frozenset({"completed", "failed", "cancelled", "incomplete"})


@dataclass(eq=False)
class StoredResponse:
    builder: ResponseBuilder
    faults: Faults = field(default_factory=Faults)
    ended: bool = False
    """No more events will come (terminal event sent, cancelled, or the run broke)."""
    ready: asyncio.Future[dict[str, Any] | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    """Set once tools are listed: None, or an HTTP error to answer the POST with."""
    task: asyncio.Task[None] | None = None
    request_id: str = ""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> str:
        return self.builder.id

    @property
    def background(self) -> bool:
        return bool(self.builder.request.get("background"))

    def notify(self, _event: object = None) -> None:
        """Wake every stream waiting for this response (called on each event)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def end(self) -> None:
        self.ended = True
        self.notify()

    def changed(self) -> asyncio.Event:
        """An event set at the next change; take it before reading, then wait on it."""
        return self._changed

    async def finished(self) -> None:
        while not self.ended:
            await self.changed().wait()


class Store:
    """Responses by id, plus the tasks running them (kept referenced until done)."""

    def __init__(self) -> None:
        self.responses: dict[str, StoredResponse] = {}

    def add(self, stored: StoredResponse) -> None:
        self.responses[stored.id] = stored

    def get(self, response_id: str) -> StoredResponse | None:
        return self.responses.get(response_id)

    def discard(self, stored: StoredResponse) -> None:
        self.responses.pop(stored.id, None)

    async def close(self) -> None:
        """Cancel runs still going (server shutdown)."""
        tasks = [s.task for s in self.responses.values() if s.task and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
