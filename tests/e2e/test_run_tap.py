"""`mcptui run REQUEST.json --tap`: the stream and what crossed the MCP server's wire, in one
recording, and the likely cause confirmed from the wire with no probe.

Each failing demo tool runs through the installed command against the emulator and the demo
server (real loopback HTTP; the emulator's MCP client goes through whatever server_url the
request names, here the tap), then `inspect --json` reads the recording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _e2e_support import Servers
from test_run_cli import notes, request_body, run_cli, run_request

pytestmark = pytest.mark.xdist_group("test_run_tap")
"""One worker runs this module (`--dist loadgroup`, pyproject.toml): otherwise
its module fixture records a tapped run once in each worker that runs one of its tests."""

SECRET = "Bearer tap-secret-never-recorded"

CASES = {
    "broken_schema": (
        {"query": "x"},
        "output_schema_without_structured_content",
        "tools/list declared an outputSchema for broken_schema",
    ),
    "bad_content": ({"query": "x"}, "invalid_content", "content block 0 has type 'json'"),
    # MCPServer hides the RuntimeError (and would hide its own output check alike): the wire
    # cannot tell which, so the cause says both, the server's log tells.
    "failing_api": ({"query": "x"}, "hidden_exception", "Error executing tool failing_api"),
    "protocol_error": ({"query": "x"}, "protocol_error", "JSON-RPC error -32602"),
    "slow_search": ({"query": "x", "delay_s": 2.5}, "timeout", "got no answer"),
}


@dataclass
class Tapped:
    code: int
    header: dict[str, Any]
    wire: list[dict[str, Any]]
    failures: dict[str, list[dict[str, Any]]]
    """Tool name → the likely causes `inspect --json` gives its failed call."""


@pytest.fixture(scope="module")
def tapped(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Tapped:
    """One run calling every failing demo tool (and `search`, which works) through taps."""
    folder = tmp_path_factory.mktemp("tapped")
    lines = [("search", {"query": "x"}), *((tool, args) for tool, (args, _, _) in CASES.items())]
    body = request_body(servers, *lines, tool=servers.tool(headers={"Authorization": SECRET}))
    done, header, entries = run_request(servers, folder, body, "--tap")
    inspected = run_cli(["inspect", "--json", str(folder / "rec.jsonl")], folder)
    for text in ((folder / "rec.jsonl").read_text(), done.stdout, done.stderr, inspected.stdout):
        assert "tap-secret" not in text
    failures = {
        f["name"]: f["likely_causes"]
        for f in json.loads(inspected.stdout)["failures"]
        if f["type"] == "mcp_call"
    }
    return Tapped(done.returncode, header, notes(entries, "mcp"), failures)


def test_one_recording_holds_the_stream_and_the_wire(tapped: Tapped, servers: Servers):
    assert tapped.code == 1
    # The request recorded is the user's (the server's own URL), with the tap beside it.
    assert tapped.header["request"]["tools"][0]["server_url"] == f"{servers.mcp}/mcp"
    assert tapped.header["source"]["taps"][0]["server_url"] == f"{servers.mcp}/mcp"
    shown = [n["message"] for n in tapped.wire]
    for tool in ("search", *CASES):
        assert f"→ tools/call {tool}" in shown, shown
    listing = next(n for n in tapped.wire if n["message"].startswith("← result tools/list"))
    assert listing["server_labels"] == ["demo"]
    (declared,) = [t for t in listing["jsonrpc"]["result"]["tools"] if t["name"] == "broken_schema"]
    assert "outputSchema" in declared
    assert any(m.startswith("← result broken_schema  no structuredContent") for m in shown)
    answer = next(m for m in shown if m.startswith("← result search"))
    assert "no structuredContent" not in answer and " · " in answer  # how long it took
    assert "search" not in tapped.failures


@pytest.mark.parametrize("tool", list(CASES))
def test_the_wire_confirms_the_cause(tapped: Tapped, tool: str):
    _, cause, words = CASES[tool]
    causes = tapped.failures[tool]
    top = causes[0]
    wanted = "likely" if cause == "hidden_exception" else "confirmed"
    assert (top["cause"], top["confidence"]) == (cause, wanted), causes
    assert top["evidence"][0].startswith("tap: ") and words in top["evidence"][0], top
    assert not any(e.startswith("probe") for c in causes for e in c["evidence"])


def test_tap_refusals(tmp_path: Path, servers: Servers):
    body = request_body(servers, ("search", {"query": "x"}))
    body["tools"] = [{"type": "function", "name": "f", "parameters": {}}]
    (tmp_path / "request.json").write_text(json.dumps(body))
    done = run_cli(
        ["run", "request.json", "--tap", "--no-tui", "--base-url", servers.emulator], tmp_path
    )
    assert done.returncode == 2 and "no mcp tool with a server_url to tap" in done.stderr
    body = request_body(servers, ("search", {"query": "x"}))
    (tmp_path / "request.json").write_text(json.dumps(body))
    done = run_cli(
        [
            "run",
            "request.json",
            "--tap-public-url",
            "https://a.example",
            "--tap-public-url",
            "https://b.example",
            "--no-tui",
            "--base-url",
            servers.emulator,
        ],
        tmp_path,
    )
    assert done.returncode == 2 and "give one tunnel URL for each" in done.stderr
