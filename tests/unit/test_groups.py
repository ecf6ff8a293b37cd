"""Delta runs kept in step with an item's event list: any jump back or forward gives the same
groups as building them from scratch (a jump of 2+ events back inside a run crashed the app)."""

from __future__ import annotations

import random

from mcptui.model.events import Event
from mcptui.model.groups import GroupIndex


def events_of(kinds: str) -> list[Event]:
    names = {
        "d": "response.output_text.delta",
        "a": "response.output_item.added",
        "x": "response.mcp_call_arguments.delta",
        "o": "response.output_item.done",
    }
    return [Event({"type": names[k]}, index=i) for i, k in enumerate(kinds)]


def fresh(indexes: list[int], events: list[Event]) -> list[tuple[str, int, int, int]]:
    index = GroupIndex()
    index.sync(indexes, events)
    return [(g.type, g.first, g.last, g.count) for g in index.groups]


def test_a_jump_back_inside_the_trailing_run():
    events = events_of("a" + "d" * 10)
    index = GroupIndex()
    index.sync(list(range(11)), events)
    changed = index.sync(list(range(8)), events)  # 3 back, still inside the run

    assert [(g.type, g.first, g.last, g.count) for g in index.groups] == fresh(
        list(range(8)), events
    )
    assert changed == 1  # the run's node is relabelled


def test_any_sequence_of_jumps_matches_building_afresh():
    events = events_of("a" + "d" * 6 + "o" + "x" * 5 + "dd" + "o")
    everything = list(range(len(events)))
    rng = random.Random(7)
    index = GroupIndex()
    for _ in range(300):
        target = rng.randint(0, len(events))
        index.sync(everything[:target], events)
        assert [(g.type, g.first, g.last, g.count) for g in index.groups] == fresh(
            everything[:target], events
        ), target
