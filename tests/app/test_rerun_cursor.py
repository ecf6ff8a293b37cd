"""After a re-run (`r`) or an edited re-send (`e`), the cursor lands on the new response's
failure once it has ended, or on the new response when it has none; not on the failure of
the response before it. Against the emulator and the demo MCP server on loopback, whose demo
request fails on broken_schema. (A move of the user's meanwhile, which a live stream's pace
cannot make certain here: tests/unit/test_playback_alone.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from _app_support import demo_run, label_of, screen_of, wait_until
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.event_tree import NodeRef
from test_edit_resend import edit_and_send, ended
from textual.widgets.tree import TreeNode


def cursor(screen: InspectorScreen) -> TreeNode[NodeRef] | None:
    return screen.tree.cursor_node


def cursor_label(screen: InspectorScreen) -> str:
    node = cursor(screen)
    return label_of(node) if node is not None else "(no cursor)"


def on_failed_call_of(screen: InspectorScreen, response: int) -> bool:
    """The cursor is on response `response`'s (0-based) failed broken_schema call."""
    node = cursor(screen)
    ref = node.data if node is not None else None
    return (
        node is not None
        and ref is not None
        and ref.kind == "item"
        and ref.response == response
        and label_of(node).startswith("✗ mcp_call broken_schema")
    )


async def test_a_replays_edited_re_send_lands_on_its_own_failure_not_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The replay opens on response 1's failure; `e` re-sends its request (its redacted
    header switched off, broken_schema still allowed): response 2 fails the same way, and
    the cursor goes to response 2's failure (it stayed on response 1's)."""
    monkeypatch.chdir(tmp_path)
    recording = tmp_path / "first.jsonl"
    with demo_run(recording) as (servers, _session, first):
        async with first.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: ended(screen_of(pilot), 1), 20)
            await pilot.press("q")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", servers.emulator_url)
        app = McptuiApp(open_session(str(recording), instant=True), open_at="failure")
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: on_failed_call_of(screen, 0), 5)
            await edit_and_send(pilot, "demo: header X-Demo-Key")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            assert await wait_until(pilot, lambda: ended(screen, 2), 20)
            assert await wait_until(pilot, lambda: on_failed_call_of(screen, 1), 5), cursor_label(
                screen
            )


async def test_a_live_re_send_that_fixes_it_lands_on_the_new_response(tmp_path: Path):
    """`e` with broken_schema switched off: response 2 completes, with no failure; the
    cursor goes to response 2 itself (its headline), not to response 1's failure."""
    with demo_run(tmp_path / "demo.jsonl") as (_servers, _session, app):
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: ended(screen, 1), 20)
            assert await wait_until(pilot, lambda: on_failed_call_of(screen, 0), 5)
            await edit_and_send(pilot, "demo: allow broken_schema")
            assert await wait_until(pilot, lambda: ended(screen, 2), 20)

            def on_response_2() -> bool:
                node = cursor(screen)
                ref = node.data if node is not None else None
                return ref is not None and (ref.kind, ref.response) == ("response", 1)

            assert await wait_until(pilot, on_response_2, 5), cursor_label(screen)


async def test_a_re_run_lands_on_its_own_failure(tmp_path: Path):
    with demo_run(tmp_path / "demo.jsonl") as (_servers, _session, app):
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(pilot, lambda: ended(screen, 1), 20)
            assert await wait_until(pilot, lambda: on_failed_call_of(screen, 0), 5)
            await pilot.press("r")
            assert await wait_until(pilot, lambda: ended(screen, 2), 20)
            assert await wait_until(pilot, lambda: on_failed_call_of(screen, 1), 5), cursor_label(
                screen
            )
