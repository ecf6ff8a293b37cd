"""`mcptui demo --no-tui` as a user runs it: a separate process, no API key, no terminal."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

from _cli_fork import forked_cli
from mcptui.emulator.demo import DEMO_REQUEST
from mcptui.sources.request_file import expand

REPO = Path(__file__).resolve().parents[2]


def test_shipped_request_file_is_the_demo_request():
    shipped = json.loads((REPO / "requests" / "demo.json").read_text())
    assert expand(shipped, {}) == DEMO_REQUEST  # ${MCP_URL:-…} falls back to the demo's URL


def test_demo_without_tui_runs_records_and_leaves_nothing_behind(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    done = forked_cli(["demo", "--no-tui", "--record", "demo.jsonl"], tmp_path, env, timeout=60)
    assert done.returncode == 1, done.stderr  # 1: the run contains a failure (the classic 424)
    out = done.stdout
    assert "response.mcp_call.failed" in out  # a progress line, printed as it arrived
    assert "mcp_call broken_schema @demo  ✗ failed" in out
    assert "mcp_call search @demo  ✓ completed" in out
    assert "424: unhandled errors in a TaskGroup" in out
    assert "Traceback" not in done.stderr

    lines = (tmp_path / "demo.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["http"]["status"] == 200 and header["http"]["headers"]["x-request-id"]
    assert "demo-secret-never-recorded" not in "\n".join(lines)
    assert json.loads(lines[-1])["event"]["type"] == "response.completed"
    # Both servers were in the process that exited: their ports are closed now.
    for url in (header["endpoint"], header["request"]["tools"][0]["server_url"]):
        parts = urlsplit(url)
        with socket.socket() as sock:
            assert sock.connect_ex((parts.hostname, parts.port)) != 0, url
