"""The inspector's clock: one zero (the session's first event) for every time shown, and a
clock that runs on through silences.

While a live run waits on a slow tool, or a replay plays through a long recorded gap, no
event arrives, yet time passes: the header's `t=` counts on and says what it waits for, and
the open items' durations and waterfall bars grow. The clock stands still at a step the user
stepped to, and when the run is over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcptui.model.status import waiting_for
from mcptui.model.summary import failure_count
from mcptui.model.textsafe import visible
from mcptui.model.timing import spans_at_step
from mcptui.ui.widgets.status import StatusHeader
from mcptui.ui.widgets.waterfall import Waterfall

if TYPE_CHECKING:
    from mcptui.ui.screens.inspector import InspectorScreen

CLOCK_SECONDS = 0.25
"""How often a running clock is redrawn."""
WAITING_SHOWN = 2.0
"""Seconds of silence after which the header says what the stream is waiting for."""


class ClockMixin:
    """The header and the running clock of the InspectorScreen (which this is mixed into)."""

    def clock_running(self: InspectorScreen) -> bool:
        """Time passes with no event: a live run still going (seen at its newest event), or a
        replay playing at a speed."""
        timeline, player = self.session.timeline, self.session.player
        if self.session.live:
            # Events that came but are still being parsed are not a silence: the clock
            # shows their arrival times, not how long the app takes to take them in.
            return (
                timeline.at_end
                and self._live_running()
                and not (self.live is not None and self.live.behind)
            )
        return player.playing and not player.instant and not timeline.at_end

    def clock_now(self: InspectorScreen) -> tuple[float, float]:
        """(clock, silence): seconds since the session's first event, and how long nothing
        has arrived (0 when the clock stands at the current step)."""
        timeline, player = self.session.timeline, self.session.player
        reached = player.stream_time(timeline.position)
        if not self.clock_running():
            return reached, 0.0
        if self.session.live and self.live is not None:
            since_request = self.live.now()
            if player.zero is None:  # nothing has arrived yet: waiting since the request
                return 0.0, since_request
            now = max(reached, since_request - player.zero)
        else:
            now = player.now(timeline.position, self.clock())
        return now, now - reached

    def advance_clock(self: InspectorScreen) -> None:
        """The timer: while the clock runs (and once more when it stops), redraw the clock."""
        if self.clock_running() or self.tree.now is not None:
            self.refresh_clock()

    def refresh_clock(self: InspectorScreen) -> None:
        """Redraw what the clock shows: the header, the open items' durations (counting on
        through a silence) and, if shown, the waterfall."""
        now, silence = self.clock_now()
        zero = self.session.player.zero
        before = self.tree.now
        self.tree.tick_open_items(now + zero if silence > 0 and zero is not None else None)
        self.refresh_header(now, silence)
        self.refresh_waterfall(now)
        node = self.tree.cursor_node
        if (
            self.tree.now != before
            and node is not None
            and node.data is not None
            and node.data.kind == "item"
        ):
            self.show_detail(node)  # its duration and tool time run on too

    def refresh_waterfall(self: InspectorScreen, now: float | None = None) -> None:
        """The waterfall as of the current step (as the tree is), its running bars grown to
        the clock; its axis ends where the header's total does. Drawn only while shown."""
        if self.view != "waterfall":
            return
        timeline, player = self.session.timeline, self.session.player
        if now is None:
            now = self.clock_now()[0]
        zero = player.zero
        end = None if zero is None else zero + max(player.duration, now)
        self.query_one(Waterfall).show(
            spans_at_step(timeline.state, timeline.events, zero, end), now=self.tree.now
        )

    def refresh_header(
        self: InspectorScreen, now: float | None = None, silence: float = 0.0
    ) -> None:
        player = self.session.player
        timeline = self.session.timeline
        if self.session.live:
            mode = "live: following" if player.playing else "live: paused (space follows)"
        else:
            mode = player.state(timeline.at_end)
        if now is None:
            now, silence = self.clock_now()
        if silence >= WAITING_SHOWN:
            mode += f"  waiting {silence:.0f} s for {visible(waiting_for(timeline.state.current))}"
        if self.filter_text:
            mode += f"  filter: {visible(self.filter_text)}"
        if (reading := self.reading) is not None:
            mode += f"  reading {reading:.0%}"
        # Counted like failures: up to the current step.
        counts = (
            None
            if self.diagnosis is None
            else self.diagnosis.counts_up_to(timeline.position, timeline.at_end)
        )
        self.query_one(StatusHeader).show(
            self.session,
            failure_count(timeline.state),
            mode,
            counts,
            clock=now,
            so_far=not timeline.at_end,
        )
