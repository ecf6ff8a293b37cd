"""A session: the timeline being inspected, where it came from, and its playback clock.

Pure (no Textual): the app renders a session; sources (replay now, live runs later) fill it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mcptui.io.indexed import PieceReader
from mcptui.io.read_ahead import PIECE
from mcptui.io.recording import Loaded, Problem
from mcptui.model.player import Player
from mcptui.model.providers import stream_provider
from mcptui.model.resend_verdict import Verdict
from mcptui.model.timeline import Timeline

if TYPE_CHECKING:
    from mcptui.sources.follow import Follower

FIRST_PIECE = 256 << 10
"""Bytes read before the first screen (about 700 events): enough to show the stream's start."""


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
    receiving: Callable[[], bool] | None = None
    """For a source that is not a LiveRun (the proxy): whether an answer is still flowing."""
    idle_hint: str = ""
    """What the header says before the first response (where to point an app)."""
    loading: PieceReader | None = None
    """A recording still being read (tui/mcptui/io/indexed.py): `load_more` takes the next piece."""
    secrets: list[str] = field(default_factory=list, repr=False)
    """What its source named as secrets (a file's requests, an archive's API key): hidden in
    toasts, reports and screenshots as in its events."""
    follower: Follower | None = None
    """Reads what another process appends to the file replayed (`replay --follow`)."""
    verdicts: dict[int, Verdict] = field(default_factory=dict)
    """An edited re-send's response (by key) → whether it fixed the one it was edited from
    (`e`; tui/mcptui/model/resend_verdict.py): the header says it on that response."""
    provider: str | None = None
    """Who answers a live run (tui/mcptui/model/providers.py); a file's header says it."""
    _request_notes: list[tuple[int, str]] = field(default_factory=list, repr=False)
    """(timeline index, x-request-id) of the `request` notes seen so far."""
    _scanned: int = field(default=0, repr=False)

    @classmethod
    def from_loaded(cls, loaded: Loaded, *, speed: float = 1.0, instant: bool = False) -> Session:
        timeline = Timeline(loaded.events, loaded.snapshots)
        player = Player(speed=speed, instant=instant)
        player.extend(timeline.events)
        return cls(
            timeline,
            loaded.source,
            loaded.header,
            list(loaded.problems),
            player,
            secrets=loaded.secrets,
        )

    @classmethod
    def reading(cls, reader: PieceReader, *, speed: float = 1.0, instant: bool = False) -> Session:
        """A session over the first piece of a recording; the rest comes with `load_more`."""
        reader.collect = False  # the timeline keeps them
        first = reader.read(FIRST_PIECE)
        session = cls.from_loaded(
            replace(reader.loaded, events=first), speed=speed, instant=instant
        )
        session.loading = None if reader.done else reader
        while not session.usable and session.load_more():
            pass  # the first piece held no event (one huge line): read on until one comes
        return session

    def load_more(self, size: int = PIECE, *, ahead: bool = False, wait: bool = True) -> bool:
        """Read the next piece of a recording into the timeline (`ahead`: and fold it for a
        jump to the end, `Timeline.fold_ahead`); False once all is read. `wait=False`: none
        when the reader's helper has not sent it yet (`waiting`)."""
        reader = self.loading
        if reader is None:
            return False
        self.timeline.extend(reader.read(size, wait=wait), follow=False, others=reader.others)
        found = reader.loaded.snapshots[len(self.timeline.snapshots) :]
        if found or reader.relearned:  # a JSON array's Response object, or a secret found late
            reader.relearned = False
            self.timeline.reseed(found)
        if ahead:
            self.timeline.fold_ahead()
        self.player.extend(self.timeline.events)
        self.problems = list(reader.loaded.problems)
        if reader.done:
            self.loading = None
        return self.loading is not None

    def load_all(self) -> None:
        while self.load_more():
            pass

    @property
    def provider_label(self) -> str | None:
        """The provider shown with the stream: a live run's, else the one its header names or
        its endpoint shows; None when nothing says."""
        return self.provider or stream_provider(self.header)

    @property
    def usable(self) -> bool:
        """Whether there is anything to show: events, or a Response object's items."""
        return bool(self.timeline.total or self.timeline.snapshots)

    @property
    def request_id(self) -> str | None:
        """`x-request-id` of the first HTTP answer, when the recording has it."""
        return request_id_in((self.header or {}).get("http"))

    def request_id_at(self, position: int) -> str | None:
        """`x-request-id` of the answer the events up to step `position` came in: a re-run or
        an approval's follow-up is a later `request` note with its own, else the first's."""
        events = self.timeline.events
        for index in range(self._scanned, len(events)):  # events are only ever appended
            event = events[index]
            if event.is_note and event.note_kind == "request":  # an attribute before a call
                found = request_id_in({"headers": event.raw.get("http_headers")})
                if found:
                    self._request_notes.append((index, found))
        self._scanned = len(events)
        before = bisect_left(self._request_notes, (position, ""))
        return self._request_notes[before - 1][1] if before else self.request_id


def request_id_in(http: object) -> str | None:
    """`x-request-id` in an HTTP answer's record (a header's `http`, a note's headers)."""
    headers = http.get("headers") if isinstance(http, dict) else None
    if not isinstance(headers, dict):
        return None
    for key, value in headers.items():
        if str(key).lower() == "x-request-id":
            return str(value)
    return None
