"""Edit and re-send (`e`) and its verdict (`D`), against the emulator and the demo MCP server
on loopback: the demo's request fails on `broken_schema`; switching that tool off in the
editor's toggles and sending makes a response the header calls fixed, and `D` shows the two
side by side. The editor checks as you type, and never shows the request's header value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _app_support import (
    SAMPLE_424,
    demo_run,
    detail_text,
    footer_actions,
    header_text,
    screen_of,
    static_text,
    toasts,
    wait_until,
)
from mcptui.sources.live import Recorder, live_session
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.diff_screen import DiffScreen
from mcptui.ui.screens.edit_request import EditRequestScreen
from mcptui.ui.screens.inspector import InspectorScreen
from textual.pilot import Pilot
from textual.widgets import SelectionList, Static, TextArea

SECRET = "demo-secret-never-recorded"  # the demo request's X-Demo-Key header


def ended(screen: InspectorScreen, count: int) -> bool:
    responses = screen.session.timeline.final_state().responses
    return len(responses) == count and all(
        r.status in ("completed", "failed", "incomplete", "cancelled") for r in responses
    )


async def edit_and_send(pilot: Pilot[Any], *labels: str) -> None:
    """`e`, the toggles named switched, Ctrl+S: the edited request sent."""
    await pilot.press("e")
    assert await wait_until(pilot, lambda: isinstance(pilot.app.screen, EditRequestScreen), 5)
    for label in labels:
        await toggle(pilot, label)
    await pilot.press("ctrl+s")


async def toggle(pilot: Pilot[Any], label: str) -> None:
    """Tab to the toggles, move down to `label`, press space: as a person does."""
    editor = pilot.app.screen
    assert isinstance(editor, EditRequestScreen)
    listing = editor.query_one(SelectionList)
    if not listing.has_focus:
        await pilot.press("tab")
    prompts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
    target = prompts.index(label)
    for _ in range(len(prompts) + 1):
        if listing.highlighted == target:
            break
        await pilot.press("down")
    assert listing.highlighted == target
    await pilot.press("space")
    await pilot.pause()


async def test_switching_the_failing_tool_off_is_called_fixed_and_d_shows_the_diff(
    tmp_path: Path,
):
    recording = tmp_path / "demo.jsonl"
    with demo_run(recording) as (_servers, session, app):
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: ended(screen, 1), 20)
            assert await wait_until(pilot, lambda: "edit_request" in footer_actions(screen), 5)
            assert "diff_edited" not in footer_actions(screen)  # nothing to compare yet

            await pilot.press("e")
            assert await wait_until(pilot, lambda: isinstance(app.screen, EditRequestScreen), 5)
            editor = app.screen
            text = editor.query_one(TextArea).text
            assert SECRET not in text and '"X-Demo-Key": "${DEMO_X_DEMO_KEY}"' in text
            problems = editor.query_one("#edit-problems", Static)
            assert "a valid request" in static_text(problems)

            await toggle(pilot, "demo: allow broken_schema")
            changed = editor.query_one(TextArea).text
            assert '"allowed_tools": [' in changed and '"broken_schema"' not in changed
            await pilot.press("ctrl+s")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            assert await wait_until(pilot, lambda: ended(screen, 2), 20)
            assert await wait_until(pilot, lambda: bool(session.verdicts), 10)
            second = session.timeline.final_state().responses[1]
            assert session.verdicts[second.key].text == (
                "fixed: the response completes (broken_schema was not called)"
            )
            assert await wait_until(
                pilot,
                lambda: any("Response 2 against response 1: fixed" in t for t in toasts(pilot)),
            )
            await pilot.press("end")  # the header speaks of the response at the current step
            assert await wait_until(
                pilot, lambda: "✓ fixed: the response completes" in header_text(screen), 5
            ), header_text(screen)
            assert await wait_until(pilot, lambda: "diff_edited" in footer_actions(screen), 5)

            await pilot.press("D")
            assert await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen), 5)
            diff = app.screen
            assert isinstance(diff, DiffScreen)
            assert diff.names == ("response 1 (edited from)", "response 2 (edited)")
            assert any(
                change.kind == "only_in_a" and "broken_schema" in change.line
                for change in diff.comparison.changes
            )
            await pilot.press("escape")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            await pilot.press("q")
    text = recording.read_text()
    assert SECRET not in text
    assert text.count('"type":"response.created"') == 2  # the re-send is in the recording


async def test_a_bad_edit_is_named_with_its_place_and_is_not_sent(tmp_path: Path):
    with demo_run(tmp_path / "r.jsonl") as (_servers, session, app):
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: ended(screen, 1), 20)
            await pilot.press("e")
            assert await wait_until(pilot, lambda: isinstance(app.screen, EditRequestScreen), 5)
            editor = app.screen
            area = editor.query_one(TextArea)
            area.text = area.text.replace(
                '"stream": true', '"stream": true,\n  "background": "yes"'
            )
            await pilot.pause()
            shown = static_text(editor.query_one("#edit-problems", Static))
            assert "background: input should be a valid boolean" in shown
            area.text = area.text.replace('"model"', '"model" "x"', 1)
            await pilot.pause()
            shown = static_text(editor.query_one("#edit-problems", Static))
            assert "line 2, column" in shown and "not JSON" in shown
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is editor  # not sent
            assert any("Not sent: line 2" in t for t in toasts(pilot))
            await pilot.press("escape")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            assert len(session.timeline.final_state().responses) == 1


async def test_a_dump_without_its_request_says_what_to_run_instead(tmp_path: Path):
    events = [line for line in SAMPLE_424.read_text().splitlines()[1:] if '"event"' in line]
    dump = tmp_path / "events.jsonl"
    dump.write_text("\n".join(json.dumps(json.loads(line)["event"]) for line in events) + "\n")
    app = McptuiApp(open_session(str(dump)), paused=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        assert "edit_request" not in footer_actions(screen)
        screen.resend.action_edit_request()  # as the command palette would run it
        await pilot.pause()
        assert any("holds no request to edit" in t for t in toasts(pilot))
        assert not isinstance(app.screen, EditRequestScreen)


async def test_a_replay_sends_its_edited_request_once_given_a_key_and_its_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A recording's request, secrets redacted: `e` edits it; without OPENAI_API_KEY the
    editor says so and keeps the edit; with it, the header whose value was redacted is
    switched off, broken_schema too, and the re-send joins the replay as a live run,
    recorded to a file of its own, with its verdict."""
    monkeypatch.chdir(tmp_path)
    recording = tmp_path / "first.jsonl"
    with demo_run(recording) as (servers, _session, first):
        async with first.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: ended(screen_of(pilot), 1), 20)
            await pilot.press("q")

        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        app = McptuiApp(open_session(str(recording), instant=True), paused=True)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: bool(screen.check_action("edit_request", ())))
            assert "edit_request" not in footer_actions(screen)  # the line keeps the replay's keys
            await pilot.press("e")
            assert await wait_until(pilot, lambda: isinstance(app.screen, EditRequestScreen), 5)
            editor = app.screen
            title = static_text(editor.query_one("#edit-title", Static))
            assert "redacted in the recording: ${DEMO_X_DEMO_KEY}" in title
            await toggle(pilot, "demo: header X-Demo-Key")
            await toggle(pilot, "demo: allow broken_schema")
            await pilot.press("ctrl+s")
            assert await wait_until(
                pilot, lambda: any("a replay sends with your key" in t for t in toasts(pilot)), 5
            )
            assert app.screen is editor  # still open, the edit kept
            assert '"allowed_tools"' in editor.query_one(TextArea).text

            monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
            monkeypatch.setenv("OPENAI_BASE_URL", servers.emulator_url)
            await pilot.press("ctrl+s")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            assert await wait_until(pilot, lambda: bool(screen.session.verdicts), 20)
            (found,) = screen.session.verdicts.values()
            assert found.text == "fixed: the response completes (broken_schema was not called)"
            await pilot.press("q")
    written = list((tmp_path / "mcptui-recordings").glob("*.jsonl"))
    assert len(written) == 1  # the re-send's own recording
    text = written[0].read_text()
    assert '"type":"response.completed"' in text.replace(" ", "")
    assert SECRET not in text and "X-Demo-Key" not in json.loads(text.splitlines()[0])["request"][
        "tools"
    ][0].get("headers", {})


async def test_a_live_run_waiting_for_its_first_event_says_so(tmp_path: Path):
    """Issue 39's habits: not "step forward or press space" while the request is out."""
    import asyncio

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)  # the request arrives; no answer ever comes
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    session, live = live_session(
        f"http://127.0.0.1:{port}/v1", "sk-test", Recorder(tmp_path / "r.jsonl"), source="t"
    )
    app = McptuiApp(session, live=live, request={"model": "gpt-5", "input": "hi"})
    async with app.run_test(size=(120, 30)) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(
            pilot,
            lambda: "Waiting for the response's first event" in detail_text(screen),
            5,
        ), detail_text(screen)
        await pilot.press("q")
    server.close()
