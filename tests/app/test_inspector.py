"""Pilot tests of the inspector: keys in, what the user sees out (tree labels, header, detail).

Every session opens paused at step 0 and is driven with keys, so nothing depends on timing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _app_support import (
    SAMPLE_424,
    SAMPLE_SUCCESS,
    SIZE,
    TASKGROUP_ERROR,
    detail_text,
    error_line,
    expand,
    find_node,
    footer_columns,
    footer_keys,
    header_text,
    index_of,
    label_of,
    labels,
    nodes_of_kind,
    palette_offers,
    recorded,
    recorded_events,
    rendered_lines,
    screen_of,
    select,
    step_to,
    styles_of,
    toasts,
    wait_ticks,
    wait_until,
    write_chunks,
)
from mcptui.io.formats import load_path
from mcptui.sources.replay import open_session
from mcptui.ui.actions import ACTIONS
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.event_tree import EventTree
from mcptui.ui.widgets.footer import FittingFooter
from mcptui.ui.widgets.status import StatusHeader
from textual.widgets import Input, OptionList

EVENTS_424 = recorded_events(SAMPLE_424)
FAILED_AT = index_of(EVENTS_424, "response.mcp_call.failed")
"""Timeline index of the 424 sample's `response.mcp_call.failed`."""
CALL_DONE_AT = next(
    i
    for i, e in enumerate(EVENTS_424)
    if e["type"] == "response.output_item.done" and e["item"]["type"] == "mcp_call"
)
"""The `output_item.done` after it, which carries the call's error."""
RESPONSE_ID_424 = EVENTS_424[0]["response"]["id"]


def app_for(path: Path | str) -> McptuiApp:
    return McptuiApp(open_session(str(path)), paused=True)


def is_call(label: str) -> bool:
    return "mcp_call search_files" in label


def pretty(raw: dict[str, Any]) -> str:
    return json.dumps(raw, indent=2, ensure_ascii=False)


# -- the "done means" ------------------------------------------------------------------


async def test_opens_paused_at_step_zero_with_nothing_shown():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert labels(screen) == []
        assert screen.session.timeline.position == 0
        header = header_text(screen)
        assert f"step 0 / {len(EVENTS_424)}" in header
        assert "0 failures" in header
        assert "paused" in header
        await wait_ticks(pilot, screen)  # the playback timer runs, but paused means paused
        assert screen.session.timeline.position == 0


async def test_failed_call_turns_red_and_expanded_when_its_failure_is_applied():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        # Step by step: up to the step before the failure, the call is in progress.
        for _ in range(FAILED_AT):
            await pilot.press("right")
            calls = [n for n in nodes_of_kind(screen, "item") if is_call(label_of(n))]
            for call in calls:
                assert "✗" not in label_of(call)
                assert "in_progress" in label_of(call)
        assert calls, "the call is on screen before it fails"

        await pilot.press("right")  # applies response.mcp_call.failed
        await pilot.pause()
        assert screen.session.timeline.position == FAILED_AT + 1
        call = find_node(screen, is_call, kind="item")
        label = label_of(call)
        assert label.startswith("✗ mcp_call search_files"), label
        assert "failed" in label
        assert "in_progress" not in label
        assert call.is_expanded
        assert "red" in styles_of(call.label)
        # The failed event itself is listed under the item, in the error colour.
        failed_event = find_node(screen, lambda t: t.startswith("response.mcp_call.failed"))
        assert failed_event.parent is call
        assert "red" in styles_of(failed_event.label)

        # The recording sends the error one event later, with output_item.done.
        await pilot.press("right")
        await pilot.pause()
        call = find_node(screen, is_call, kind="item")
        assert screen.session.timeline.position == CALL_DONE_AT + 1
        assert label_of(call).startswith("✗ mcp_call search_files")
        # The error is on a line of its own, the item's first child: no width cuts it off.
        assert error_line(call) == f"✗ {TASKGROUP_ERROR}"
        assert TASKGROUP_ERROR not in label_of(call)
        assert call.is_expanded
        assert "red" in styles_of(call.label)

        # Back over output_item.done and mcp_call.failed: in progress again, no ✗, no red.
        await pilot.press("left")
        await pilot.press("left")
        await pilot.pause()
        call = find_node(screen, is_call, kind="item")
        assert not label_of(call).startswith("✗")
        assert error_line(call) is None
        assert "in_progress" in label_of(call)
        assert "red" not in styles_of(call.label)


async def test_failure_event_carrying_its_error_shows_it_at_once_and_step_back_undoes_it(
    tmp_path: Path,
):
    """The issue's exact sequence, on a stream whose `mcp_call.failed` carries the error."""
    raws = [dict(e) for e in EVENTS_424]
    error = EVENTS_424[CALL_DONE_AT]["item"]["error"]
    raws[FAILED_AT] = {**raws[FAILED_AT], "error": error}
    app = app_for(write_chunks(tmp_path / "failed-with-error.chunks.txt", raws))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("f")  # straight to the step that applies mcp_call.failed
        await pilot.pause()
        assert screen.session.timeline.position == FAILED_AT + 1
        call = find_node(screen, is_call, kind="item")
        assert label_of(call).startswith("✗ mcp_call search_files")
        assert error_line(call) == f"✗ {TASKGROUP_ERROR}"
        assert screen.tree.cursor_node is call  # f lands on the failed item itself
        assert call.is_expanded
        assert "red" in styles_of(call.label)

        await pilot.press("left")
        await pilot.pause()
        call = find_node(screen, is_call, kind="item")
        assert "✗" not in label_of(call)
        assert error_line(call) is None
        assert "in_progress" in label_of(call)


async def test_f_lands_on_the_failed_item_with_its_error_and_cause_and_wraps_around():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        timeline = screen.session.timeline
        await pilot.press("f")
        await pilot.pause()
        assert timeline.position == FAILED_AT + 1
        # The cursor is on the failed item, whose detail has the error and its candidate causes.
        call = find_node(screen, is_call, kind="item")
        assert screen.tree.cursor_node is call
        assert await wait_until(pilot, lambda: "possible cause" in detail_text(screen), timeout=10)
        detail = detail_text(screen)
        assert "Output schema without structuredContent" in detail
        assert detail.index("possible cause") < detail.index("type")  # the cause comes first

        # The only failure: f and F wrap around to it, never "no failure after this step".
        await pilot.press("up", "up", "f")
        await pilot.pause()
        assert screen.tree.cursor_node is call
        assert timeline.position == FAILED_AT + 1
        await pilot.press("end")
        await pilot.pause()
        await pilot.press("F")
        await pilot.pause()
        assert timeline.position == len(EVENTS_424)  # already applied: no step back
        assert screen.tree.cursor_node is find_node(screen, is_call, kind="item")
        detail = detail_text(screen)  # by now output_item.done has brought the error
        assert detail.index(TASKGROUP_ERROR) < detail.index("possible cause")
        await pilot.press("f")
        await pilot.pause()
        assert screen.tree.cursor_node is find_node(screen, is_call, kind="item")
        assert not [t for t in toasts(pilot) if "No failure" in t]


async def test_f_on_a_stream_without_failures_says_so():
    app = app_for(SAMPLE_SUCCESS)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "f")
        await pilot.pause()
        assert any("No failure in this stream" in t for t in toasts(pilot)), toasts(pilot)


async def test_end_and_home_go_to_the_last_and_first_step():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        timeline = screen.session.timeline
        await pilot.press("end")
        await pilot.pause()
        assert timeline.position == len(EVENTS_424)
        assert f"step {len(EVENTS_424)} / {len(EVENTS_424)}" in header_text(screen)
        response = nodes_of_kind(screen, "response")
        assert len(response) == 1
        assert label_of(response[0]).startswith(f"✓ {RESPONSE_ID_424}")
        assert "completed" in label_of(response[0])
        # The cursor is on the newest event.
        assert label_of(screen.tree.cursor_node).startswith("response.completed")

        await pilot.press("home")
        await pilot.pause()
        assert timeline.position == 0
        assert labels(screen) == []
        assert f"step 0 / {len(EVENTS_424)}" in header_text(screen)

        await pilot.press("G")
        await pilot.pause()
        assert timeline.position == len(EVENTS_424)
        await pilot.press("g")
        await pilot.pause()
        assert timeline.position == 0


async def test_header_shows_step_failures_and_recorded_stream_time():
    times = [t for t, _ in recorded(SAMPLE_424)]
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        total = len(EVENTS_424)
        duration = times[-1] - times[0]
        await pilot.press("f", "left")  # the step before the failure
        await pilot.pause()
        header = header_text(screen)
        assert f"step {FAILED_AT} / {total}" in header
        assert "0 failures" in header
        assert f"t={times[FAILED_AT - 1] - times[0]:.2f}s / {duration:.2f}s" in header
        assert RESPONSE_ID_424 in header
        assert "paused 1x" in header

        await pilot.press("right")
        await pilot.pause()
        header = header_text(screen)
        assert f"step {FAILED_AT + 1} / {total}" in header
        assert "1 failure" in header and "1 failures" not in header
        assert f"t={times[FAILED_AT] - times[0]:.2f}s" in header

        await pilot.press("end")
        await pilot.pause()
        header = header_text(screen)
        assert f"step {total} / {total}" in header
        assert "1 failure" in header  # one failed call, however many events repeat it
        assert f"t={duration:.2f}s / {duration:.2f}s" in header
        assert "completed" in header


async def test_header_step_line_is_visible_on_screen():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("f")
        await pilot.pause()
        drawn = "\n".join(rendered_lines(screen.query_one(StatusHeader)))
        assert f"step {FAILED_AT + 1} / {len(EVENTS_424)}" in drawn
        assert "1 failure" in drawn


# -- the detail pane -----------------------------------------------------------------------------


async def test_selected_event_shows_its_pretty_json_and_sequence_number():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await step_to(pilot, 2)
        # Following: the newest event is selected.
        assert label_of(screen.tree.cursor_node).startswith("response.in_progress")
        shown = detail_text(screen)
        assert "sequence     1" in shown
        for line in pretty(EVENTS_424[1]).splitlines():
            assert line in shown

        # The user picks an older event with the keys.
        await select(pilot, find_node(screen, lambda t: t.startswith("response.created")))
        shown = detail_text(screen)
        assert "type         response.created" in shown
        assert "sequence     0" in shown
        assert "step         1" in shown
        for line in pretty(EVENTS_424[0]).splitlines():
            assert line in shown
        # And the part that fits on screen says so too.
        drawn = "\n".join(rendered_lines(screen.detail))
        assert "response.created" in drawn


async def test_selected_failed_item_shows_its_error_in_the_detail_pane():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        await select(pilot, find_node(screen, is_call, kind="item"))
        shown = detail_text(screen)
        assert "search_files" in shown
        assert "files" in shown
        assert TASKGROUP_ERROR in shown
        assert '"max_results": 5' in shown  # arguments, parsed and pretty-printed


async def test_coalesced_deltas_are_one_node_that_shows_the_assembled_text():
    deltas = [e["delta"] for e in EVENTS_424 if e["type"] == "response.output_text.delta"]
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        message = find_node(screen, lambda t: "message" in t, kind="item")
        assert f"{len(deltas) + 5} ev" in label_of(message)
        await expand(pilot, message)
        groups = [n for n in message.children if "output_text.delta" in label_of(n)]
        assert [label_of(n) for n in groups] == [f"response.output_text.delta ×{len(deltas)}"]

        await select(pilot, groups[0])
        shown = detail_text(screen)
        assert "assembled text" in shown
        assembled = shown.split("assembled text", 1)[1].strip()
        assert assembled == "".join(deltas)
        assert f"response.output_text.delta ×{len(deltas)}" in shown


async def test_expanded_delta_group_shrinks_and_grows_with_steps():
    deltas = [i for i, e in enumerate(EVENTS_424) if e["type"] == "response.output_text.delta"]
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("f")  # a shortcut to step FAILED_AT + 1, then on key by key
        await step_to(pilot, deltas[0] + 3)  # three deltas applied
        await expand(pilot, find_node(screen, lambda t: "message" in t, kind="item"))
        assert "response.output_text.delta ×3" in labels(screen)
        await pilot.press("right", "right")
        await pilot.pause()
        assert "response.output_text.delta ×5" in labels(screen)
        await pilot.press("left")
        await pilot.pause()
        assert "response.output_text.delta ×4" in labels(screen)


# -- stepping updates, never rebuilds -----------------------------------------------------------


async def test_stepping_never_rebuilds_the_tree(monkeypatch: pytest.MonkeyPatch):
    rebuilds: list[object] = []
    original = EventTree.rebuild

    def spy(self: EventTree, *args: Any, **kwargs: Any) -> None:
        rebuilds.append(args)
        original(self, *args, **kwargs)

    monkeypatch.setattr(EventTree, "rebuild", spy)
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert len(rebuilds) == 1  # the first build, on mount
        await pilot.press("right", "right", "right")
        await pilot.pause()
        response_node = nodes_of_kind(screen, "response")[0]
        await pilot.press("f")
        await pilot.pause()
        call = find_node(screen, is_call, kind="item")
        await pilot.press("left", "left", "left", "right", "right", "right", "right", "end")
        await pilot.pause()
        # The same node objects are still there: they were updated, not replaced.
        assert nodes_of_kind(screen, "response")[0] is response_node
        assert find_node(screen, is_call, kind="item") is call
        assert error_line(call) == f"✗ {TASKGROUP_ERROR}"
        await pilot.press("home", "right")
        await pilot.pause()
        assert rebuilds == [()]


# -- filter ----------------------------------------------------------------------------------------


async def test_filter_shows_only_matching_events_and_escape_clears_it():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        await pilot.pause()
        unfiltered = labels(screen)

        await pilot.press("slash")
        box = screen.query_one("#filter", Input)
        assert box.display and box.has_focus
        # Letters that are also bindings (n, b, g, space…) go into the box, not to the player.
        await pilot.press(*"search_files")
        assert box.value == "search_files"
        assert screen.session.timeline.position == len(EVENTS_424)
        await pilot.press("enter")
        await pilot.pause()

        matching = [
            i
            for i, e in enumerate(EVENTS_424)
            if "search_files" in json.dumps(e, ensure_ascii=False).lower()
        ]
        shown = nodes_of_kind(screen, "event")
        # All the matches, in the stream's order (response events and items interleaved).
        assert [n.data.event for n in shown] == matching
        for node in shown:
            raw = EVENTS_424[node.data.event]
            assert label_of(node).startswith(raw["type"])
        assert not nodes_of_kind(screen, "group")
        assert "filter: search_files" in header_text(screen)
        assert not box.display

        await pilot.press("escape")
        await pilot.pause()
        assert labels(screen) == unfiltered
        assert "filter:" not in header_text(screen)


async def test_re_expanding_an_item_in_the_filtered_tree():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end", "slash", *"search_files", "enter")
        await pilot.pause()
        call = find_node(screen, is_call, kind="item")
        before = [label_of(n) for n in call.children]
        await select(pilot, call)
        await pilot.press("enter")  # collapse
        await pilot.press("enter")  # expand again
        await pilot.pause()
        assert call.is_expanded
        assert [label_of(n) for n in call.children] == before


# -- copy, save, open ------------------------------------------------------------------------------


async def test_c_copies_the_selected_events_json(monkeypatch: pytest.MonkeyPatch):
    app = app_for(SAMPLE_424)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("f")
        await pilot.pause()
        await select(pilot, find_node(screen, lambda t: t.startswith("response.mcp_call.failed")))
        await pilot.press("c")
        await pilot.pause()
        assert len(copied) == 1
        assert json.loads(copied[0]) == EVENTS_424[FAILED_AT]
        assert copied[0] == pretty(EVENTS_424[FAILED_AT])
        assert any(f"Copied {len(copied[0]):,} characters of JSON" in t for t in toasts(pilot))

        screen = screen_of(pilot)
        await select(pilot, find_node(screen, lambda t: t.startswith("response.in_progress")))
        await pilot.press("c")
        await pilot.pause()
        assert json.loads(copied[-1]) == EVENTS_424[1]


async def test_save_to_writes_a_recording_of_the_sessions_events(tmp_path: Path):
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        written = screen.files.save_to(tmp_path / "saved.jsonl")
    loaded = load_path(str(written))
    assert loaded.problems == []
    assert [e.raw for e in loaded.events] == EVENTS_424
    assert [e.t for e in loaded.events] == [t for t, _ in recorded(SAMPLE_424)]
    assert loaded.header is not None
    assert loaded.header["source"]["original"] == str(SAMPLE_424)
    assert loaded.header["http"] == screen.session.header["http"]


async def test_s_asks_where_to_save_and_writes_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)  # so that the typed path is short
    target = "saved.jsonl"
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f", "s")
        await pilot.pause()
        prompt = pilot.app.screen
        assert not isinstance(prompt, InspectorScreen)
        answer = prompt.query_one(Input)
        assert answer.has_focus
        assert answer.value.endswith(".jsonl")  # a default is offered, selected
        await pilot.press(*target)  # typing replaces the selected default
        assert answer.value == target
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, InspectorScreen)
    loaded = load_path(str(tmp_path / target))
    assert [e.raw for e in loaded.events] == EVENTS_424  # all events, not only those applied
    assert loaded.problems == []


async def test_o_opens_another_recording(monkeypatch: pytest.MonkeyPatch):
    success = recorded_events(SAMPLE_SUCCESS)
    app = app_for(SAMPLE_424)
    monkeypatch.chdir(SAMPLE_SUCCESS.parent)  # so that the typed path is short
    async with app.run_test(size=SIZE) as pilot:
        before = screen_of(pilot)
        await pilot.press("end", "o")
        await pilot.pause()
        await pilot.press(*SAMPLE_SUCCESS.name, "enter")
        await pilot.pause()
        screen = screen_of(pilot)
        assert screen.session.source == SAMPLE_SUCCESS.name
        # The file shown before is gone, not kept under the new one (its timers, its events).
        assert await wait_until(pilot, lambda: not before.is_attached)
        assert app.screen_stack == [screen]
        # Opened whole, as `replay --instant` opens a file: not an empty tree at step 0.
        assert await wait_until(pilot, lambda: screen.session.timeline.at_end, timeout=10)
        await pilot.pause()
        assert f"step {len(success)} / {len(success)}" in header_text(screen)
        response = nodes_of_kind(screen, "response")
        assert len(response) == 1
        assert success[0]["response"]["id"] in label_of(response[0])
        assert RESPONSE_ID_424 not in "\n".join(labels(screen))
        assert any("mcp_call search_docs" in label for label in labels(screen))


async def test_o_with_a_missing_file_keeps_the_current_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        before = screen_of(pilot)
        await pilot.press("end", "o")
        await pilot.press(*"nope.jsonl", "enter")
        await pilot.pause()
        assert screen_of(pilot) is before
        assert before.session.timeline.position == len(EVENTS_424)


# -- palette and footer --------------------------------------------------------------------------


async def test_command_palette_lists_our_commands_and_runs_them():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        titles = [command.title for command in app.get_system_commands(screen)]
        offered = [a.title for a in ACTIONS if a.palette]
        assert offered and all(title in titles for title in offered)
        assert "Next failure" in titles

        await pilot.press("ctrl+p")
        await pilot.press(*"Next failure")
        palette = pilot.app.screen
        assert palette is not screen

        def best_match() -> str:
            options = palette.query(OptionList)
            if not options or not options.first().option_count:
                return ""
            return str(options.first().get_option_at_index(0).prompt)

        assert await wait_until(pilot, lambda: "Next failure" in best_match()), best_match()
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: screen.session.timeline.position > 0)
        assert screen_of(pilot) is screen
        assert screen.session.timeline.position == FAILED_AT + 1


async def test_every_shown_binding_is_in_the_footer():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: bool(footer_keys(screen)))
        in_footer = {(key.action, key.description) for key in footer_keys(screen)}
        # Live keys need a live run, `p` (probe) a failed call under the cursor, the cause
        # actions (re-run in the foreground, with only one tool) both, edit and re-send a run
        # that sends, and the tool workspace a server to call.
        contextual = [
            b
            for b in InspectorScreen.BINDINGS
            if b.action
            in screen.live_actions.LIVE_ACTIONS
            | screen.cause_actions.CAUSE_ACTIONS
            | screen.resend.ACTIONS
            | screen.tools.ACTIONS
            | {"probe"}
        ]
        assert contextual and not {b.action for b in contextual} & {a for a, _ in in_footer}
        shown = [b for b in InspectorScreen.BINDINGS if b.show and b not in contextual]
        assert len(shown) >= 10
        for binding in shown:
            assert (binding.action, binding.description) in in_footer, binding
        for binding in InspectorScreen.BINDINGS:
            if not binding.show:
                assert binding.action not in {action for action, _ in in_footer}
        active = screen.active_bindings
        for binding in shown:
            for key in binding.key.split(","):
                assert key in active, key


async def test_every_shown_binding_is_visible_in_the_footer():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: bool(footer_keys(screen)))
        footer = screen.query_one(FittingFooter)
        hidden = []
        for key, columns in footer_columns(screen):
            if not columns or any(
                x >= SIZE[0] or screen.get_widget_at(x, footer.region.y)[0] is not footer
                for x in columns
            ):
                hidden.append(key.description)
        shown = {b.description for b in InspectorScreen.BINDINGS if b.show}
        assert not shown & set(hidden), f"not visible: {sorted(shown & set(hidden))}"


async def test_detail_pane_does_not_show_events_that_are_not_applied():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert "search_files" in detail_text(screen)
        await pilot.press("home")
        await pilot.pause()
        assert labels(screen) == []
        assert "search_files" not in detail_text(screen)


# -- secrets in an imported file ----------------------------------------------------------------

LEAKY = ("AUTHSECRET9", "URLSECRET1", "PATHSECRET3", "sk-proj-LEAKLEAKLEAK1234")


def leaky_dump(tmp_path: Path) -> Path:
    """A dump someone made with another tool: the request's MCP headers, a secret URL and an
    API key, as sent, inside the response the stream echoes."""
    raws = [dict(e) for e in EVENTS_424]
    created = json.loads(json.dumps(raws[0]))
    tools = [
        {
            "type": "mcp",
            "server_label": "files",
            "server_url": "https://mcp.example.com/s/PATHSECRET3/mcp?api_key=URLSECRET1",
            "headers": {"Authorization": "Bearer AUTHSECRET9"},
        }
    ]
    # First in the object, so that the detail pane (and the screenshot) shows them on top.
    rest = {k: v for k, v in created["response"].items() if k not in ("tools", "metadata")}
    created["response"] = {"tools": tools, "metadata": {"note": "sk-proj-LEAKLEAKLEAK1234"}, **rest}
    raws[0] = created
    assert all(secret in json.dumps(raws) for secret in LEAKY)
    return write_chunks(tmp_path / "leaky.txt", raws)


async def test_an_imported_files_secrets_are_redacted_on_screen_in_copies_and_screenshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    app = app_for(leaky_dump(tmp_path))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("right")  # response.created
        await select(pilot, find_node(screen, lambda t: t.startswith("response.created")))
        shown = detail_text(screen)
        assert '"Authorization": "<redacted>"' in shown
        assert "s/<redacted>/mcp?api_key=<redacted>" in shown
        await pilot.press("c")
        await pilot.pause()
        assert copied and "<redacted>" in copied[0]

        await pilot.press("ctrl+p", *"Screenshot")
        await palette_offers(pilot, "Screenshot")
        await pilot.press("enter")
        assert await wait_until(
            pilot, lambda: any("Screenshot saved to" in t for t in toasts(pilot)), 5
        )
        (svg,) = tmp_path.glob("*.svg")  # beside the file opened

    for text in (shown, *copied, svg.read_text()):
        assert not any(secret in text for secret in LEAKY)
    assert "mcp.example.com/s/&lt;redacted&gt;/mcp" in svg.read_text()  # the pane was in it


# -- large content ------------------------------------------------------------------------------


async def test_a_multi_megabyte_delta_shows_its_first_screenfuls_and_more_on_m(tmp_path: Path):
    """One 2 MB delta: the message's detail shows the first 20,000 characters and says how
    many more there are; m shows five times as much. (Wrapping all of it on every repaint
    took over a minute per step with 10 MB.)"""
    raws = [dict(e) for e in EVENTS_424]
    delta_at = index_of(raws, "response.output_text.delta")
    raws[delta_at] = {**raws[delta_at], "delta": "word " * 400_000}
    total = sum(len(e["delta"]) for e in raws if e["type"] == "response.output_text.delta")
    app = app_for(write_chunks(tmp_path / "big.txt", raws))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        await select(pilot, find_node(screen, lambda t: "message" in t, kind="item"))
        shown = detail_text(screen)
        assert f"… {total - 20_000:,} more characters not shown: press m to show more" in shown
        assert shown.count("word") < 5_000

        await pilot.press("m")
        await pilot.pause()
        assert f"… {total - 100_000:,} more characters not shown" in detail_text(screen)

        await pilot.press("up")  # another selection starts short again
        await pilot.press("down")
        await pilot.pause()
        assert f"… {total - 20_000:,} more characters" in detail_text(screen)


async def test_clicking_a_view_s_name_in_the_right_pane_s_title_shows_it():
    """Issue 39: the "Detail Findings Waterfall" titles are clickable, not only `v`."""
    app = app_for(SAMPLE_424)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        side = screen.query_one("#side")
        title = "".join(segment.text for segment in side.render_lines(side.region.reset_offset)[0])
        for view, label in (
            ("findings", "Findings"),
            ("waterfall", "Waterfall"),
            ("detail", "Detail"),
        ):
            x = title.index(f" {label} ") + 2  # inside the name as drawn
            await pilot.click("#side", offset=(x, 0))
            await pilot.pause()
            assert screen.view == view, (label, x, title)
        await pilot.click("#side", offset=(1, 3))  # inside the pane: no change
        await pilot.pause()
        assert screen.view == "detail"
