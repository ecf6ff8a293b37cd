"""`mcptui proxy --no-tui` as a user runs it: its own process, an app's SDK pointed at it,
Ctrl+C."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from pathlib import Path

from _e2e_support import Servers, calls, raw_events, start_listening
from openai import OpenAI
from test_run_cli import API_KEY, assert_refused, cli_env, run_cli


def start_proxy(servers: Servers, tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """The proxy on a free port; its address, read from the banner it prints first."""
    return start_listening(
        ["proxy", "--no-tui", "--port", "0", "--upstream", servers.emulator, "--record", "rec"],
        tmp_path,
        cli_env(api_key=None),
        "v1",
    )


def test_one_line_per_response_with_its_failure_and_exit_1(servers: Servers, tmp_path: Path):
    process, address = start_proxy(servers, tmp_path)
    try:
        with OpenAI(base_url=f"{address}/v1", api_key=API_KEY, max_retries=0) as app:
            ok = raw_events(app, model="gpt-5-mini", input="q")
            bad = raw_events(
                app,
                model="gpt-5-mini",
                tools=[servers.tool()],
                input=calls("q", ("broken_schema", {"query": "x"})),
            )
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert "Traceback" not in out + err, err
    assert process.returncode == 1, out + err  # a captured response failed
    lines = out.splitlines()
    ok_id, bad_id = ok[0]["response"]["id"], bad[0]["response"]["id"]
    ok_line = next(line for line in lines if ok_id in line)
    assert "POST /v1/responses" in ok_line and "completed" in ok_line
    assert "OpenAI/Python" in ok_line and "rec/" in ok_line
    bad_at = next(n for n, line in enumerate(lines) if bad_id in line)
    assert "✗ mcp_call broken_schema" in lines[bad_at + 1]
    assert "424" in lines[bad_at + 1]
    assert "2 responses captured, 1 with failures" in lines[-1]
    recordings = sorted((tmp_path / "rec").glob("*.jsonl"))
    assert len(recordings) == 2
    assert all(API_KEY not in path.read_text() for path in recordings)
    inspected = run_cli(["inspect", *map(str, recordings)], tmp_path)
    assert inspected.returncode == 1 and "broken_schema" in inspected.stdout


def test_a_busy_port_is_refused(servers: Servers, tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli(
            ["proxy", "--no-tui", "--port", str(port), "--upstream", servers.emulator], tmp_path
        )
    assert_refused(done, f"port {port} is in use")


def test_an_upstream_pointing_at_the_proxy_is_refused(tmp_path: Path):
    done = run_cli(
        ["proxy", "--no-tui", "--port", "8788", "--upstream", "http://127.0.0.1:8788/v1"], tmp_path
    )
    assert_refused(done, "is the proxy itself")


def test_a_folder_that_cannot_hold_recordings_is_refused(tmp_path: Path):
    (tmp_path / "taken").write_text("a file")
    done = run_cli(["proxy", "--no-tui", "--port", "0", "--record", "taken/rec"], tmp_path)
    assert_refused(done, "cannot record in taken/rec")


def test_a_failed_call_in_a_json_response_counts_and_exits_1(servers: Servers, tmp_path: Path):
    """A non-streaming create and a polled background run carry the failed mcp_call in the
    Response body, not in stream events: the proxy still reports it and exits 1."""
    process, address = start_proxy(servers, tmp_path)
    failing = calls("q", ("broken_schema", {"query": "x"}))
    try:
        with OpenAI(base_url=f"{address}/v1", api_key=API_KEY, max_retries=0) as app:
            created = app.responses.create(
                model="gpt-5-mini", tools=[servers.tool()], input=failing
            )
            background = app.responses.create(
                model="gpt-5-mini", tools=[servers.tool()], input=failing, background=True
            )
            while background.status in ("queued", "in_progress"):
                background = app.responses.retrieve(background.id)
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    failed = [
        item
        for response in (created, background)
        for item in response.output
        if item.type == "mcp_call" and item.error
    ]
    assert len(failed) == 2  # what the app got: each response holds a failed call
    assert "Traceback" not in out + err, err
    assert "2 responses captured, 2 with failures" in out.splitlines()[-1], out + err
    assert process.returncode == 1, out + err
    assert out.count("✗ mcp_call broken_schema") == 2, out


def test_the_apps_trace_context_is_kept_with_its_recording(servers: Servers, tmp_path: Path):
    """An app that sends its call in a trace (W3C `traceparent`): the recording keeps it, so
    what is exported of the call can join that trace; a malformed one is not kept."""
    traced = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    process, address = start_proxy(servers, tmp_path)
    try:
        for traceparent in (traced, "00-not-a-trace-01"):
            headers = {"traceparent": traceparent}
            with OpenAI(
                base_url=f"{address}/v1", api_key=API_KEY, max_retries=0, default_headers=headers
            ) as app:
                raw_events(app, model="gpt-5-mini", input=traceparent)
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    kept = {}
    for path in (tmp_path / "rec").glob("*.jsonl"):
        header = json.loads(path.read_text().splitlines()[0])
        kept[header["request"]["input"]] = header["source"]["client"].get("traceparent")
    assert kept == {traced: traced, "00-not-a-trace-01": None}
