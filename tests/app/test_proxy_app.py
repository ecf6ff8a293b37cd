"""`mcptui proxy` in the terminal UI, headless: an app's traffic appears live, one root per
response, with concurrent streams kept apart; quitting stops the proxy.

Uses the real emulator (unpaced) and demo MCP server on loopback ports, and the unmodified
openai SDK as "the app", in threads of its own.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from _app_support import find_node, header_text, labels, screen_of, toasts, wait_until
from mcptui.capture.proxy_run import ProxyService
from mcptui.emulator.app import Emulator
from mcptui.emulator.demo_server import build_app
from mcptui.emulator.runner import RunConfig
from mcptui.net.serve import ServerThread
from mcptui.ui.app import McptuiApp
from openai import OpenAI


def stream_all(base_url: str, body: dict[str, object], into: list[str]) -> None:
    with OpenAI(base_url=base_url, api_key="sk-app-key-0123456789", max_retries=0) as app:
        into.extend(event.type for event in app.responses.create(stream=True, **body))


async def test_captured_responses_appear_live_as_new_roots(tmp_path: Path):
    config = RunConfig(delta_delay=0.0, queue_delay=0.0)
    with ServerThread(build_app()) as mcp, ServerThread(Emulator(config).app) as emulator:
        service = ProxyService(f"{emulator.url}/v1", 0, tmp_path / "rec")
        address = service.address
        app = McptuiApp(service.session(), proxy=service)
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            screen = screen_of(pilot)
            header = header_text(screen)
            assert f"export OPENAI_BASE_URL={address}/v1" in header
            assert "● recording" in header

            tool = {
                "type": "mcp",
                "server_label": "demo",
                "require_approval": "never",
                "server_url": f"{mcp.url}/mcp",
            }
            slow = {
                "model": "gpt-5-mini",
                "tools": [tool],
                "input": 'q\ncall slow_search {"query": "x", "delay_s": 0.5}\n'
                'call broken_schema {"query": "x"}',
            }
            quick = {"model": "gpt-5-mini", "input": "hello"}
            received: list[str] = []
            apps = [
                threading.Thread(target=stream_all, args=(f"{address}/v1", body, received))
                for body in (slow, quick)
            ]
            for thread in apps:
                thread.start()
            timeline = screen.session.timeline

            def both_done() -> bool:
                done = [r for r in timeline.state.responses if r.status == "completed"]
                return len(done) == 2 and timeline.at_end and not any(t.is_alive() for t in apps)

            assert await wait_until(pilot, both_done, timeout=20), labels(screen)
            await pilot.pause()
            roots = [line for line in labels(screen) if line.startswith(("✓ resp_", "✗ resp_"))]
            assert len(roots) == 2, labels(screen)
            failed = find_node(screen, lambda t: "broken_schema" in t, kind="item")
            assert failed is not None and "failed" in str(failed.label)
            assert timeline.total == len(received) + 1  # every event, plus one request note
            assert toasts(pilot) == []
            await pilot.press("q")
    with socket.socket() as probe:
        host, port = address.removeprefix("http://").rsplit(":", 1)
        assert probe.connect_ex((host, int(port))) != 0  # the proxy stopped with the app
    recordings = list((tmp_path / "rec").glob("*.jsonl"))
    assert len(recordings) == 2
    assert all("sk-app-key" not in path.read_text() for path in recordings)
