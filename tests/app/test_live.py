"""Live runs in the terminal UI: approvals, cancel, re-run, and errors before the stream.

Each test starts the emulator and the demo MCP server on loopback ports (no API key, no
internet) and drives the app with keys, as a user would.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from _app_support import (
    detail_text,
    find_node,
    footer_actions,
    header_text,
    labels,
    palette_offers,
    screen_of,
    select,
    toasts,
    wait_until,
)
from mcptui.cli.main import main
from mcptui.emulator.demo import demo_servers
from mcptui.emulator.demo_server import build_app
from mcptui.net.serve import ServerThread
from mcptui.sources.live import Recorder, live_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from textual.pilot import Pilot

SIZE = (160, 40)


def request(servers_mcp: str, text: str, **extra: Any) -> dict[str, Any]:
    tool = {
        "type": "mcp",
        "server_label": "demo",
        "server_url": f"{servers_mcp}/mcp",
        "require_approval": extra.pop("require_approval", "never"),
    }
    return {"model": "gpt-5-mini", "input": text, "tools": [tool], **extra}


def statuses(screen: InspectorScreen) -> list[str | None]:
    return [resp.status for resp in screen.session.timeline.state.responses]


def settled(
    screen: InspectorScreen, check: Callable[[list[str | None]], bool]
) -> Callable[[], bool]:
    return lambda: screen.session.timeline.at_end and check(statuses(screen))


def recorded_types(path: Path) -> list[str]:
    out = []
    for line in path.read_text().splitlines()[1:]:
        entry = json.loads(line)
        out.append(entry["event"]["type"] if "event" in entry else f"note:{entry['note']['kind']}")
    return out


async def run_app(
    tmp_path: Path,
    body: Callable[[str], dict[str, Any]],
    script: Callable[[Pilot[Any], InspectorScreen], Any],
) -> Path:
    recording = tmp_path / "live.jsonl"
    with demo_servers() as servers:
        session, live = live_session(
            servers.emulator_url, "sk-test", Recorder(recording), source="test"
        )
        app = McptuiApp(session, live=live, request=body(servers.mcp_url))
        async with app.run_test(size=SIZE) as pilot:
            await script(pilot, screen_of(pilot))
    return recording


async def test_approve_sends_the_follow_up_into_the_same_session(tmp_path: Path):
    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        assert await wait_until(pilot, settled(screen, lambda s: s == ["completed"]), 15)
        await pilot.pause()
        (waiting,) = [label for label in labels(screen) if "mcp_approval_request" in label]
        assert waiting.startswith("? mcp_approval_request search @demo  awaiting approval")
        assert {"approve", "deny"} <= footer_actions(screen)
        await pilot.press("a")
        assert await wait_until(
            pilot, settled(screen, lambda s: s == ["completed", "completed"]), 15
        )
        await pilot.pause()
        shown = "\n".join(labels(screen))
        assert shown.count("✓ resp_") == 2
        first = screen.session.timeline.state.responses[0]
        (answered,) = [label for label in labels(screen) if "mcp_approval_request" in label]
        assert answered.startswith("✓ mcp_approval_request search @demo  approved")
        (request_note,) = [label for label in labels(screen) if "note request" in label]
        assert "approves search (mcpr_" in request_note and f"of {first.id}" in request_note
        second = screen.session.timeline.state.responses[1]
        assert second.previous_response_id == screen.session.timeline.state.responses[0].id
        (call,) = [item for item in second.items if item.type == "mcp_call"]
        assert call.status == "completed" and call.name == "search"
        assert "approve" not in footer_actions(screen)  # nothing left to answer

    recording = await run_app(
        tmp_path,
        lambda mcp: request(mcp, 'call search {"query": "x"}', require_approval="always"),
        script,
    )
    types = recorded_types(recording)
    assert types.count("response.created") == 2 and "note:request" in types
    entries = [json.loads(line) for line in recording.read_text().splitlines()[1:]]
    (approval_id,) = {
        e["event"]["item"]["id"]
        for e in entries
        if "event" in e and e["event"].get("item", {}).get("type") == "mcp_approval_request"
    }
    (follow_up,) = [
        e["note"]["request"] for e in entries if "note" in e and e["note"]["kind"] == "request"
    ]
    assert follow_up["input"] == [
        {"type": "mcp_approval_response", "approval_request_id": approval_id, "approve": True}
    ]
    # `inspect` tells the same story, the request note in its place between the responses.
    text = inspect_text(recording)
    assert "mcp_approval_request search  ✓ approved" in text
    assert (
        text.index("approved")
        < text.index(f"note request: POST /responses: HTTP 200 · approves search ({approval_id})")
        < text.rindex("resp_")
    )


def inspect_text(path: Path) -> str:
    """What `mcptui inspect PATH` prints, read the way a user would (no colour)."""
    out = io.StringIO()
    with redirect_stdout(out):
        main(["inspect", str(path)])
    return out.getvalue()


def inspect_json(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["inspect", "--json", str(path)])
    return json.loads(out.getvalue())


async def test_deny_answers_without_a_call(tmp_path: Path):
    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        assert await wait_until(pilot, settled(screen, lambda s: s == ["completed"]), 15)
        await pilot.pause()
        await pilot.press("d")
        assert await wait_until(
            pilot, settled(screen, lambda s: s == ["completed", "completed"]), 15
        )
        second = screen.session.timeline.state.responses[1]
        # gpt-5 is a reasoning model: a reasoning item before the answer, as real streams show
        assert [item.type for item in second.items] == ["mcp_list_tools", "reasoning", "message"]
        (answered,) = [label for label in labels(screen) if "mcp_approval_request" in label]
        assert "  denied" in answered and "awaiting" not in answered
        (request_note,) = [label for label in labels(screen) if "note request" in label]
        assert "denies search (mcpr_" in request_note

    await run_app(
        tmp_path,
        lambda mcp: request(mcp, 'call search {"query": "x"}', require_approval="always"),
        script,
    )


async def test_cancel_key_cancels_a_background_run(tmp_path: Path):
    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        assert await wait_until(pilot, lambda: "cancel_run" in footer_actions(screen), 10)
        assert await wait_until(
            pilot, lambda: any("mcp_call slow_search" in label for label in labels(screen)), 10
        )
        await pilot.press("x")
        assert await wait_until(pilot, settled(screen, lambda s: s == ["cancelled"]), 10)
        await pilot.pause()
        assert "cancelled" in header_text(screen)
        # The footer follows the bindings' refresh, a frame or so after the header.
        assert await wait_until(pilot, lambda: "cancel_run" not in footer_actions(screen), 10)
        # The call was still running: the final Response object lists it in_progress.
        (call,) = [label for label in labels(screen) if "mcp_call slow_search" in label]
        assert call.startswith("! mcp_call slow_search @demo  interrupted (response cancelled)")
        assert "completed" not in call

    recording = await run_app(
        tmp_path,
        lambda mcp: request(mcp, 'call slow_search {"query": "x", "delay_s": 5}', background=True),
        script,
    )
    types = recorded_types(recording)
    assert "note:cancel" in types and "response.completed" not in types
    text = inspect_text(recording)
    assert "mcp_call slow_search @demo  ! interrupted (response cancelled)" in text
    assert "note cancel: cancel requested" in text
    (response,) = inspect_json(recording)["responses"]
    (call,) = [item for item in response["items"] if item["type"] == "mcp_call"]
    assert (call["status"], call["shown_status"], call["status_reason"]) == (
        "in_progress",
        "interrupted",
        "response cancelled",
    )
    kinds = [note["kind"] for note in response["notes"]]
    assert kinds == sorted(kinds, key=["cancel", "status"].index), kinds  # in order
    assert "cancel" in kinds, kinds


def shown_request_id(screen: InspectorScreen) -> str:
    found = re.search(r"x-request-id (\S+)", header_text(screen))
    assert found, header_text(screen)
    return found.group(1)


async def test_rerun_adds_a_second_response_root_with_its_own_request_id(tmp_path: Path):
    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        assert await wait_until(pilot, settled(screen, lambda s: s == ["completed"]), 15)
        await pilot.pause()
        first = shown_request_id(screen)
        await pilot.press("r")
        assert await wait_until(
            pilot, settled(screen, lambda s: s == ["completed", "completed"]), 15
        )
        await pilot.pause()
        roots = [label for label in labels(screen) if label.startswith("✓ resp_")]
        assert len(roots) == 2 and roots[0] != roots[1]
        # The header names the answer now shown, not the first one.
        second = shown_request_id(screen)
        assert second.startswith("req_") and second != first
        await pilot.press("home")  # back at the start: the first answer's id again
        await pilot.press(*["right"] * 3)
        await pilot.pause()
        assert shown_request_id(screen) == first

    await run_app(tmp_path, lambda mcp: request(mcp, 'call search {"query": "x"}'), script)


async def test_an_http_error_before_the_stream_is_shown_with_its_body(tmp_path: Path):
    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        assert await wait_until(
            pilot, lambda: screen.session.timeline.at_end and screen.session.timeline.total == 1, 10
        )
        await pilot.pause()
        shown = labels(screen)
        assert shown[0].startswith("✗ no response: the request failed")
        assert "HTTP 424: Error retrieving tool list from MCP server: 'demo'" in shown[1]
        assert "1 failure" in header_text(screen)

    def unreachable(_mcp: str) -> dict[str, Any]:
        return request("http://127.0.0.1:9", "call search {}")

    recording = await run_app(tmp_path, unreachable, script)
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["http"]["status"] == 424
    assert recorded_types(recording) == ["note:http_error"]


async def test_the_clock_runs_while_a_slow_tool_keeps_the_stream_silent(tmp_path: Path):
    """slow_search takes 4 s and nothing arrives meanwhile: the header's clock, the call's
    duration in the tree and the header's `waiting N s for slow_search` move on anyway."""

    async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
        def call() -> str:
            return next((label for label in labels(screen) if "mcp_call slow_search" in label), "")

        assert await wait_until(pilot, lambda: "in_progress" in call(), 10)
        assert await wait_until(
            pilot, lambda: "waiting 2 s for slow_search" in header_text(screen), 10
        )
        clock = float(re.search(r"t=([\d.]+)s", header_text(screen)).group(1))
        shown = float(re.search(r"([\d.]+)s · \d+ ev", call()).group(1))
        assert clock >= 2.0 and shown >= 2.0, (header_text(screen), call())
        # the last event is seconds old: its own time is far behind the clock (shown to
        # 0.01 s: "waiting 2 s" comes at the last event's time + 2.0, shown as one digit less)
        last_t = screen.session.timeline.events[-1].t - screen.session.player.zero
        assert clock - last_t >= 2.0 - 0.01
        assert await wait_until(pilot, settled(screen, lambda s: s == ["completed"]), 15)
        assert await wait_until(pilot, lambda: "waiting" not in header_text(screen))

    await run_app(
        tmp_path, lambda mcp: request(mcp, 'call slow_search {"query": "x", "delay_s": 4}'), script
    )


async def test_a_screenshot_of_a_run_with_a_secret_server_url_holds_none_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The palette's Screenshot, taken on a live run whose MCP server URL holds secrets in
    its path and query: saved next to the recording, and redacted like it."""
    monkeypatch.chdir(tmp_path)
    secrets = ("URLSECRET1", "URLSECRET2", "PATHSECRET3xk7q")
    with ServerThread(build_app(path_token="PATHSECRET3xk7q")) as server:
        url = f"{server.url}/s/PATHSECRET3xk7q/mcp?api_key=URLSECRET1&token=URLSECRET2"

        async def script(pilot: Pilot[Any], screen: InspectorScreen) -> None:
            assert await wait_until(pilot, settled(screen, lambda s: s == ["completed"]), 15)
            await select(pilot, find_node(screen, lambda t: t.startswith("response.created")))
            shown = detail_text(screen)
            assert "/s/<redacted>/mcp?api_key=<redacted>" in shown
            # Scrolled to the tools, so the screenshot has the URL in it.
            line = next(n for n, text in enumerate(shown.splitlines()) if "server_url" in text)
            screen.detail.scroll_to(y=max(0, line - 5), animate=False)
            await pilot.press("ctrl+p", *"Screenshot")
            await palette_offers(pilot, "Screenshot")
            await pilot.press("enter")
            assert await wait_until(
                pilot, lambda: any("Screenshot saved to" in t for t in toasts(pilot)), 5
            )

        def secret_url_request(_mcp: str) -> dict[str, Any]:
            body = request("unused", 'call search {"query": "x"}')
            body["tools"][0]["server_url"] = url
            return body

        recording = await run_app(tmp_path, secret_url_request, script)
    (svg,) = tmp_path.glob("*.svg")  # beside the recording
    assert "s/&lt;redacted&gt;/mcp" in svg.read_text()
    for path in (svg, recording):
        assert not [s for s in secrets if s in path.read_text()], path
