"""A session: the timeline being inspected, where it came from, and its playback clock.

Pure (no Textual): the app renders a session; sources (replay now, live runs later) fill it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.io.recording import Loaded, Problem
from tui.model.player import Player
from tui.model.timeline import Timeline


@dataclass
class Session:
    timeline: Timeline
    source: str = ""
    """A path, or a short description of a live source."""
    header: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)
    player: Player = field(default_factory=Player)
    recording_path: str | None = None
    """Where a live session is being recorded, when it is."""
    live: bool = False
    """Events are still arriving from a live run (the view follows them while playing)."""

    @classmethod
    def from_loaded(cls, loaded: Loaded, *, speed: float = 1.0, instant: bool = False
                    ) -> Session:
        timeline = Timeline(loaded.events, loaded.snapshots)
        player = Player(speed=speed, instant=instant)
        player.extend(timeline.events)
        return cls(timeline, loaded.source, loaded.header, list(loaded.problems), player)

    @property
    def usable(self) -> bool:
        """Whether there is anything to show: events, or a Response object's items."""
        return bool(self.timeline.total or self.timeline.snapshots)

    @property
    def request_id(self) -> str | None:
        """`x-request-id` of the HTTP response, when the recording has it."""
        http = (self.header or {}).get("http") or {}
        headers = http.get("headers") or {}
        for key, value in headers.items():
            if str(key).lower() == "x-request-id":
                return str(value)
        return None
