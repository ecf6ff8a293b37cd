"""The header says who answers a live run when it is not OpenAI: `via azure`, at 80 columns,
before the response id that a narrow terminal cuts (tui/mcptui/ui/widgets/status.py)."""

from __future__ import annotations

import json
from pathlib import Path

from _app_support import rendered_lines, screen_of, wait_until
from mcptui.emulator.demo import demo_servers
from mcptui.emulator.runner import RunConfig
from mcptui.model.providers import endpoint_for
from mcptui.sources.live import Recorder, live_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.widgets.status import StatusHeader


async def test_an_azure_run_s_header_says_via_azure_at_80_columns(tmp_path: Path):
    recording = tmp_path / "azure.jsonl"
    with demo_servers(RunConfig(delta_delay=0.0, queue_delay=0.05)) as servers:
        origin = servers.emulator_url.removesuffix("/v1")
        endpoint = endpoint_for(f"{origin}/openai/v1?api-version=preview", "azure")
        session, live = live_session(
            endpoint, "azure-key-0123456789", Recorder(recording), source="demo"
        )
        app = McptuiApp(session, live=live, request=servers.request())
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(pilot)
            header = screen.query_one(StatusHeader)

            def first_line() -> str:
                return rendered_lines(header)[0]

            assert await wait_until(pilot, lambda: "via azure" in first_line(), timeout=5)
            timeline = screen.session.timeline
            assert await wait_until(
                pilot,
                lambda: (
                    bool(timeline.state.responses)
                    and timeline.state.responses[0].status is not None
                    and "resp_" in first_line()
                ),
                timeout=20,
            ), first_line()
            line = first_line()
            assert line.index("via azure") < line.index("resp_"), line
            await pilot.press("q")
    header_line = json.loads(recording.read_text().splitlines()[0])
    assert header_line["provider"] == "azure"
    assert "azure-key-0123456789" not in recording.read_text()


async def test_an_unknown_server_gets_no_label(tmp_path: Path):
    with demo_servers(RunConfig(delta_delay=0.0, queue_delay=0.05)) as servers:
        session, live = live_session(
            servers.emulator_url, "k", Recorder(tmp_path / "r.jsonl"), source="demo"
        )
        app = McptuiApp(session, live=live, request=servers.request())
        async with app.run_test(size=(80, 24)) as pilot:
            screen = screen_of(pilot)
            header = screen.query_one(StatusHeader)
            assert await wait_until(pilot, lambda: "resp_" in rendered_lines(header)[0], timeout=20)
            assert "via" not in rendered_lines(header)[0]
            assert screen.session.provider == "unknown"
            await pilot.press("q")
