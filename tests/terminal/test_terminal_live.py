"""Live runs in a real terminal: `mcptui demo`, and `mcptui run` against the CLI's own servers.

Why: live keys (probe, re-run, approve, deny, cancel) act on a stream still arriving and on
worker threads; a real pty and real processes on loopback are the only way to see them as a
person does, including the recording left on disk after Ctrl+C.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _ports import free_port
from _tmux import (
    REQUESTS,
    WAIT,
    MakeTerminal,
    Terminal,
    jsonl_ok,
    kill,
    mcptui_command,
    panes,
    tmux_binary,
    wait_for_port,
)

pytestmark = pytest.mark.xdist_group("test_terminal_live")
"""One worker runs this module (`--dist loadgroup`, pyproject.toml): otherwise
its module fixture starts two server processes once in each worker that runs one of its tests."""

ROOT = re.compile(r"^[▼▶]\s+\S+\s+resp_")
LIVE_WAIT = 30.0


def roots(screen: str) -> int:
    """How many response roots the tree shows."""
    return sum(1 for row in panes(screen)[0] if ROOT.match(row))


def two_responses(screen: str) -> bool:
    return roots(screen) >= 2 or "response 2 of 2" in screen


def footer(screen: str) -> str:
    rows = [row for row in screen.splitlines() if row.strip()]
    return rows[-1] if rows else ""


def wait_for_keys(terminal: Terminal, *labels: str, timeout: float = WAIT) -> None:
    """Until the footer offers every one of `labels` (`Probe`, `Cancel run`…), then healthy."""
    terminal.wait_until(
        lambda s: all(re.search(rf"\b{label}\b", footer(s)) for label in labels),
        f"{' and '.join(labels)} in the footer",
        timeout=timeout,
    )
    terminal.assert_healthy()


# -- 11. the demo ----------------------------------------------------------------------------


def test_demo_probe_rerun_and_ctrl_c_leave_a_valid_recording(
    terminal: Terminal, tmp_path: Path
) -> None:
    terminal.start("demo")
    terminal.wait_for("424", timeout=LIVE_WAIT)
    terminal.assert_healthy()
    # Once the run ends the cursor lands on the failed broken_schema call: `p` applies.
    terminal.wait_for("response.completed", timeout=LIVE_WAIT)
    wait_for_keys(terminal, "Probe")  # the failed call is selected
    terminal.send("p")
    terminal.wait_for("confirmed", timeout=LIVE_WAIT)
    terminal.assert_healthy()

    terminal.send("r")
    terminal.wait_until(two_responses, "a second response root", timeout=LIVE_WAIT)
    terminal.assert_healthy()

    terminal.send("C-c")
    code = terminal.exit_code()
    terminal.assert_healthy(alive=False)
    # The demo's run holds its 424: the app exits as inspect would.
    assert code == 1, f"exit code {code} after ctrl+c:\n{terminal.history()}"

    recordings = sorted((tmp_path / "mcptui-recordings").glob("*.jsonl"))
    assert recordings, f"no recording in {tmp_path / 'mcptui-recordings'}"
    for recording in recordings:
        rows = jsonl_ok(recording)
        assert rows and rows[0].get("mcptui") == "recording", f"{recording}: no header line"
        types = {row["event"].get("type") for row in rows if isinstance(row.get("event"), dict)}
        assert types & {"response.completed", "response.failed", "response.incomplete"}, (
            f"{recording}: no terminal event among {sorted(t for t in types if t)}"
        )


# -- 12. run against the CLI's servers: approvals, cancel --------------------------------------


class Servers:
    def __init__(self, mcp_port: int, api_port: int) -> None:
        self.mcp = f"http://127.0.0.1:{mcp_port}/mcp"
        self.api = f"http://127.0.0.1:{api_port}/v1"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """`mcptui demo-server` and `mcptui emulate` as background processes on free ports."""
    tmux_binary()
    command = str(mcptui_command())
    logs = tmp_path_factory.mktemp("servers")
    mcp_port, api_port = free_port(), free_port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for name, args, port in [
            ("demo-server", ["demo-server"], mcp_port),
            ("emulate", ["emulate"], api_port),
        ]:
            log = (logs / f"{name}.log").open("wb")
            procs.append(
                subprocess.Popen(
                    [command, *args, "--port", str(port)],
                    cwd=logs,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
            wait_for_port(port, proc=procs[-1])
        yield Servers(mcp_port, api_port)
    finally:
        kill(procs)


def request_file(tmp_path: Path, name: str, servers: Servers, **changes: object) -> Path:
    """A copy of requests/<name> pointed at the test's MCP server."""
    body = json.loads((REQUESTS / name).read_text())
    for tool in body["tools"]:
        tool["server_url"] = servers.mcp
    for key, value in changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return path


def run(terminal: Terminal, request: Path, servers: Servers) -> Terminal:
    return terminal.start("run", request, "--base-url", servers.api, env={"OPENAI_API_KEY": "test"})


def wait_for_approval(terminal: Terminal) -> None:
    terminal.wait_for("mcp_approval_request", timeout=LIVE_WAIT)
    wait_for_keys(terminal, "Approve", "Deny")


def test_approve_streams_a_second_response_with_the_call(
    terminal: Terminal, tmp_path: Path, servers: Servers
) -> None:
    run(terminal, request_file(tmp_path, "approval.json", servers), servers)
    wait_for_approval(terminal)
    terminal.send("a")
    terminal.wait_for("Approved search")
    terminal.wait_until(
        lambda s: two_responses(s) and bool(re.search(r"✓ mcp_call search\b", s)),
        "a second response with a completed mcp_call search",
        timeout=LIVE_WAIT,
    )
    terminal.assert_healthy()


def test_deny(terminal: Terminal, tmp_path: Path, servers: Servers) -> None:
    run(terminal, request_file(tmp_path, "approval.json", servers), servers)
    wait_for_approval(terminal)
    terminal.send("d")
    terminal.wait_for("Denied")
    terminal.assert_healthy()


def test_cancel_a_background_run_then_rerun(
    terminal_factory: MakeTerminal, tmp_path: Path, servers: Servers
) -> None:
    body = json.loads((REQUESTS / "background.json").read_text())
    slow = body["input"].replace('"delay_s": 3', '"delay_s": 10')
    assert slow != body["input"], "requests/background.json changed: update this test"
    request = request_file(tmp_path, "background.json", servers, metadata=None, input=slow)
    term = run(terminal_factory(), request, servers)
    wait_for_keys(term, "Cancel run", timeout=LIVE_WAIT)
    term.send("x")
    term.wait_for("cancelled", timeout=LIVE_WAIT)
    term.assert_healthy()
    term.send("r")
    term.wait_until(two_responses, "a new response root after r", timeout=LIVE_WAIT)
    term.assert_healthy()


# -- 15. the recording proxy, with another program as the app ----------------------------------


def test_proxy_shows_an_apps_responses_live_at_80_columns(
    terminal_factory: MakeTerminal, tmp_path: Path, servers: Servers
) -> None:
    port = free_port()
    term = terminal_factory(80, 24).start(
        "proxy", "--port", port, "--upstream", servers.api, "--record", "rec"
    )
    term.wait_for(f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1")
    term.assert_healthy()
    # The app: `mcptui run` itself, a separate program that knows nothing of the proxy.
    app = subprocess.run(
        [
            str(mcptui_command()),
            "run",
            str(request_file(tmp_path, "demo.json", servers)),
            "--no-tui",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--record",
            "app.jsonl",
        ],
        cwd=tmp_path,
        env={**os.environ, "OPENAI_API_KEY": "sk-app-secret-0123456789"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=LIVE_WAIT,
    )
    assert app.returncode == 1, app.stdout + app.stderr  # the demo's 424, seen by the app
    term.wait_until(
        lambda s: roots(s) >= 1 and "failed" in s,
        "the app's response with its failed call",
        timeout=LIVE_WAIT,
    )
    term.assert_healthy()
    term.send("q")
    term.wait_until(lambda s: not term.alive(), "the proxy to quit")
    assert term.status() == "0"
    recordings = list((term.workdir / "rec").glob("*.jsonl"))
    assert len(recordings) == 1
    assert "sk-app-secret" not in recordings[0].read_text()


# -- 13. the fix loop: edit and re-send, the tool workspace (issue 38) -------------------------


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_edit_turning_the_failing_tool_off_is_called_fixed(
    terminal_factory: MakeTerminal, tmp_path: Path, servers: Servers, size: tuple[int, int]
) -> None:
    term = run(terminal_factory(*size), request_file(tmp_path, "demo.json", servers), servers)
    wait_for_keys(term, "Edit", timeout=LIVE_WAIT)
    term.wait_for("response.completed", timeout=LIVE_WAIT)
    term.send("e")
    term.wait_for("Edit and re-send")
    screen = term.wait_for("${DEMO_X_DEMO_KEY}")  # the header's value stays hidden
    assert "demo-secret-never-recorded" not in screen
    term.send("Tab")  # to the toggles
    term.wait_until(
        lambda s: "allow broken_schema" in s, "the toggle for broken_schema", timeout=WAIT
    )
    for _ in range(3):  # background, require_approval, then broken_schema
        term.send("Down")
    term.send("Space")
    term.wait_for('"allowed_tools"')  # the editor shows what the toggle changed
    term.send("C-s")
    term.wait_for("fixed: the response completes (broken_schema was not called)", timeout=LIVE_WAIT)
    term.assert_healthy()
    term.send("D")
    term.wait_for("edited from")
    term.send("Escape")
    term.wait_gone("edited from")
    term.assert_healthy()


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_the_tool_workspace_calls_the_failed_tool_from_its_form(
    terminal_factory: MakeTerminal, tmp_path: Path, servers: Servers, size: tuple[int, int]
) -> None:
    term = terminal_factory(*size).start("tools", request_file(tmp_path, "demo.json", servers))
    term.wait_for("9 tools", timeout=LIVE_WAIT)
    term.wait_for("query *")  # the first tool (broken_schema) has its form: query, required
    term.send("Tab")
    term.type("retry policy")
    term.wait_for("retry policy")  # in the box (a paste reaches it after the next keys)
    term.send("C-s")
    term.wait_for("likely cause: Output schema without structuredContent", timeout=LIVE_WAIT)
    term.assert_healthy()
    term.send("C-s")  # the same call again: the history holds both
    term.wait_for("as call #1", timeout=LIVE_WAIT)
    term.send("Escape")
    assert term.exit_code() == 0


# -- issue 39: a recording followed while a run writes it --------------------------------------


def test_replay_follow_shows_a_recording_live_while_a_run_writes_it(
    terminal_factory: MakeTerminal, tmp_path: Path, servers: Servers
) -> None:
    """`mcptui run --no-tui` records a run that stalls mid-stream; `mcptui replay FILE
    --follow`, started while it writes, shows it going on and then to its end."""
    body = json.loads((REQUESTS / "demo.json").read_text())
    request = request_file(
        tmp_path, "demo.json", servers, metadata={"mcptui_fault": "stall:4@12"}, input=body["input"]
    )
    recording = tmp_path / "growing.jsonl"
    writer = subprocess.Popen(
        [
            str(mcptui_command()),
            "run",
            str(request),
            "--no-tui",
            "--base-url",
            servers.api,
            "--record",
            str(recording),
        ],
        cwd=tmp_path,
        env={**os.environ, "OPENAI_API_KEY": "sk-writer-secret-0123456789"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + LIVE_WAIT
        while not recording.exists() and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # a wait for the file to appear, not a pause
        assert recording.exists(), "the run wrote no recording"
        term = terminal_factory(80, 24).start("replay", recording, "--follow")
        term.wait_until(
            lambda s: "live: following" in s and "in_progress" in s and writer.poll() is None,
            "the recording shown while the run still writes it",
            timeout=LIVE_WAIT,
        )
        term.assert_healthy()
        term.wait_until(
            lambda s: "response.completed" in s and "1 failure" in s,
            "the run followed to its end, with its failed call",
            timeout=LIVE_WAIT,
        )
        assert writer.wait(timeout=LIVE_WAIT) == 1  # the demo's 424
        term.assert_healthy()
        assert "sk-writer-secret" not in term.history()
    finally:
        writer.kill()
        writer.wait()
