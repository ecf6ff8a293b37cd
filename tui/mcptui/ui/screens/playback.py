"""The inspector's playback: the 30 Hz tick, stepping, following the newest event, and the
failure stops (`f` / `F`, and landing on the first failure when a run ends).

Playback runs on a timer that asks the session's `Player` where the cursor should be and
applies the steps in between as one batch: the tree then fixes only the nodes those steps
touched. Jumps longer than `REBUILD_AFTER` steps seek directly; forward, the tree then fixes
the nodes the events jumped over touched (`Reducer.touched_from`), backward it is rebuilt (it
is small, lazily filled). A live run that is behind is shown by such jumps, a few a second:
rebuilding at each of them took 4.3 s of CPU for bench/live.py's 200k flood in the app and
closed any node the user had opened; fixing the touched nodes takes 3.85 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.widgets.tree import TreeNode

from mcptui.model.state import ItemState, ResponseState
from mcptui.ui.widgets.event_tree import NodeRef

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host

REBUILD_AFTER = 400
TICK_SECONDS = 1 / 30
BUSY_TICK_SECONDS = 0.25
"""How often a live run that is behind (bytes read, not parsed yet) is shown."""

StopKey = tuple[object, ...]
"""What a failure stop lands on: ("item", response, item), ("response", response) or
("event", index)."""


def next_stop(stops: Sequence[int], anchor: float, *, forward: bool) -> tuple[int, bool]:
    """The failure stop after (`forward`) or before `anchor`, and whether it wrapped around
    to the other end: past the last failure `f` goes to the first, before the first `F` to the
    last."""
    ahead = [i for i in stops if i > anchor] if forward else [i for i in stops if i < anchor]
    if ahead:
        return (ahead[0] if forward else ahead[-1]), False
    return (stops[0] if forward else stops[-1]), True


class Playback:
    """Stepping and failure stops of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.follow = True
        """Keep the cursor on the newest event; off once the user moves it in the tree."""
        self._placed: TreeNode[NodeRef] | None = None
        """The node the cursor was last put on by following (its highlight is not the user's)."""
        self._moves_seen = 0
        """The tree's count of user moves, as of the last UserMoved message handled."""
        self._shown_live_keys: frozenset[str] = frozenset()
        self._shown_tools = False
        """Whether the footer was last told the tool workspace (`w`) is available."""
        self.land_from = 0
        """Failures from this event on are landed on when the run ends."""
        self.new_from: int | None = None
        """Where a re-run's or re-send's events begin (the events there were when it was
        sent), until it has ended: then its first failure is landed on, or its response when
        it has none (`land_on_failure`)."""
        self.ticks = 0
        """Playback timer ticks so far: a wait for several to have run (tests, benches)."""

    _busy_tick = 0.0
    """When a live run that is behind was last shown (see `_tick`)."""
    _was_receiving = False

    def _tick(self) -> None:
        self.ticks += 1
        player = self.screen.session.player
        timeline = self.screen.session.timeline
        live = self.screen.live_actions.live
        if live is not None:
            receiving = self.screen.diagnosing._live_running()
            if self._was_receiving and not receiving:
                # the run is over: the clock stops at its last event
                self.screen.header_clock.refresh_clock()
            self._was_receiving = receiving
            if live.behind:
                # A live stream sends faster than the app takes it in: show it a batch at a
                # time, a few times a second, so that reading and parsing get the time that
                # redrawing the tree, header and detail 30 times a second would take.
                wall = self.screen.clock()
                if wall - self._busy_tick < BUSY_TICK_SECONDS:
                    return
                self._busy_tick = wall
        player.extend(timeline.events)
        if not player.playing or (player.instant and self.screen.session.loading is not None):
            return  # an instant replay jumps once, to the end of all of it
        target = min(player.target(timeline.position, self.screen.clock()), timeline.total)
        if target > timeline.position:
            self.go_to(target, land=True)
            if timeline.at_end and self.screen.rest_reader.diagnose_after_jump:
                self.screen.rest_reader.diagnose_after_jump = False
                self.screen.after_frame(lambda: self.screen.diagnosing.diagnose(force=True))
        elif timeline.at_end and not player.instant and self.screen.session.loading is None:
            player.pause()
            self.screen.header_clock.refresh_header()
            self.land_on_failure()

    def go_to(self, target: int, *, land: bool = False) -> None:
        """Move to step `target`, updating only what changed (or rebuilding after a jump);
        with `land`, on the run's first failure if that step ends it (`land_on_failure`)."""
        timeline = self.screen.session.timeline
        target = max(0, min(target, timeline.total))
        if abs(target - timeline.position) > REBUILD_AFTER:
            start, reducer = timeline.position, timeline.reducer
            timeline.seek(target)
            if start < target and timeline.reducer is reducer:
                self.screen.tree.sync(*reducer.touched_from(start))
            else:
                self.screen.tree.rebuild()
        else:
            responses: set[ResponseState] = set()
            items: set[ItemState] = set()
            while timeline.position != target:
                forward = timeline.position < target
                touched = timeline.step_forward() if forward else timeline.step_back()
                if touched is None:
                    break
                resp, item = touched
                if resp is not None:
                    responses.add(resp)
                if item is not None:
                    items.add(item)
            self.screen.tree.sync(responses, items)
        self.after_step(land=land)

    def after_step(self, *, land: bool = False) -> None:
        """Header, cursor and detail for the new step, all now: one step is one frame (the
        cursor used to follow after the next refresh, so each step painted twice)."""
        self.screen.header_clock.refresh_clock()
        if (
            self.screen.live_actions.live is not None
            and self.screen.live_actions._live_keys() != self._shown_live_keys
        ):
            self._shown_live_keys = self.screen.live_actions._live_keys()
            self.screen.refresh_bindings()
        if self.screen.tools.available() != self._shown_tools:  # a server named at this step
            self._shown_tools = not self._shown_tools
            self.screen.refresh_bindings()
        if land and self.land_on_failure():
            return  # the failure is shown, not the newest event first (for a whole run's
            # end that is its response: tens of milliseconds to read and lay out)
        if self.follow:
            self._follow_newest()
        else:
            self.screen.detail_view.show_detail(self.screen.tree.cursor_node)

    def _follow_newest(self) -> None:
        """Put the cursor on the newest event's node (the deepest one shown); not when the
        user has just moved it (their move's message, which stops following, is on its way)."""
        if self.screen.tree.user_moves != self._moves_seen:
            return
        timeline = self.screen.session.timeline
        node = self.screen.tree.node_for_event(timeline.position - 1) if timeline.position else None
        self.move_cursor(node)

    def move_cursor(self, node: TreeNode[NodeRef] | None) -> None:
        tree = self.screen.tree
        tree._tree_lines  # noqa: B018 -- build line numbers for freshly added nodes
        if node is not None:
            self._placed = node
            tree.move_cursor(node)
        self.screen.detail_view.show_detail(node or tree.cursor_node)

    # -- keys ---------------------------------------------------------------------------------

    def action_toggle_play(self) -> None:
        player = self.screen.session.player
        timeline = self.screen.session.timeline
        if player.playing:
            player.pause()
        else:
            if timeline.at_end and not self.screen.session.live:
                self.go_to(0)
            self.follow = True
            player.play(timeline.position, self.screen.clock())
        self.screen.header_clock.refresh_clock()

    def _manual(self) -> None:
        self.screen.session.player.pause()
        self.follow = True
        self.screen.collector.stepped()

    def action_step_forward(self) -> None:
        self._manual()
        self.go_to(self.screen.session.timeline.position + 1)

    def action_step_back(self) -> None:
        self._manual()
        self.go_to(self.screen.session.timeline.position - 1)

    def action_first(self) -> None:
        self._manual()
        self.go_to(0)

    def action_last(self) -> None:
        self._manual()
        self.go_to(self.screen.session.timeline.total)

    def action_faster(self) -> None:
        self.screen.session.player.faster(
            self.screen.session.timeline.position, self.screen.clock()
        )
        self.screen.header_clock.refresh_clock()

    def action_slower(self) -> None:
        self.screen.session.player.slower(
            self.screen.session.timeline.position, self.screen.clock()
        )
        self.screen.header_clock.refresh_clock()

    def action_instant(self) -> None:
        player = self.screen.session.player
        player.instant = True
        player.play(self.screen.session.timeline.position, self.screen.clock())
        self.follow = True
        self.screen.header_clock.refresh_clock()

    # -- failure stops ------------------------------------------------------------------------

    def action_next_failure(self) -> None:
        self._to_failure(forward=True)

    def action_previous_failure(self) -> None:
        self._to_failure(forward=False)

    def _to_failure(self, *, forward: bool) -> None:
        """Select the next (or previous) failure after the selected one, wrapping around; a
        failure not reached yet is stepped to first."""
        timeline = self.screen.session.timeline
        stops = timeline.failure_indexes
        if not stops:
            if not self._select_snapshot_failure(forward=forward):
                self.screen.notify("No failure in this stream.", severity="warning")
            return
        current = self._current_stop()
        anchor = current if current is not None else timeline.position - 0.5
        target, wrapped = next_stop(stops, anchor, forward=forward)
        self._manual()
        if target >= timeline.position:
            self.go_to(target + 1)
        self.select_failure(target)
        if wrapped and len(stops) > 1:
            self.screen.notify(
                "Wrapped around to the first failure."
                if forward
                else "Wrapped around to the last failure."
            )

    def _stop_key(self, index: int) -> StopKey:
        """What the failure at (applied) event `index` is about."""
        timeline = self.screen.session.timeline
        resp, item = timeline.reducer.touched(index)
        if item is not None:
            return ("item", resp.key, item.key)
        if timeline.events[index].type == "response.failed":
            return ("response", resp.key)
        return ("event", index)

    def _current_stop(self) -> int | None:
        """The failure stop the cursor is on (its item, its error line, any of its events)."""
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        if ref is None:
            return None
        if ref.item is not None:
            key: StopKey = ("item", ref.response, ref.item)
        elif ref.kind in ("response", "error"):
            key = ("response", ref.response)
        else:
            key = ("event", ref.event)
        timeline = self.screen.session.timeline
        for index in timeline.failure_indexes:
            if index >= timeline.position:
                break
            if self._stop_key(index) == key:
                return index
        return None

    def select_failure(self, index: int) -> None:
        """Put the cursor on the node a failure is about: the failed item (its detail has the
        error, likely cause and what to try), the failed response, or the error event."""
        key = self._stop_key(index)
        tree = self.screen.tree
        if key[0] == "item":
            node = tree.item_node(key[1], key[2])  # type: ignore[arg-type]
        elif key[0] == "response":
            node = tree.response_node(key[1])  # type: ignore[arg-type]
        else:
            node = tree.node_for_event(index)
        self.follow = False
        self.move_cursor(node)

    def open_on_failure(self, *, whole: bool = False) -> None:
        """`replay --failure`: the file up to its first failure (`whole`: all of it), that
        failure selected (its detail has the error and likely cause); a file without one is
        shown to its end."""
        timeline = self.screen.session.timeline
        stops = timeline.failure_indexes
        if not stops:
            self.go_to(timeline.total)
            if self._select_snapshot_failure(forward=True):
                return
            if not whole:
                self.screen.notify(
                    "No failure in this stream: showing its end.", severity="warning"
                )
            return
        self.go_to(timeline.total if whole else timeline.item_done(stops[0]) + 1)
        self.select_failure(stops[0])

    def _select_snapshot_failure(self, *, forward: bool) -> bool:
        """A failure known only from a Response object (a stored response, `mcptui open`; a
        Response JSON file): no event marks it, so its item is selected, the next after the
        cursor's (wrapping). Whether there was one."""
        state = self.screen.session.timeline.state
        failed = [
            (resp.key, item.key) for resp in state.responses for item in resp.items if item.failed
        ]
        if not failed:
            return False
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        here = (ref.response, ref.item) if ref is not None and ref.item is not None else None
        order = failed if forward else failed[::-1]
        target = order[(order.index(here) + 1) % len(order)] if here in order else order[0]
        found = self.screen.tree.item_node(*target)
        if found is None:
            return False
        self.follow = False
        self.move_cursor(found)
        return True

    def expect_new_response(self) -> None:
        """A re-run or an edited re-send is sent (`r`, `e`, `u`, `t`): the cursor follows its
        events, and once it has ended lands on its response's first failure, or on its
        response when that has none, not on a failure of the responses before it (the cursor
        stayed on response 1's failure as response 2 failed). A move of the user's meanwhile
        stops following, and so the landing too. Sent again before it ended, it lands on the
        first of the new responses."""
        self.follow = True
        total = self.screen.session.timeline.total
        if self.new_from is None:
            self.new_from = total
        self.land_from = max(self.land_from, self.new_from)

    def land_on_failure(self) -> bool:
        """When a run has ended (replay played to the end, live run finished) with a failure
        and the cursor is still following, select the first failure of that run: it is what
        the user came to see; after a re-run with none, its response
        (`expect_new_response`). Whether it did."""
        timeline = self.screen.session.timeline
        if self.screen.diagnosing._live_running():
            return False
        if not self.follow:
            self.new_from = None  # the user moved: nothing is landed on for this run
            return False
        if not timeline.at_end:
            return False
        stops = [i for i in timeline.failure_indexes if i >= self.land_from]
        new_from, self.new_from = self.new_from, None
        if not stops:
            responses = timeline.state.responses
            if new_from is None or new_from >= timeline.total or not responses:
                return False
            self.land_from = timeline.total
            self.follow = False
            self.move_cursor(self.screen.tree.response_node(responses[-1].key))
            return True
        self.land_from = timeline.total
        self.select_failure(stops[0])
        return True
