"""Runs of delta events coalesced into one group (`output_text.delta ×343`), kept in step
with an item's growing or shrinking event list without rescanning it.

Events are only ever added to or removed from the end of an item's list (stepping forward or
back), so `sync` touches only the tail: O(events changed), not O(events).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcptui.model.events import Event


@dataclass(slots=True)
class EventGroup:
    type: str
    first: int
    """Timeline index of the group's first event."""
    last: int
    count: int

    @property
    def coalesced(self) -> bool:
        return self.count > 1 or self.type.endswith(".delta")


def coalesces(event_type: str) -> bool:
    return event_type.endswith(".delta")


class GroupIndex:
    """The groups of one event list (an item's, or a response's own events)."""

    __slots__ = ("groups", "seen")

    def __init__(self) -> None:
        self.groups: list[EventGroup] = []
        self.seen = 0

    def sync(self, indexes: list[int], events: list[Event]) -> int:
        """Bring the groups up to date; returns the position of the first group that changed
        (len(groups) when nothing did)."""
        groups = self.groups
        changed = len(groups)
        target = len(indexes)
        if self.seen > target:
            while self.seen > target:
                self.seen -= 1
                group = groups[-1]
                group.count -= 1
                if group.count == 0:
                    groups.pop()
                changed = min(changed, len(groups) - (1 if group.count else 0))
            if groups:  # the runs cover indexes[:seen]: the last one ends at its end
                groups[-1].last = indexes[target - 1]
        if self.seen < target:
            changed = min(changed, max(len(groups) - 1, 0))
            for index in indexes[self.seen :]:
                kind = events[index].type
                if groups and groups[-1].type == kind and coalesces(kind):
                    groups[-1].last = index
                    groups[-1].count += 1
                else:
                    groups.append(EventGroup(kind, index, index, 1))
            self.seen = target
        return max(changed, 0)

    def group_of(self, index: int) -> EventGroup | None:
        """The group holding timeline event `index` (binary search over the runs)."""
        lo, hi = 0, len(self.groups) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            group = self.groups[mid]
            if index < group.first:
                hi = mid - 1
            elif index > group.last:
                lo = mid + 1
            else:
                return group
        return None
