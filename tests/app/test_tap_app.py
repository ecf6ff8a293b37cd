"""`mcptui run --tap` in the terminal UI: what crossed the MCP server's wire shows under the
call it belongs to, the detail pane shows the JSON-RPC message, the waterfall the call's time
on the wire, and the cause is confirmed by it. Real loopback servers (emulator, demo MCP
server, the taps); keys pressed as a user would."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from _app_support import (
    detail_text,
    find_node,
    labels,
    rendered_lines,
    screen_of,
    select,
    wait_until,
)
from mcptui.capture.tap_run import RunTaps
from mcptui.emulator.demo import demo_servers
from mcptui.sources.live import Recorder, live_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.widgets.waterfall import Waterfall
from textual.widgets import Static


async def test_the_wire_under_the_failed_call(tmp_path: Path):
    recording = tmp_path / "tapped.jsonl"
    with demo_servers() as servers:
        request: dict[str, Any] = {
            "model": "gpt-5-mini",
            "input": 'call broken_schema {"query": "x"}',
            "tools": [
                {
                    "type": "mcp",
                    "server_label": "demo",
                    "require_approval": "never",
                    "server_url": f"{servers.mcp_url}/mcp",
                    "headers": {"Authorization": "Bearer app-secret-never-shown"},
                }
            ],
        }
        session, live = live_session(
            servers.emulator_url,
            "sk-test",
            Recorder(recording),
            source="test",
            taps=RunTaps(request),
        )
        app = McptuiApp(session, live=live, request=request)
        async with app.run_test(size=(140, 45)) as pilot:
            screen = screen_of(pilot)
            assert await wait_until(
                pilot,
                lambda: (
                    screen.session.timeline.at_end
                    and [r.status for r in screen.session.timeline.state.responses] == ["completed"]
                    and screen.diagnosing.diagnosis is not None
                    # The tap's notes come on their own connection: the stream can be over
                    # and diagnosed before the call's wire rows are in the tree.
                    and "MCP → tools/call broken_schema" in labels(screen)
                    and any(
                        label.startswith("MCP ← result broken_schema") for label in labels(screen)
                    )
                ),
                15,
            )
            await pilot.pause()
            shown = labels(screen)
            call = next(i for i, label in enumerate(shown) if "mcp_call broken_schema" in label)
            below = shown[call + 1 :]
            below = below[
                : next((i for i, label in enumerate(below) if "message" in label), len(below))
            ]  # the call's children, up to the next item
            # The call on the wire may arrive before the stream's last argument delta (two
            # connections): it is shown after the arguments are done, its answer next.
            sent = below.index("MCP → tools/call broken_schema")
            assert below[sent - 1].startswith("response.mcp_call_arguments.done"), below
            assert below[sent + 1].startswith("MCP ← result broken_schema  no structuredContent")
            assert shown[call - 1].startswith(("▶ ✓ mcp_list_tools", "✓ mcp_list_tools")) or any(
                "mcp_list_tools" in label for label in shown[:call]
            )
            assert "MCP → initialize" in shown[:call]  # belongs to no item: under the response

            await select(pilot, find_node(screen, lambda t: t == "MCP → tools/call broken_schema"))
            await pilot.pause()
            detail = detail_text(screen)
            assert "JSON-RPC message" in detail and '"method": "tools/call"' in detail
            # the emulator's MCP client sends no trace context: said, not left out
            assert "trace context  none sent (no traceparent in _meta or the headers)" in detail
            assert "to the MCP server" in detail

            await select(pilot, find_node(screen, lambda t: "mcp_call broken_schema" in t, "item"))
            await pilot.pause()
            detail = detail_text(screen)
            assert "confirmed cause: Output schema without structuredContent" in detail
            assert "tap: tools/list declared an outputSchema for broken_schema" in detail

            await pilot.press("v", "v")
            assert screen.view == "waterfall"
            await pilot.pause()
            chart = "\n".join(rendered_lines(screen.query_one(Waterfall).query_one(Static)))
            wire_row = next(line for line in chart.splitlines() if "↳ tools/call" in line)
            assert "━" in wire_row and re.search(r"\d\.\d\ds $", wire_row)  # answered, when
            assert "app-secret" not in "\n".join(labels(screen)) + detail + chart
    assert "app-secret" not in recording.read_text()
