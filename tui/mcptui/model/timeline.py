"""A session's events plus a cursor: the state as of any step, cheap in both directions.

`position` is how many events are applied (step N shows events 0..N-1). Single steps go
through the reducer's `apply`/`undo`, O(1) each. A jump of distance d costs
min(d, target) event applications: going back further than halfway to the start rebuilds from
the seeded state instead of undoing, so no jump on a 200k-event stream costs more than
replaying 100k events. Live sources only `append`; the cursor follows the newest event while
the view is "following" and stays put otherwise.
"""

from __future__ import annotations

import gc
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from mcptui.model.events import Event
from mcptui.model.reducer import Reducer, is_failure_event
from mcptui.model.state import ItemState, ResponseState, SessionState

FREEZE_AFTER_JUMP = 10_000


class Timeline:
    """All events received so far, and the reducer's state at the current step."""

    def __init__(
        self, events: Iterable[Event] = (), snapshots: Iterable[dict[str, Any]] = ()
    ) -> None:
        self.events: list[Event] = []
        self.failure_indexes: list[int] = []
        """Indexes of events that mark a failure, over all events (for "next failure"): one
        per failure, so `mcp_call.failed` and the `output_item.done` after it count once."""
        self._failed_items: set[str] = set()
        self.snapshots: list[dict[str, Any]] = list(snapshots)
        self.reducer = self._seeded_reducer()
        self._ahead: Reducer | None = None
        """Events folded while a recording is read, for a jump to come (`fold_ahead`)."""
        self.extend(events, follow=False)

    def _seeded_reducer(self) -> Reducer:
        reducer = Reducer()
        for snapshot in self.snapshots:
            reducer.seed_response(snapshot)
        return reducer

    @property
    def state(self) -> SessionState:
        return self.reducer.state

    @property
    def position(self) -> int:
        return self.reducer.applied

    @property
    def total(self) -> int:
        return len(self.events)

    @property
    def at_end(self) -> bool:
        return self.position == len(self.events)

    def append(
        self, event: Event, *, follow: bool = True
    ) -> tuple[ResponseState, ItemState | None] | None:
        """Add an event; apply it too when following and the cursor is at the end."""
        was_at_end = self.at_end
        self.extend((event,), follow=False)
        if follow and was_at_end:
            return self.reducer.apply(event)
        return None

    def extend(
        self, events: Iterable[Event], *, follow: bool = True, others: Sequence[Event] | None = None
    ) -> None:
        """`append` each event; when following from the end, fold them in one go. `others`:
        each event already has the index it gets here (a recording's reader numbers them as
        it reads), and these are the ones among them that are not text deltas read fast
        (the reader knows them as it reads), so only they are looked at for failures."""
        kept = self.events
        start = len(kept)
        was_at_end = self.reducer.applied == start
        kept.extend(events)
        if others is None:
            for index in range(start, len(kept)):
                kept[index].index = index
            others = kept[start:]
        failures = self.failure_indexes
        for event in others:
            if (
                event.lite is None
                and is_failure_event(event)
                and (self._first_failure_of_item(event))
            ):
                failures.append(event.index)
        if follow and was_at_end:
            self.reducer.fold(kept[start:])

    def _first_failure_of_item(self, event: Event) -> bool:
        item_id = _item_id(event.raw)
        if type(item_id) is not str:
            return True
        if item_id in self._failed_items:
            return False
        self._failed_items.add(item_id)
        return True

    def item_done(self, index: int) -> int:
        """The event that finishes the item failing at `index` (its `output_item.done`, which
        carries the error text), or `index` itself when none follows."""
        events = self.events
        item_id = _item_id(events[index].raw)
        if item_id is None:
            return index
        for later in range(index, len(events)):
            event = events[later]
            done = event.raw.get("item") if event.type == "response.output_item.done" else None
            if isinstance(done, dict) and done.get("id") == item_id:
                return later
        return index

    def step_forward(self) -> tuple[ResponseState, ItemState | None] | None:
        if self.at_end:
            return None
        return self.reducer.apply(self.events[self.position])

    def step_back(self) -> tuple[ResponseState | None, ItemState | None] | None:
        if self.position == 0:
            return None
        return self.reducer.undo(self.events)

    def fold_ahead(self) -> None:
        """Fold the events added since the last call into a reducer of their own, leaving the
        cursor where it is: an instant replay folds each piece of a recording as it is read
        (its events and their JSON are fresh in memory then) and jumps to the end with
        `seek` when all is read, which takes this reducer instead of folding all again."""
        if self._ahead is None:
            self._ahead = self._seeded_reducer()
        self._ahead.fold(self.events[self._ahead.applied :])

    def reseed(self, snapshots: Sequence[dict[str, Any]] = ()) -> None:
        """Fold the state at the cursor again, from the Response objects with these added: a
        JSON array read a piece at a time holds them anywhere, and may read its events again
        (with a secret found late, tui/mcptui/io/indexed.py's `ArrayReader`). The state is
        the one of a timeline that had them from the start, as a whole reading has."""
        self.snapshots.extend(snapshots)
        position = self.position
        self._ahead = None
        self.reducer = self._seeded_reducer()
        self.reducer.fold(self.events[:position])

    def seek(self, target: int) -> None:
        """Move the cursor so that exactly `target` events are applied."""
        target = max(0, min(target, len(self.events)))
        ahead, self._ahead = self._ahead, None
        if ahead is not None and self.position < ahead.applied <= target:
            self.reducer = ahead  # the same state as folding from the start, journal and all
        position = self.position
        if target < position:
            if position - target > target:
                self.reducer = self._seeded_reducer()
            else:
                for _ in range(position - target):
                    self.reducer.undo(self.events)
        self.reducer.fold(self.events[self.position : target])
        if abs(target - position) > FREEZE_AFTER_JUMP:
            gc.freeze()  # the state just built is long-lived: keep the collector off it

    def final_state(self) -> SessionState:
        """The state with every event applied, wherever the cursor is (the cursor's own when
        it is at the end): folded afresh otherwise, as a jump to the end would."""
        if self.at_end:
            return self.state
        reducer = self._seeded_reducer()
        reducer.fold(self.events)
        return reducer.state

    def seek_end(self) -> None:
        self.seek(len(self.events))

    def failures_applied(self) -> int:
        """How many failure events the current step includes."""
        return bisect_left(self.failure_indexes, self.position)


def _item_id(raw: dict[str, Any]) -> Any:
    """The item an event is about: its `item_id`, or its `item`'s id."""
    item = raw.get("item")
    return raw.get("item_id") or (item.get("id") if isinstance(item, dict) else None)
