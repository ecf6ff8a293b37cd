"""Playback clock for replays: which step should be showing at a given wall-clock time.

Pure and clock-agnostic (the caller passes `now`), so tests drive it without sleeping. Events
carry their recorded arrival time `t`; events without timing (chunk files, pasted dumps) are
spaced `UNTIMED_GAP` apart so that a replay still unfolds visibly.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate, islice, repeat
from math import inf
from operator import attrgetter, sub

from mcptui.model.events import Event

UNTIMED_GAP = 0.02
_TIME = attrgetter("t")
SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0, 50.0, 200.0)


class Player:
    """Maps wall time to a timeline position at a chosen speed; paused, playing or instant."""

    def __init__(self, speed: float = 1.0, instant: bool = False) -> None:
        self.speed = speed
        self.instant = instant
        self.playing = False
        self._times = array("d")
        """Each step's stream time (8 bytes a step, not a float object)."""
        self.zero: float | None = None
        """The recorded `t` of the session's first timed event: every time shown counts from
        it (the header's clock, the detail pane, the waterfall's axis)."""
        self._anchor_wall = 0.0
        self._anchor_stream = 0.0

    def extend(self, events: list[Event]) -> None:
        """Learn the stream times of events appended to the timeline (call in order)."""
        times = self._times
        new = list(map(_TIME, events[len(times) :]))
        if new and None not in new:  # all timed (any recording): in C, as the loop below does
            zero = self.zero = new[0] if self.zero is None else self.zero
            if new == sorted(new) and (not times or new[0] - zero >= times[-1]):
                times.extend(map(sub, new, repeat(zero)))  # in order: each is the running max
            else:
                times.extend(
                    islice(
                        accumulate(
                            map(sub, new, repeat(zero)), max, initial=times[-1] if times else -inf
                        ),
                        1,
                        None,
                    )
                )
            return
        append = times.append
        zero = self.zero
        last = times[-1] if times else None
        for event in events[len(times) :]:
            t = event.t
            if t is not None:
                if zero is None:
                    zero = self.zero = t
                stream_t = t - zero
                if last is not None and last > stream_t:
                    stream_t = last
            else:
                stream_t = 0.0 if last is None else last + UNTIMED_GAP
            append(stream_t)
            last = stream_t

    def stream_time(self, position: int) -> float:
        """Stream time at which step `position` was reached (0 at the start)."""
        if position <= 0 or not self._times:
            return 0.0
        return self._times[min(position, len(self._times)) - 1]

    def now(self, position: int, wall: float) -> float:
        """The stream clock at wall time `wall`: while playing it runs on through a recorded
        silence (never past the next event's time), else it shows step `position`'s time."""
        reached = self.stream_time(position)
        if not self.playing or self.instant:
            return reached
        running = self._anchor_stream + (wall - self._anchor_wall) * self.speed
        following = self._times[position] if position < len(self._times) else self.duration
        return min(max(running, reached), max(following, reached))

    @property
    def duration(self) -> float:
        return self._times[-1] if self._times else 0.0

    def play(self, position: int, now: float) -> None:
        self.playing = True
        self._anchor(position, now)

    def pause(self) -> None:
        self.playing = False

    def set_speed(self, speed: float, position: int, now: float) -> None:
        """Change speed from this moment on: time already waited at the old speed counts."""
        if self.playing and not self.instant:
            stream_now = self._anchor_stream + (now - self._anchor_wall) * self.speed
            self._anchor_stream = max(stream_now, self.stream_time(position))
            self._anchor_wall = now
        else:
            self._anchor(position, now)
        self.speed = speed
        self.instant = False

    def faster(self, position: int, now: float) -> None:
        self.set_speed(next((s for s in SPEEDS if s > self.speed), SPEEDS[-1]), position, now)

    def slower(self, position: int, now: float) -> None:
        self.set_speed(
            next((s for s in reversed(SPEEDS) if s < self.speed), SPEEDS[0]), position, now
        )

    def _anchor(self, position: int, now: float) -> None:
        self._anchor_wall = now
        self._anchor_stream = self.stream_time(position)

    def target(self, position: int, now: float) -> int:
        """The position playback should have reached at `now` (never behind `position`)."""
        if not self.playing:
            return position
        total = len(self._times)
        if self.instant:
            return total
        stream_now = self._anchor_stream + (now - self._anchor_wall) * self.speed
        return max(position, bisect_right(self._times, stream_now))

    def state(self, at_end: bool) -> str:
        """What the header says of a replay: `done` at the last step, else `playing 2x`,
        `playing instant`, `paused 2x` or `paused` (instant is a way of playing, so a paused
        instant replay is just paused)."""
        if at_end:
            return "done"
        if self.playing:
            return f"playing {self.label}"
        return "paused" if self.instant else f"paused {self.label}"

    @property
    def label(self) -> str:
        if self.instant:
            return "instant"
        return f"{self.speed:g}x"
