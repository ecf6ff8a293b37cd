"""From a likely cause to an action: `u` re-runs a bare background failure in the foreground,
`t` re-runs with only the failed call's tool allowed. Live runs go against the emulator and the
demo MCP server on loopback (no API key, no internet); the replay is a shipped recording, where
nothing can be sent and the detail pane says what to run instead."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _app_support import (
    RECORDINGS,
    SAMPLE_424,
    detail_text,
    error_line,
    find_node,
    footer_actions,
    palette_offers,
    rendered_lines,
    screen_of,
    select,
    toasts,
    wait_until,
)
from mcptui.emulator.demo import demo_servers
from mcptui.emulator.runner import RunConfig
from mcptui.sources.live import Recorder, live_session
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.keys import KeysScreen
from textual.pilot import Pilot

SIZE = (160, 40)
BACKGROUND_FAILED = RECORDINGS / "background-failed.jsonl"


def mcp_tool(url: str, label: str = "demo") -> dict[str, Any]:
    return {"type": "mcp", "server_label": label, "server_url": url, "require_approval": "never"}


def ended(screen: InspectorScreen, count: int) -> Callable[[], bool]:
    """`count` responses, all terminal, every event applied."""

    def check() -> bool:
        responses = screen.session.timeline.state.responses
        return (
            screen.session.timeline.at_end
            and len(responses) == count
            and all(
                r.status in ("completed", "failed", "incomplete", "cancelled") for r in responses
            )
        )

    return check


async def run_live(
    tmp_path: Path,
    body: Callable[[str], dict[str, Any]],
    script: Callable[[Pilot[Any], InspectorScreen, dict[str, Any]], Any],
) -> None:
    # No pause between deltas or in the queue: these tests are about requests, not timing.
    with demo_servers(RunConfig(delta_delay=0.0, queue_delay=0.05)) as servers:
        session, live = live_session(
            servers.emulator_url, "sk-test", Recorder(tmp_path / "live.jsonl"), source="test"
        )
        sent = body(f"{servers.mcp_url}/mcp")
        app = McptuiApp(session, live=live, request=sent)
        async with app.run_test(size=SIZE) as pilot:
            await script(pilot, screen_of(pilot), sent)


async def help_text(pilot: Pilot[Any]) -> str:
    """The keys screen's text (`?`), closed again with Escape."""
    await pilot.press("question_mark")
    await pilot.pause()
    assert isinstance(pilot.app.screen, KeysScreen)
    text = "\n".join(rendered_lines(pilot.app.screen.query_one("Static")))
    await pilot.press("escape")
    await pilot.pause()
    return text


async def test_u_re_runs_a_bare_background_failure_in_the_foreground(tmp_path: Path):
    """The cause's "try" as a key: the foreground run shows the mcp_call's own error, and `t`
    on that call then re-runs the foreground request with only its tool."""

    def body(url: str) -> dict[str, Any]:
        return {
            "model": "gpt-5-mini",
            "input": 'call broken_schema {"query": "x"}',
            "tools": [mcp_tool(url)],
            "background": True,
            "metadata": {"mcptui_fault": "background_fail"},
        }

    async def script(pilot: Pilot[Any], screen: InspectorScreen, sent: dict[str, Any]) -> None:
        original = copy.deepcopy(sent)
        assert await wait_until(pilot, ended(screen, 1), 10)
        # The run ended on the bare failure: the cursor is on it, its cause offers the key.
        assert await wait_until(pilot, lambda: "rerun_foreground" in footer_actions(screen), 5)
        assert "rerun_only_tool" not in footer_actions(screen)  # no failed call to isolate
        cause = "likely cause: Background run failed without the MCP error"
        assert await wait_until(pilot, lambda: cause in detail_text(screen), 5), detail_text(screen)
        shown = detail_text(screen)
        assert "press u to do it now: the same request with background off" in shown
        assert "Re-run in foreground" in await help_text(pilot)

        await pilot.press("u")
        # The toast says so as the re-run starts (it may be gone once a slow run has ended).
        assert await wait_until(
            pilot, lambda: any("Re-running in the foreground" in t for t in toasts(pilot)), 5
        )
        assert await wait_until(pilot, ended(screen, 2), 15)
        await pilot.pause()
        first, second = screen.session.timeline.state.responses
        assert second.id != first.id
        # The second root, as shown: not background, and now the mcp_call's own error shows.
        await select(
            pilot, find_node(screen, lambda t: t.startswith(f"✓ {second.id}"), kind="response")
        )
        assert "background  false" in detail_text(screen)
        call = find_node(screen, lambda t: t.startswith("✗ mcp_call broken_schema @demo"))
        assert "424: unhandled errors in a TaskGroup" in (error_line(call) or "")
        # What the emulator stored for the new response.
        assert screen.live_actions.live is not None
        stored = await screen.live_actions.live.client.responses.retrieve(second.id)
        assert stored.background is False
        assert sent == original  # the run's own request is untouched
        assert "rerun_foreground" not in footer_actions(screen)  # this one did not fail

        # `t` on the call the foreground run showed isolates it in that run's request: still
        # in the foreground, not back to the bare background failure.
        await select(pilot, call)
        assert await wait_until(pilot, lambda: "rerun_only_tool" in footer_actions(screen), 3)
        await pilot.press("t")
        assert await wait_until(pilot, ended(screen, 3), 15)
        third = screen.session.timeline.state.responses[2]
        assert third.background is False and third.status == "completed"
        assert [tool["allowed_tools"] for tool in third.tools] == [["broken_schema"]]
        assert sent == original

    await run_live(tmp_path, body, script)


async def test_t_re_runs_with_only_the_failed_tool_allowed(tmp_path: Path):
    def body(url: str) -> dict[str, Any]:
        return {
            "model": "gpt-5-mini",
            "input": 'call broken_schema {"query": "x"}',
            "tools": [mcp_tool(url), mcp_tool(url, "other")],
        }

    async def script(pilot: Pilot[Any], screen: InspectorScreen, sent: dict[str, Any]) -> None:
        original = copy.deepcopy(sent)
        assert await wait_until(pilot, ended(screen, 1), 10)
        # The run ended on the failed call: selected, with the key offered.
        assert await wait_until(pilot, lambda: "rerun_only_tool" in footer_actions(screen), 5)
        assert "rerun_foreground" not in footer_actions(screen)
        assert (
            "press t to isolate this call: the same request with only 'broken_schema' "
            "allowed on 'demo'" in detail_text(screen)
        )
        assert "Re-run with only this tool" in await help_text(pilot)

        await pilot.press("t")
        isolating = "Re-running with only 'broken_schema' allowed on 'demo'"
        assert await wait_until(pilot, lambda: any(isolating in t for t in toasts(pilot)), 5)
        assert await wait_until(pilot, ended(screen, 2), 15)
        await pilot.pause()
        second = screen.session.timeline.state.responses[1]
        # The tools the emulator echoed in response.created, as the detail pane shows them.
        echoed = {tool["server_label"]: tool["allowed_tools"] for tool in second.tools}
        assert echoed == {"demo": ["broken_schema"], "other": None}
        await select(
            pilot, find_node(screen, lambda t: t.startswith(f"✓ {second.id}"), kind="response")
        )
        shown = detail_text(screen)
        assert '"allowed_tools": [\n      "broken_schema"\n    ]' in shown
        assert sent == original

    await run_live(tmp_path, body, script)


async def test_a_replay_says_what_to_run_instead_and_offers_no_key():
    app = McptuiApp(open_session(str(BACKGROUND_FAILED)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end", "f")  # the last step, then the failure
        assert await wait_until(
            pilot,
            lambda: (
                screen.diagnosing.diagnosis is not None
                and "likely cause: Background run failed" in detail_text(screen)
            ),
        )
        assert (
            'run `mcptui run REQUEST.json` with "background": false (a replay cannot send '
            "requests)" in detail_text(screen)
        )
        assert not {"rerun_foreground", "rerun_only_tool"} & footer_actions(screen)
        count = screen.session.timeline.total
        await pilot.press("u")  # hidden: nothing is sent (there is nothing to send with)
        # From the palette it says why.
        await pilot.press("ctrl+p", *"foreground")
        await palette_offers(pilot, "foreground")
        await pilot.press("enter")
        assert await wait_until(
            pilot,
            lambda: any(
                "A replay cannot send requests: run `mcptui run REQUEST.json` with "
                '"background": false.' in t
                for t in toasts(pilot)
            ),
            3,
        ), toasts(pilot)
        assert screen_of(pilot) is screen and screen.session.timeline.total == count


async def test_a_replayed_failed_call_says_how_to_isolate_it():
    app = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end", "f")
        assert await wait_until(pilot, lambda: "to isolate this call" in detail_text(screen))
        assert (
            'to isolate this call, run `mcptui run REQUEST.json` with "allowed_tools": '
            "[\"search_files\"] in the 'files' mcp tool (a replay cannot send requests)"
        ) in detail_text(screen)
        assert "rerun_only_tool" not in footer_actions(screen)
