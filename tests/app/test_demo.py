"""`mcptui demo` in the terminal UI, headless: the live stream shows up, and quitting stops it.

Uses the real emulator and demo MCP server on loopback ports (no API key, no internet).
"""

from __future__ import annotations

import socket
from pathlib import Path

from _app_support import (
    detail_text,
    error_line,
    find_node,
    header_text,
    labels,
    screen_of,
    wait_until,
)
from mcptui.emulator.demo import demo_servers
from mcptui.sources.live import Recorder, live_session
from mcptui.ui.app import McptuiApp


def refused(url: str) -> bool:
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    with socket.socket() as sock:
        return sock.connect_ex((host, int(port))) != 0


async def test_demo_streams_live_into_the_tree_and_stops_cleanly(tmp_path: Path):
    recording = tmp_path / "demo.jsonl"
    with demo_servers() as servers:
        session, live = live_session(
            servers.emulator_url, "mcptui-demo", Recorder(recording), source="demo"
        )
        app = McptuiApp(session, live=live, request=servers.request())
        async with app.run_test(size=(140, 40)) as pilot:
            screen = screen_of(pilot)
            timeline = screen.session.timeline

            def completed() -> bool:
                responses = timeline.state.responses
                return bool(responses) and responses[0].status == "completed" and timeline.at_end

            assert await wait_until(pilot, completed, timeout=20), labels(screen)
            await pilot.pause()
            shown = "\n".join(labels(screen))
            assert shown.startswith("✓ resp_") and "completed" in labels(screen)[0]
            assert "✓ mcp_call search @demo  completed" in shown
            assert "✗ mcp_call broken_schema @demo  failed" in shown
            failed = find_node(screen, lambda t: "broken_schema" in t, kind="item")
            assert (
                error_line(failed) == "✗ http_error 424: unhandled errors in a TaskGroup "
                "(1 sub-exception)"
            )
            # The run has ended with a failure: the cursor went to it by itself.
            assert await wait_until(pilot, lambda: screen.tree.cursor_node is failed, timeout=10)
            assert await wait_until(
                pilot, lambda: "possible cause" in detail_text(screen), timeout=10
            )
            assert "response.mcp_call.failed" in shown  # the failed item opened by itself
            header = header_text(screen)
            assert "resp_" in header and "● recording" in header and "live: following" in header
            assert session.recording_path == str(recording)
            await pilot.press("q")
        urls = (servers.emulator_url, servers.mcp_url)
    assert all(refused(url) for url in urls)
    text = recording.read_text()
    assert "demo-secret-never-recorded" not in text
    assert text.count('"event"') == session.timeline.total
