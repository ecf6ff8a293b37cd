"""A lone surrogate (`\\ud800` as a JSON escape) in the live paths: a request, tool arguments,
the MCP messages, the events (issue 35 C2). `run` records it, the proxy keeps the exchange,
the tap goes on recording after it; every file is valid UTF-8 and reads back."""

from __future__ import annotations

from pathlib import Path

from _e2e_support import Servers
from mcptui.capture.captures import CaptureHub
from mcptui.capture.relay import RecordingProxy
from mcptui.capture.tap import TapHub
from mcptui.io.formats import load_path
from mcptui.net.serve import ServerThread
from test_run_cli import run_cli


def test_run_proxy_and_tap_record_a_lone_surrogate(servers: Servers, tmp_path: Path):
    tap_hub = TapHub(f"{servers.mcp}/mcp", tmp_path / "tap.jsonl")
    proxy_hub = CaptureHub(servers.emulator, tmp_path / "proxy")
    problems: list[str] = []
    tap_hub.on_problem = proxy_hub.on_problem = problems.append
    with (
        ServerThread(RecordingProxy(tap_hub)) as tap,
        ServerThread(RecordingProxy(proxy_hub)) as proxy,
    ):
        for stream in ("true", "false"):
            request = (
                '{"model": "gpt-5-mini", "stream": STREAM, "input": "q \\ud800\\ncall '
                'search {\\"query\\": \\"x\\\\ud800y\\"}\\ncall search {\\"query\\": '
                '\\"after\\"}", "metadata": {"\\udc00": "\\ud800"}, "tools": [{"type": '
                '"mcp", "server_label": "demo", "server_url": "TAP/mcp", '
                '"require_approval": "never"}]}'
            )
            (tmp_path / "request.json").write_text(
                request.replace("STREAM", stream).replace("TAP", tap.url)
            )
            done = run_cli(
                [
                    "run",
                    "request.json",
                    "--no-tui",
                    "--base-url",
                    f"{proxy.url}/v1",
                    "--record",
                    f"run-{stream}.jsonl",
                ],
                tmp_path,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        tap_hub.close()
        proxy_hub.close()
    assert problems == []
    files = [
        tmp_path / "run-true.jsonl",
        tmp_path / "run-false.jsonl",
        tmp_path / "tap.jsonl",
        *sorted((tmp_path / "proxy").glob("*.jsonl")),
    ]
    assert len(files) == 5  # both exchanges kept by the proxy
    for path in files:
        text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
        assert "ud800" in text, path
        loaded = load_path(str(path))
        assert not loaded.problems and loaded.events, path
    tap_text = (tmp_path / "tap.jsonl").read_text()
    assert tap_text.count('"after"') >= 2  # the tap went on recording after the surrogate
