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
    from mcptui.ui.screens.host import Host

CLOCK_SECONDS = 0.25
"""How often a running clock is redrawn."""
WAITING_SHOWN = 2.0
"""Seconds of silence after which the header says what the stream is waiting for."""


class HeaderClock:
    """The header and the running clock of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def clock_running(self) -> bool:
        """Time passes with no event: a live run still going (seen at its newest event), or a
        replay playing at a speed."""
        timeline, player = self.screen.session.timeline, self.screen.session.player
        if self.screen.session.live:
            # Events that came but are still being parsed are not a silence: the clock
            # shows their arrival times, not how long the app takes to take them in.
            return (
                timeline.at_end
                and self.screen.diagnosing._live_running()
                and not (
                    self.screen.live_actions.live is not None
                    and self.screen.live_actions.live.behind
                )
            )
        return player.playing and not player.instant and not timeline.at_end

    def clock_now(self) -> tuple[float, float]:
        """(clock, silence): seconds since the session's first event, and how long nothing
        has arrived (0 when the clock stands at the current step)."""
        timeline, player = self.screen.session.timeline, self.screen.session.player
        reached = player.stream_time(timeline.position)
        if not self.clock_running():
            return reached, 0.0
        if self.screen.session.live and self.screen.live_actions.live is not None:
            since_request = self.screen.live_actions.live.now()
            if player.zero is None:  # nothing has arrived yet: waiting since the request
                return 0.0, since_request
            now = max(reached, since_request - player.zero)
        else:
            now = player.now(timeline.position, self.screen.clock())
        return now, now - reached

    def advance_clock(self) -> None:
        """The timer: while the clock runs (and once more when it stops), redraw the clock."""
        if self.clock_running() or self.screen.tree.now is not None:
            self.refresh_clock()

    def refresh_clock(self) -> None:
        """Redraw what the clock shows: the header, the open items' durations (counting on
        through a silence) and, if shown, the waterfall."""
        now, silence = self.clock_now()
        zero = self.screen.session.player.zero
        before = self.screen.tree.now
        self.screen.tree.tick_open_items(now + zero if silence > 0 and zero is not None else None)
        self.refresh_header(now, silence)
        self.refresh_waterfall(now)
        node = self.screen.tree.cursor_node
        if (
            self.screen.tree.now != before
            and node is not None
            and node.data is not None
            and node.data.kind == "item"
        ):
            self.screen.detail_view.show_detail(node)  # its duration and tool time run on too

    def refresh_waterfall(self, now: float | None = None) -> None:
        """The waterfall as of the current step (as the tree is), its running bars grown to
        the clock; its axis ends where the header's total does. Drawn only while shown."""
        if self.screen.view != "waterfall":
            return
        timeline, player = self.screen.session.timeline, self.screen.session.player
        if now is None:
            now = self.clock_now()[0]
        zero = player.zero
        end = None if zero is None else zero + max(player.duration, now)
        self.screen.query_one(Waterfall).show(
            spans_at_step(timeline.state, timeline.events, zero, end), now=self.screen.tree.now
        )

    def refresh_header(self, now: float | None = None, silence: float = 0.0) -> None:
        player = self.screen.session.player
        timeline = self.screen.session.timeline
        if self.screen.session.live:
            mode = "live: following" if player.playing else "live: paused (space follows)"
        else:
            mode = player.state(timeline.at_end)
        if now is None:
            now, silence = self.clock_now()
        if silence >= WAITING_SHOWN:
            mode += f"  waiting {silence:.0f} s for {visible(waiting_for(timeline.state.current))}"
        if self.screen.tree_filter.filter_text:
            mode += f"  filter: {visible(self.screen.tree_filter.filter_text)}"
        if (reading := self.screen.rest_reader.reading) is not None:
            mode += f"  reading {reading:.0%}"
        # Counted like failures: up to the current step.
        counts = (
            None
            if self.screen.diagnosing.diagnosis is None
            else self.screen.diagnosing.diagnosis.counts_up_to(timeline.position, timeline.at_end)
        )
        self.screen.query_one(StatusHeader).show(
            self.screen.session,
            failure_count(timeline.state),
            mode,
            counts,
            clock=now,
            so_far=not timeline.at_end,
        )
