"""Diagnosis in the app: likely causes beside a failure, conformance marks and the findings
list, the waterfall, and probing a failed call from the tree (against the real demo servers).

Sessions open paused at step 0 and are driven with keys; the checks run in a thread, so tests
wait for `screen.diagnosing.diagnosis` before asserting on what it shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _app_support import (
    SAMPLE_424,
    SAMPLE_TIMEOUT,
    SIZE,
    detail_text,
    find_node,
    footer_actions,
    header_text,
    label_of,
    long_recording,
    recorded_events,
    rendered_lines,
    renumbered,
    screen_of,
    select,
    wait_until,
    write_chunks,
)
from mcptui.emulator.demo import demo_servers
from mcptui.sources.live import Recorder, live_session
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.diagnosing import Diagnosing
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.findings import FindingsList
from mcptui.ui.widgets.waterfall import Waterfall
from textual.pilot import Pilot
from textual.widgets import Static


def app_for(path: Path | str) -> McptuiApp:
    return McptuiApp(open_session(str(path)), paused=True)


async def at_end_diagnosed(pilot: Pilot[Any]) -> InspectorScreen:
    screen = screen_of(pilot)
    await pilot.press("end")
    assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None)
    await pilot.pause()
    return screen


def failed_call(label: str) -> bool:
    return label.startswith("✗ mcp_call")


async def test_the_classic_424_shows_its_candidate_causes_beside_the_failure():
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        screen = await at_end_diagnosed(pilot)
        await select(pilot, find_node(screen, failed_call, kind="item"))
        text = detail_text(screen)
        assert "possible cause: Output schema without structuredContent" in text
        assert "likely cause" not in text  # the stream cannot single it out
        assert "too soon for a timeout" in text
        assert "listed its tools in this response" in text
        assert "try Return structuredContent that matches the outputSchema" in text
        assert "press p to probe" in text
        assert "probe" in footer_actions(screen)
        # The cause sits above the raw error JSON, where it is seen without scrolling.
        assert text.index("possible cause") < text.index("error as sent")
        # The sample conforms: the findings list says so (not "checking" forever).
        first = screen.query_one(FindingsList).get_option_at_index(0).prompt
        assert first.plain.startswith("No findings")
        # Elsewhere, `p` has nothing to act on and leaves the footer.
        await select(pilot, find_node(screen, lambda t: "mcp_list_tools" in t, kind="item"))
        assert "probe" not in footer_actions(screen)


async def test_a_timeout_shows_in_the_header_the_tree_and_the_waterfall():
    async with app_for(SAMPLE_TIMEOUT).run_test(size=SIZE) as pilot:
        screen = await at_end_diagnosed(pilot)
        assert "1 failure  1 warning  done" in header_text(screen)
        # Counted like failures, up to the current step: before the timeout, neither.
        await pilot.press("home", *["right"] * 13)
        assert "0 failures so far" in header_text(screen)
        assert "warning" not in header_text(screen)
        await pilot.press("right")  # mcp_call.failed: the failure and its warning
        assert "1 failure  1 warning so far" in header_text(screen)
        await pilot.press("end")
        failed = find_node(screen, lambda t: t.startswith("response.mcp_call.failed"))
        assert "⚠ likely_timeout" in label_of(failed)
        await select(pilot, find_node(screen, failed_call, kind="item"))
        text = detail_text(screen)
        assert "likely cause: Tool slower than the time limit" in text
        assert "tool time     60.24s from arguments.done to failed" in text

        await pilot.press("v", "v")
        assert screen.view == "waterfall"
        chart = screen.query_one(Waterfall).query_one(Static)
        rows = [line for line in rendered_lines(chart) if "#" in line]
        assert [row.split()[1] for row in rows] == [
            "mcp_list_tools",
            "reasoning",
            "mcp_call",
            "reasoning",
            "message",
        ]
        call = next(row for row in rows if "slow_report" in row)
        assert "60.31s (60.24s)" in call
        # Bars follow the stream's time axis: the reasoning after the call starts further right.
        assert rows[3].index("█") > call.index("█") > rows[0].index("█") - 1


async def test_docs_spelled_events_are_marked_listed_and_reachable(tmp_path: Path):
    raws = [
        {
            "type": "response.created",
            "response": {"id": "resp_docs", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "id": "mcp_1",
                "type": "mcp_call",
                "name": "search",
                "server_label": "demo",
                "arguments": "",
                "output": None,
                "error": None,
            },
        },
        {
            "type": "response.mcp_call.arguments.delta",
            "output_index": 0,
            "item_id": "mcp_1",
            "delta": '{"q": 1}',
        },
        {
            "type": "response.mcp_call.arguments.done",
            "output_index": 0,
            "item_id": "mcp_1",
            "arguments": '{"q": 1}',
        },
        {"type": "response.mcp_call.completed", "output_index": 0, "item_id": "mcp_1"},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "mcp_1",
                "type": "mcp_call",
                "name": "search",
                "server_label": "demo",
                "arguments": '{"q": 1}',
                "output": "ok",
                "error": None,
            },
        },
        {
            "type": "response.completed",
            "response": {"id": "resp_docs", "status": "completed", "output": []},
        },
    ]
    path = write_chunks(tmp_path / "docs.chunks.txt", renumbered(raws))
    async with app_for(path).run_test(size=SIZE) as pilot:
        screen = await at_end_diagnosed(pilot)
        assert "2 conformance errors" in header_text(screen)
        item = find_node(screen, lambda t: "mcp_call search" in t, kind="item")
        assert "⚠ 2 findings" in label_of(item)

        findings = screen.query_one(FindingsList)
        errors = [f for f in findings.findings if f.severity == "error"]
        assert [(f.code, f.suggestion) for f in errors] == [
            ("unknown_event_type", "response.mcp_call_arguments.delta"),
            ("unknown_event_type", "response.mcp_call_arguments.done"),
        ]

        # Choosing a finding steps to its event and shows it, with the suggestion.
        await pilot.press("home")
        await pilot.press("v")
        assert screen.view == "findings"
        assert findings.get_option_at_index(0).prompt.plain.startswith("2 errors")
        findings.focus()
        findings.highlighted = 1 + findings.findings.index(errors[1])  # below the summary
        await pilot.press("enter")
        await pilot.pause()
        assert screen.session.timeline.position == errors[1].event_index + 1
        assert screen.view == "detail"
        text = detail_text(screen)
        assert "type         response.mcp_call.arguments.done" in text
        assert "did you mean response.mcp_call_arguments.done" in text


@pytest.mark.parametrize("start", ["item", "event"])
async def test_probe_a_failed_call_from_the_tree(tmp_path: Path, start: str):
    """The demo's broken_schema call, probed with `p` from the item or from one of its events:
    the item is selected and its cause becomes confirmed."""
    with demo_servers() as servers:
        session, live = live_session(
            servers.emulator_url, "mcptui-demo", Recorder(tmp_path / "demo.jsonl"), source="demo"
        )
        app = McptuiApp(session, live=live, request=servers.request())
        async with app.run_test(size=SIZE) as pilot:
            screen = screen_of(pilot)
            timeline = screen.session.timeline

            def completed() -> bool:
                responses = timeline.state.responses
                return bool(responses) and responses[0].status == "completed"

            assert await wait_until(pilot, completed, timeout=20)
            assert await wait_until(
                pilot,
                lambda: (
                    screen.diagnosing.diagnosis is not None
                    and screen.diagnosing.diagnosis.item_causes != {}
                ),
                timeout=5,
            )
            item = find_node(screen, failed_call, kind="item")
            await select(pilot, item)
            assert "possible cause: Output schema without structuredContent" in detail_text(screen)
            if start == "event":
                await select(
                    pilot,
                    next(
                        n
                        for n in item.children
                        if label_of(n).startswith("response.mcp_call.failed")
                    ),
                )
                assert "probe" in footer_actions(screen)
            await pilot.press("p")
            assert screen.tree.cursor_node is item
            assert await wait_until(
                pilot, lambda: "confirmed cause" in detail_text(screen), timeout=15
            ), detail_text(screen)
            text = detail_text(screen)
            assert "confirmed cause: Output schema without structuredContent" in text
            assert (
                "nested cause: RuntimeError: Tool broken_schema has an output schema but "
                "did not return structured content" in text
            )
            assert "demo-secret-never-recorded" not in text
            await pilot.press("q")


async def test_a_live_stream_cut_short_is_found_unterminated_once_the_run_ends(tmp_path: Path):
    """While a run streams, an unfinished response is normal; when the run is over, a
    response with no terminal event is a finding."""
    with demo_servers() as servers:
        session, live = live_session(
            servers.emulator_url, "mcptui-demo", Recorder(tmp_path / "cut.jsonl"), source="demo"
        )
        request = {**servers.request(), "metadata": {"mcptui_fault": "drop_after:6"}}
        app = McptuiApp(session, live=live, request=request)
        async with app.run_test(size=SIZE) as pilot:
            screen = screen_of(pilot)

            def unterminated() -> bool:
                found = screen.diagnosing.diagnosis.findings if screen.diagnosing.diagnosis else []
                return any(f.code == "no_terminal_event" for f in found)

            assert await wait_until(pilot, unterminated, timeout=15)
            assert not any(w.is_running for w in app.workers if w.group == "live")
            # Polled: the check can finish before the 30 Hz tick has applied the events the
            # header counts findings up to (seen once on a loaded machine).
            assert await wait_until(
                pilot, lambda: "conformance error" in header_text(screen), timeout=5
            ), header_text(screen)
            await pilot.press("q")


async def test_p_is_offered_on_a_paste_that_names_its_server_and_explained_where_not(
    tmp_path: Path,
):
    """A paste carries the server URL in response.created's tools: `p` is offered there. With
    that event cut off, the detail says why there is no probe instead of offering one."""
    events = recorded_events(SAMPLE_424)
    pasted = tmp_path / "pasted.json"
    pasted.write_text(json.dumps(events))
    async with app_for(pasted).run_test(size=SIZE) as pilot:
        screen = await at_end_diagnosed(pilot)
        await select(pilot, find_node(screen, failed_call, kind="item"))
        assert "probe" in footer_actions(screen)
        assert "press p to probe" in detail_text(screen)

    without_tools = tmp_path / "no-tools.json"
    without_tools.write_text(
        json.dumps(
            [
                e
                for e in events
                if e["type"]
                not in ("response.created", "response.in_progress", "response.completed")
            ]
        )
    )
    async with app_for(without_tools).run_test(size=SIZE) as pilot:
        screen = await at_end_diagnosed(pilot)
        await select(pilot, find_node(screen, failed_call, kind="item"))
        assert "probe" not in footer_actions(screen)
        text = detail_text(screen)
        assert "press p to probe" not in text
        assert "no probe from here: this file names no server URL for 'files'" in " ".join(
            text.split()
        )


async def test_an_instant_replay_checks_the_events_once_it_has_jumped_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The jump to the end is painted first; the checks (a second read of the whole file)
    start after it, not beside it, and then show their findings."""
    session = open_session(str(long_recording(tmp_path / "long.jsonl", 5000)), instant=True)
    assert session.loading is not None  # read a piece at a time, after the first screen
    checked_at: list[int] = []
    diagnose = Diagnosing.diagnose

    def recording_diagnose(diagnosing: Diagnosing, *, force: bool = False) -> None:
        if diagnosing.screen.session.loading is None:
            checked_at.append(diagnosing.screen.session.timeline.position)
        diagnose(diagnosing, force=force)

    monkeypatch.setattr(Diagnosing, "diagnose", recording_diagnose)
    app = McptuiApp(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None, 30)
        total = screen.session.timeline.total
        assert checked_at and checked_at[0] == total  # not before the jump
        assert f"step {total} / {total}" in header_text(screen)
        assert "mcp_call search_files" in label_of(screen.tree.cursor_node)  # the failure
        causes = screen.diagnosing.diagnosis.causes(0, 2)
        assert causes and "structuredContent" in causes[0].cause.title
