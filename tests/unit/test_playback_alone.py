"""Playback on its own: handed a stub host (ui/screens/host.py's Host) instead of the inspector
screen, no app running. What it tells the host to show (the tree synced, the cursor and the
detail on the newest event or on the failure, a note) is what a person would see."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mcptui.sources.replay import open_session
from mcptui.ui.screens.playback import REBUILD_AFTER, Playback

RECORDINGS = Path(__file__).resolve().parents[2] / "recordings"


class StubTree:
    """The event tree as Playback uses it: it records what it was told."""

    def __init__(self) -> None:
        self.user_moves = 0
        self.cursor_node: Any = None
        self.synced = 0
        self.rebuilt = 0
        self._tree_lines: list[object] = []

    def sync(self, responses: object, items: object) -> None:
        self.synced += 1

    def rebuild(self) -> None:
        self.rebuilt += 1

    def node_for_event(self, index: int) -> Any:
        return SimpleNamespace(shows=("event", index), data=None)

    def item_node(self, response: int, item: int) -> Any:
        return SimpleNamespace(shows=("item", response, item), data=None)

    def response_node(self, response: int) -> Any:
        return SimpleNamespace(shows=("response", response), data=None)

    def move_cursor(self, node: Any) -> None:
        self.cursor_node = node


def stub_host(recording: str) -> SimpleNamespace:
    tree = StubTree()
    shown: list[Any] = []
    notes: list[str] = []
    refreshed: list[int] = []
    host = SimpleNamespace(
        session=open_session(str(RECORDINGS / recording)),
        clock=lambda: 0.0,
        tree=tree,
        shown=shown,
        notes=notes,
        collector=SimpleNamespace(stepped=lambda: None),
        header_clock=SimpleNamespace(refresh_clock=lambda: None, refresh_header=lambda: None),
        live_actions=SimpleNamespace(live=None),
        diagnosing=SimpleNamespace(_live_running=lambda: False),
        detail_view=SimpleNamespace(show_detail=shown.append),
        notify=lambda message, **_: notes.append(message),
        refreshed=refreshed,
        refresh_bindings=lambda: refreshed.append(1),
    )
    host.tools = SimpleNamespace(available=lambda: bool(host.session.timeline.state.responses))
    host.session.player.pause()
    return host


def test_stepping_forward_and_back_shows_the_newest_event_each_time():
    host = stub_host("mcp-success.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]  # a stub, not an InspectorScreen
    for _ in range(3):
        playback.action_step_forward()
    assert host.session.timeline.position == 3
    assert host.tree.synced == 3  # one small update a step, no rebuild
    assert host.tree.rebuilt == 0
    assert host.tree.cursor_node.shows == ("event", 2)
    assert host.shown[-1] is host.tree.cursor_node
    playback.action_step_back()
    assert host.session.timeline.position == 2
    assert host.tree.cursor_node.shows == ("event", 1)
    assert not host.session.player.playing


def test_end_goes_to_the_last_step_in_one_update():
    host = stub_host("mcp-success.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]
    total = host.session.timeline.total
    assert total <= REBUILD_AFTER  # a short file: updated in place, not rebuilt
    playback.action_last()
    assert host.session.timeline.position == total
    assert (host.tree.rebuilt, host.tree.synced) == (0, 1)
    assert host.tree.cursor_node.shows == ("event", total - 1)
    playback.action_first()
    assert host.session.timeline.position == 0
    assert host.shown[-1] is host.tree.cursor_node  # the detail of what the cursor is on


def test_f_steps_to_the_failed_call_and_selects_it():
    host = stub_host("mcp-424-broken-schema.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]
    timeline = host.session.timeline
    timeline.seek(timeline.total)
    (failure,) = timeline.failure_indexes
    timeline.seek(0)
    playback.action_next_failure()
    assert timeline.position == failure + 1  # stepped up to the failure, not past it
    assert host.tree.cursor_node.shows[0] == "item"  # the failed call, its detail shown
    assert host.shown[-1] is host.tree.cursor_node
    assert not playback.follow
    assert host.notes == []  # one failure: no wrap to speak of


def test_f_without_a_failure_says_so_and_stays():
    host = stub_host("mcp-success.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]
    playback.action_step_forward()
    playback.action_next_failure()
    playback.action_previous_failure()
    assert host.session.timeline.position == 1
    assert host.notes == ["No failure in this stream."] * 2


def re_run(host: SimpleNamespace) -> None:
    """The recording's response again, as a re-run's new response arrives in a live run."""
    from mcptui.io.recording import read_recording

    text = (RECORDINGS / "mcp-424-broken-schema.jsonl").read_text(encoding="utf-8")
    # its own response and item ids, as a new response has
    text = re.sub(r'"((?:resp|mcpl?|rs|msg)_[0-9a-f]+)"', r'"\1-2"', text)
    again = read_recording(enumerate(text.splitlines(), 1))
    host.session.timeline.extend(again.events, follow=False)


def test_a_re_run_lands_on_its_own_failure_unless_the_user_moved_meanwhile():
    host = stub_host("mcp-424-broken-schema.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]  # a stub, not an InspectorScreen
    playback.open_on_failure(whole=True)  # as `replay --failure` opens: response 1's failure
    assert host.tree.cursor_node.shows[:2] == ("item", 0)
    playback.expect_new_response()  # `r`
    re_run(host)
    playback.go_to(host.session.timeline.total, land=True)
    assert host.tree.cursor_node.shows[:2] == ("item", 1)  # response 2's failed call

    playback.expect_new_response()  # `r` again; the user moves before it ends
    placed = host.tree.cursor_node = SimpleNamespace(shows=("event", 3), data=None)
    playback.follow = False  # what the tree's UserMoved does
    re_run(host)
    playback.go_to(host.session.timeline.total, land=True)
    assert not playback.land_on_failure()  # (the run's end, as the app calls it)
    assert host.tree.cursor_node is placed


def test_the_footer_is_told_when_a_step_names_a_server_to_call():
    """`w` (the tool workspace) is offered once a step shows a server: the bindings are
    refreshed then, once, not at every step (the footer showed it only at its next refresh)."""
    host = stub_host("mcp-success.jsonl")
    playback = Playback(host)  # type: ignore[arg-type]  # a stub, not an InspectorScreen
    playback.action_step_forward()  # response.created: the response and its tools
    assert host.refreshed == [1]
    for _ in range(3):
        playback.action_step_forward()
    assert host.refreshed == [1]
