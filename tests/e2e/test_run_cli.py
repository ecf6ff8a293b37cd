"""`mcptui run` / `mcptui attach --no-tui` as a user runs them: a separate process, no terminal.

The emulator and the demo MCP server run in this test process (the `servers` fixture); the
command line is a child process pointed at them with `--base-url`. Each test checks what the
user sees (stderr message, progress lines, summary, exit code) and what lands in the recording.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _cli_fork import forked_cli, real_cli
from _e2e_support import Servers, calls
from mcptui.emulator.demo_server import build_app
from mcptui.net.serve import ServerThread
from openai import OpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

API_KEY = "sk-test-cli-0123456789"
LIST_TOOLS_424 = (
    "Error retrieving tool list from MCP server: 'demo'. Http status code: 424 (Failed Dependency)"
)
RATE_LIMITED = "Rate limit reached for requests (emulated: metadata.mcptui_fault=http_429)."
BAD_KEY = "Incorrect API key provided"

Entries = list[dict[str, Any]]


# -- helpers ------------------------------------------------------------------------------------


def cli_env(*, api_key: str | None = API_KEY, **extra: str) -> dict[str, str]:
    """The caller's environment without any OPENAI_* variable, plus what the test needs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    if api_key is not None:
        env["OPENAI_API_KEY"] = api_key
    env.update(extra)
    return env


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` as a process of its own, forked from one that has imported mcptui
    already (_cli_fork.py: ~1.5 s of CPU less a command). The real `python -m mcptui run`
    process is test_a_recording_that_cannot_be_written_is_said_and_cut_at_a_whole_line's."""
    done = forked_cli(args, cwd, cli_env() if env is None else env, timeout=60)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def request_body(
    servers: Servers,
    *lines: tuple[str, dict[str, Any]],
    fault: str | None = None,
    tool: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "gpt-5-mini",
        "input": calls("q", *lines),
        "tools": [tool or servers.tool()],
        **fields,
    }
    if fault is not None:
        body["metadata"] = {"mcptui_fault": fault}
    return body


def write_request(folder: Path, body: Any, name: str = "request.json") -> Path:
    path = folder / name
    path.write_text(body if isinstance(body, str) else json.dumps(body, indent=2))
    return path


def read_recording(path: Path) -> tuple[dict[str, Any], Entries]:
    header, *entries = (json.loads(line) for line in path.read_text().splitlines())
    assert header["mcptui"] == "recording"
    assert all(set(entry) in ({"t", "event"}, {"t", "note"}) for entry in entries), entries
    return header, entries


def run_request(
    servers: Servers,
    tmp_path: Path,
    body: dict[str, Any],
    *options: str,
    base_url: str | None = None,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], Entries]:
    """`run REQUEST.json --no-tui --record rec.jsonl` against the emulator; the recording."""
    record = tmp_path / "rec.jsonl"
    write_request(tmp_path, body)
    done = run_cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            base_url or servers.emulator,
            "--record",
            str(record),
            *options,
        ],
        tmp_path,
        env,
    )
    assert record.exists(), done.stdout + done.stderr
    header, entries = read_recording(record)
    return done, header, entries


def events(entries: Entries) -> Entries:
    return [e["event"] for e in entries if "event" in e]


def notes(entries: Entries, kind: str | None = None) -> Entries:
    return [e["note"] for e in entries if "note" in e and kind in (None, e["note"]["kind"])]


def numbers(entries: Entries) -> list[int]:
    return [e["sequence_number"] for e in events(entries)]


# -- nothing is sent: a clear line on stderr, exit 2 --------------------------------------------


def assert_refused(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    message = done.stderr.strip()
    assert "\n" not in message and message.startswith("mcptui: "), message
    for fragment in fragments:
        assert fragment in message, message


def test_missing_request_file(tmp_path: Path, servers: Servers):
    done = run_cli(
        [
            "run",
            "missing.json",
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            "rec.jsonl",
        ],
        tmp_path,
    )
    assert_refused(done, "missing.json", "no such file")
    assert list(tmp_path.iterdir()) == []  # no recording, no folder


def test_bad_request_files(tmp_path: Path, servers: Servers):
    cases = {
        "broken.json": (
            '{\n  "model": "gpt-5-mini",\n  "input": oops\n}\n',
            ("broken.json", "invalid JSON", "line 3", "column 12"),
        ),
        "array.json": (
            '[{"model": "gpt-5-mini", "input": "q"}]',
            ("array.json", "must be a JSON object", "not list"),
        ),
        "no_model.json": ('{"input": "q"}', ("no_model.json", 'no "model"')),
        "no_input.json": ('{"model": "gpt-5-mini"}', ("no_input.json", 'no "input"')),
    }
    for name, (text, fragments) in cases.items():
        write_request(tmp_path, text, name)
        done = run_cli(
            ["run", name, "--no-tui", "--base-url", servers.emulator, "--record", "rec.jsonl"],
            tmp_path,
        )
        assert_refused(done, *fragments)
    assert not (tmp_path / "rec.jsonl").exists()


def test_variables_in_the_request_file_come_from_the_environment(tmp_path: Path, servers: Servers):
    """The shipped requests/approval.json, untouched: its ${MCP_URL:-…} points at the test's
    demo server; a token in ${…} reaches the server and never the recording."""
    shipped = Path(__file__).resolve().parents[2] / "requests" / "approval.json"
    assert "${MCP_URL:-" in shipped.read_text()
    record = tmp_path / "rec.jsonl"
    done = run_cli(
        ["run", str(shipped), "--no-tui", "--base-url", servers.emulator, "--record", str(record)],
        tmp_path,
        cli_env(MCP_URL=f"{servers.mcp}/mcp"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mcp_approval_request" in done.stdout
    header, _ = read_recording(record)
    assert header["request"]["tools"][0]["server_url"] == f"{servers.mcp}/mcp"

    body = request_body(
        servers,
        ("search", {"query": "x"}),
        tool=servers.tool(url="${MCP_URL}", headers={"X-Key": "${DEMO_TOKEN:-fallback}"}),
    )
    write_request(tmp_path, body)
    record.unlink()
    done = run_cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            str(record),
        ],
        tmp_path,
        cli_env(MCP_URL=f"{servers.mcp}/mcp", DEMO_TOKEN="tok-SECRET-123"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tok-SECRET-123" not in record.read_text() + done.stdout + done.stderr


def test_a_variable_that_is_not_set_is_named(tmp_path: Path, servers: Servers):
    body = request_body(servers, tool=servers.tool(headers={"Authorization": "${NOPE_TOKEN}"}))
    write_request(tmp_path, body)
    done = run_cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            "rec.jsonl",
        ],
        tmp_path,
    )
    assert_refused(
        done, "${NOPE_TOKEN} is not set", "tools[0].headers.Authorization", "${NOPE_TOKEN:-default}"
    )
    assert not (tmp_path / "rec.jsonl").exists()


def test_missing_api_key(tmp_path: Path, servers: Servers):
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    done = run_cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            "rec.jsonl",
        ],
        tmp_path,
        cli_env(api_key=None),
    )
    assert_refused(done, "OPENAI_API_KEY")
    assert not (tmp_path / "rec.jsonl").exists()


def test_idle_timeout_must_be_positive(tmp_path: Path, servers: Servers):
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    done = run_cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            "rec.jsonl",
            "--idle-timeout",
            "0",
        ],
        tmp_path,
    )
    assert_refused(done, "--idle-timeout")
    assert not (tmp_path / "rec.jsonl").exists()


# -- streamed runs ------------------------------------------------------------------------------


def test_successful_call(tmp_path: Path, servers: Servers):
    done, header, entries = run_request(
        servers, tmp_path, request_body(servers, ("search", {"query": "x"}))
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "response.created" in done.stdout  # progress lines, as they arrived
    assert "response.mcp_call.completed" in done.stdout
    assert "mcp_call search @demo  ✓ completed" in done.stdout  # the summary
    assert "Failures" not in done.stdout
    assert "rec.jsonl" in done.stderr  # where the recording went

    assert header["http"]["status"] == 200
    assert header["http"]["headers"]["x-request-id"].startswith("req_")
    assert header["endpoint"] == f"{servers.emulator}/responses"
    assert header["request"]["model"] == "gpt-5-mini"
    assert notes(entries) == []
    assert numbers(entries) == list(range(len(entries)))
    assert events(entries)[-1]["type"] == "response.completed"


def test_broken_schema_is_the_classic_424(tmp_path: Path, servers: Servers):
    done, _, entries = run_request(
        servers, tmp_path, request_body(servers, ("broken_schema", {"query": "x"}))
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "response.mcp_call.failed" in done.stdout
    assert "mcp_call broken_schema @demo  ✗ failed" in done.stdout
    assert "424: unhandled errors in a TaskGroup" in done.stdout
    # The progress line says the error in words, as the summary does, not as a dict repr.
    assert "error: http_error 424: unhandled errors in a TaskGroup (1 sub-exception)" in done.stdout
    assert "{'type'" not in done.stdout and "'code':" not in done.stdout
    assert events(entries)[-1]["type"] == "response.completed"


def inspect_causes(tmp_path: Path) -> list[dict[str, Any]]:
    done = run_cli(["inspect", "--json", str(tmp_path / "rec.jsonl")], tmp_path)
    (failure,) = [f for f in json.loads(done.stdout)["failures"] if f["type"] == "mcp_call"]
    return failure["likely_causes"]


def test_a_timeout_under_the_emulators_own_limit_is_a_likely_timeout(
    tmp_path: Path, servers: Servers
):
    """The emulator here gives up on a tool after 1.5 s (its --tool-timeout): a recording
    says so in the response's metadata, so `inspect` compares against that limit, not 60 s
    ("too soon for a timeout" was wrong)."""
    done, _, entries = run_request(
        servers, tmp_path, request_body(servers, ("slow_search", {"query": "x", "delay_s": 4}))
    )
    assert done.returncode == 1, done.stdout + done.stderr
    created = events(entries)[0]["response"]
    assert created["metadata"]["mcptui_tool_timeout_s"] == "1.5"
    causes = inspect_causes(tmp_path)
    assert (causes[0]["cause"], causes[0]["confidence"]) == ("timeout", "likely")
    assert "the 1.5 s limit this response names" in causes[0]["evidence"][0]


def test_a_broken_schema_is_a_candidate_never_a_wrong_likely(tmp_path: Path, servers: Servers):
    """broken_schema and bad_content fail the same way, as fast: both are listed as equal
    candidates (the true one among them), neither is `likely`."""
    for tool in ("broken_schema", "bad_content"):
        record = tmp_path / "rec.jsonl"
        record.unlink(missing_ok=True)
        run_request(servers, tmp_path, request_body(servers, (tool, {"query": "x"})))
        causes = inspect_causes(tmp_path)
        truth = {
            "broken_schema": "output_schema_without_structured_content",
            "bad_content": "invalid_content",
        }[tool]
        assert truth in [c["cause"] for c in causes], (tool, causes)
        assert {c["confidence"] for c in causes} == {"possible"}, (tool, causes)


def test_inspect_of_several_runs_ends_with_the_per_tool_table(tmp_path: Path, servers: Servers):
    """Three runs of slow_search, 0.2 s, 0.6 s and past the emulator's 1.5 s limit: one row
    with 3 calls, 1 failure by its error, the tool times' p50 / p95 / max and the limit."""
    files = []
    for number, delay in enumerate((0.2, 0.6, 4.0)):
        run_request(
            servers,
            tmp_path,
            request_body(servers, ("slow_search", {"query": "x", "delay_s": delay})),
        )
        files.append(tmp_path / f"run{number}.jsonl")
        (tmp_path / "rec.jsonl").rename(files[-1])
    done = run_cli(["inspect", *map(str, files)], tmp_path)
    table = done.stdout[done.stdout.index("Tools across 3 files") :]
    (row,) = [line for line in table.splitlines() if "slow_search" in line]
    cells = row.split()
    assert cells[:4] == ["demo", "slow_search", "3", "1"], row
    assert cells[7] == "1.5s" and "1× http_error 424" in row, row
    p50, worst = float(cells[4].rstrip("s")), float(cells[6].rstrip("s"))
    # The median is the 0.6 s call: well above the 0.2 s one and below the 1.5 s limit. (Not
    # `>= 0.6`: a clock measures a 0.6 s sleep as 0.59 s now and then, a flaky bound.)
    assert 0.4 < p50 < 1.5 and worst >= 1.4, row

    report = json.loads(run_cli(["inspect", "--json", *map(str, files)], tmp_path).stdout)
    (tool,) = [t for t in report["tools"] if t["tool"] == "slow_search"]
    assert (tool["calls"], tool["failures"], tool["limit_s"]) == (3, 1, [1.5])
    assert f"{tool['p50_s']:.2f}s" == cells[4]  # the table shows what --json says


def test_http_429_before_the_stream(tmp_path: Path, servers: Servers):
    done, header, entries = run_request(
        servers, tmp_path, request_body(servers, ("search", {"query": "x"}), fault="http_429")
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"! http_error: POST /responses: HTTP 429: {RATE_LIMITED}" in done.stdout
    assert "Failures (1)" in done.stdout
    assert header["http"]["status"] == 429
    assert header["http"]["headers"]["retry-after"] == "1"
    (error,) = notes(entries)
    assert error["kind"] == "http_error" and error["level"] == "error"
    assert error["status"] == 429 and error["request_id"].startswith("req_")
    assert error["body"]["error"]["message"] == RATE_LIMITED
    assert error["body"]["error"]["code"] == "rate_limit_exceeded"
    assert events(entries) == []


def refuse_every_key(_request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "error": {
                "message": BAD_KEY,
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        },
        status_code=401,
    )


def test_http_401_from_the_api(tmp_path: Path, servers: Servers):
    app = Starlette(routes=[Route("/v1/responses", refuse_every_key, methods=["POST"])])
    with ServerThread(app) as api:
        done, header, entries = run_request(
            servers,
            tmp_path,
            request_body(servers, ("search", {"query": "x"})),
            base_url=f"{api.url}/v1",
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"! http_error: POST /responses: HTTP 401: {BAD_KEY}" in done.stdout
    assert "Failures (1)" in done.stdout
    assert header["http"]["status"] == 401
    (error,) = notes(entries)
    assert error["kind"] == "http_error" and error["status"] == 401
    assert error["body"]["error"]["code"] == "invalid_api_key"
    assert BAD_KEY in error["message"]


def test_http_424_when_the_tool_list_cannot_be_fetched(tmp_path: Path, servers: Servers):
    tool = servers.tool(url="http://127.0.0.1:9/mcp")
    done, header, entries = run_request(servers, tmp_path, request_body(servers, tool=tool))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"! http_error: POST /responses: HTTP 424: {LIST_TOOLS_424}" in done.stdout
    assert header["http"]["status"] == 424
    (error,) = notes(entries, "http_error")
    assert error["status"] == 424
    assert error["body"]["error"]["message"] == LIST_TOOLS_424
    assert error["body"]["error"]["code"] == "http_error"


def test_plain_stream_dropped_midway_keeps_what_arrived(tmp_path: Path, servers: Servers):
    done, _, entries = run_request(
        servers, tmp_path, request_body(servers, ("search", {"query": "x"}), fault="drop_after:6")
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "! disconnect: the connection broke mid-stream" in done.stdout
    assert "a foreground stream cannot be resumed; what arrived is kept" in done.stdout
    assert "Failures (1)" in done.stdout
    assert numbers(entries) == [0, 1, 2, 3, 4, 5]  # all six events, then the note
    assert len(entries) == 7
    drop = entries[6]["note"]
    assert drop["kind"] == "disconnect" and drop["level"] == "error"


def test_background_stream_dropped_is_resumed_without_loss(tmp_path: Path, servers: Servers):
    body = request_body(servers, ("search", {"query": "x"}), fault="drop_after:6", background=True)
    done, _, entries = run_request(servers, tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resuming from the last sequence number" in done.stdout
    assert "! resume: resuming resp_" in done.stdout
    (drop,) = notes(entries, "disconnect")
    assert drop["level"] == "warning"
    (resume,) = notes(entries, "resume")
    assert resume["starting_after"] == 5
    assert numbers(entries) == list(range(len(events(entries))))
    assert events(entries)[-1]["type"] == "response.completed"
    assert "mcp_call search @demo  ✓ completed" in done.stdout


def test_plain_stream_stall_gives_up(tmp_path: Path, servers: Servers):
    done, _, entries = run_request(
        servers,
        tmp_path,
        request_body(servers, ("search", {"query": "x"}), fault="stall:3"),
        "--idle-timeout",
        "1",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "! stall: no data for 1 s (--idle-timeout)" in done.stdout
    assert "Failures (1)" in done.stdout
    (stall,) = notes(entries, "stall")
    assert stall["level"] == "error"
    assert numbers(entries) == [0, 1, 2, 3]  # the fault pauses after the fourth event


def test_background_stream_stall_is_resumed(tmp_path: Path, servers: Servers):
    body = request_body(servers, ("search", {"query": "x"}), fault="stall:3", background=True)
    done, _, entries = run_request(servers, tmp_path, body, "--idle-timeout", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    (stall,) = notes(entries, "stall")
    assert stall["level"] == "warning"
    assert len(notes(entries, "resume")) >= 1
    assert numbers(entries) == list(range(len(events(entries))))
    assert events(entries)[-1]["type"] == "response.completed"


# -- background polling -------------------------------------------------------------------------


def test_background_without_streaming_is_polled(tmp_path: Path, servers: Servers):
    body = request_body(servers, ("search", {"query": "x"}), background=True, stream=False)
    done, header, entries = run_request(servers, tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "! poll: created resp_" in done.stdout
    assert header["http"]["status"] == 200
    polls = notes(entries, "poll")
    statuses = [p["response"]["status"] for p in polls]
    assert len(polls) >= 2 and statuses[0] in ("queued", "in_progress")
    assert statuses[-1] == "completed"
    assert set(statuses) <= {"queued", "in_progress", "completed"}
    assert statuses == sorted(statuses, key=["queued", "in_progress", "completed"].index)
    assert events(entries) == []
    assert "mcp_call search @demo  ✓ completed" in done.stdout


# -- secrets ------------------------------------------------------------------------------------


def test_secrets_never_reach_the_recording_or_the_screen(tmp_path: Path, servers: Servers):
    tool = servers.tool(
        headers={"X-Api-Key": "sk-live-SECRET-123"}, authorization="auth-SECRET-456"
    )
    done, header, _ = run_request(
        servers, tmp_path, request_body(servers, ("search", {"query": "x"}), tool=tool)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = (tmp_path / "rec.jsonl").read_text()
    for secret in ("SECRET", API_KEY):
        assert secret not in recorded
        assert secret not in done.stdout + done.stderr
    (sent,) = header["request"]["tools"]
    assert sent["headers"] == {"X-Api-Key": "<redacted>"}
    assert sent["authorization"] == "<redacted>"


URL_SECRETS = ("URLSECRET1", "URLSECRET2", "PATHSECRET3xk7q")


def test_secrets_in_the_server_url_reach_no_file_the_run_writes(tmp_path: Path, servers: Servers):
    """An MCP server reached at `/s/<token>/mcp?api_key=…&token=…`: the run works, and not
    one of the URL's secrets is in any file it writes (the automatic recording, its name) or
    in what it prints. The rest of the URL stays readable."""
    with ServerThread(build_app(path_token="PATHSECRET3xk7q")) as secret_server:
        url = f"{secret_server.url}/s/PATHSECRET3xk7q/mcp?api_key=URLSECRET1&token=URLSECRET2"
        write_request(
            tmp_path, request_body(servers, ("search", {"query": "x"}), tool=servers.tool(url=url))
        )
        done = run_cli(
            ["run", "request.json", "--no-tui", "--base-url", servers.emulator], tmp_path
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mcp_call search @demo  ✓ completed" in done.stdout
    written = [
        path for path in tmp_path.rglob("*") if path.is_file() and path.name != "request.json"
    ]
    (recording,) = [path for path in written if path.suffix == ".jsonl"]
    for path in written:
        text = path.read_text()
        assert not [s for s in URL_SECRETS if s in text or s in path.name], path
    for secret in URL_SECRETS:
        assert secret not in done.stdout + done.stderr
    header, entries = read_recording(recording)
    (sent,) = header["request"]["tools"]
    assert sent["server_url"] == (
        f"{secret_server.url}/s/<redacted>/mcp?api_key=<redacted>&token=<redacted>"
    )
    echoed = [e["response"]["tools"] for e in events(entries) if e["type"] == "response.created"]
    assert echoed and echoed[0][0]["server_url"] == sent["server_url"]


# -- configuration ------------------------------------------------------------------------------


def test_openai_base_url_instead_of_the_option(tmp_path: Path, servers: Servers):
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    done = run_cli(
        ["run", "request.json", "--no-tui", "--record", "rec.jsonl"],
        tmp_path,
        cli_env(OPENAI_BASE_URL=servers.emulator),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    header, entries = read_recording(tmp_path / "rec.jsonl")
    assert header["endpoint"] == f"{servers.emulator}/responses"
    assert events(entries)[-1]["type"] == "response.completed"


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/v1", "127.0.0.1:8787"])
def test_a_base_url_that_cannot_be_used_is_one_line_before_anything_is_sent(
    tmp_path: Path, servers: Servers, url: str
):
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    for options, env, named in (
        (["--base-url", url], cli_env(), "--base-url"),
        ([], cli_env(OPENAI_BASE_URL=url), "OPENAI_BASE_URL"),
    ):
        done = run_cli(["run", "request.json", "--no-tui", *options], tmp_path, env)
        assert done.returncode == 2, done.stderr  # was an internal error (exit 3)
        assert done.stderr.startswith(f"mcptui: {named} wants an http(s) URL with a host")
        assert not (tmp_path / "mcptui-recordings").exists()


# -- attach -------------------------------------------------------------------------------------


def background_response(servers: Servers) -> str:
    with OpenAI(base_url=servers.emulator, api_key=API_KEY, max_retries=0, timeout=30) as sdk:
        created = sdk.responses.create(
            model="gpt-5-mini",
            background=True,
            tools=[servers.tool()],
            input=calls("q", ("search", {"query": "x"})),
        )
    assert created.status == "queued"
    return created.id


def attach(
    servers: Servers, tmp_path: Path, response_id: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], Entries]:
    record = tmp_path / "rec.jsonl"
    done = run_cli(
        [
            "attach",
            response_id,
            "--no-tui",
            "--base-url",
            servers.emulator,
            "--record",
            str(record),
            *options,
        ],
        tmp_path,
    )
    header, entries = read_recording(record)
    return done, header, entries


@pytest.mark.parametrize(
    "after",
    [
        pytest.param((), id="default"),
        pytest.param(("--after", "-1"), id="after-minus-1"),
    ],
)
def test_attach_follows_a_background_response(
    tmp_path: Path, servers: Servers, after: tuple[str, ...]
):
    response_id = background_response(servers)
    done, header, entries = attach(servers, tmp_path, response_id, *after)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "response.completed" in done.stdout
    assert header["source"]["attached"] == response_id
    assert header["http"]["status"] == 200
    found = events(entries)
    assert found[0]["type"] == "response.created"
    assert found[0]["response"]["id"] == response_id
    assert found[-1]["type"] == "response.completed"
    assert numbers(entries) == list(range(len(found)))


def test_attach_after_a_sequence_number(tmp_path: Path, servers: Servers):
    response_id = background_response(servers)
    done, header, entries = attach(servers, tmp_path, response_id, "--after", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert header["source"]["starting_after"] == 3
    found = events(entries)
    assert found[0]["sequence_number"] == 4
    assert numbers(entries) == list(range(4, 4 + len(found)))
    assert found[-1]["type"] == "response.completed"


def _file_size_limit(limit: int) -> Any:
    def apply() -> None:  # in the child: a write past `limit` fails with EFBIG, no signal
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("where", ["ulimit -f", "/dev/full"])
def test_a_recording_that_cannot_be_written_is_said_and_cut_at_a_whole_line(
    tmp_path: Path, servers: Servers, where: str
):
    """A full disk mid-run: the stream goes on on screen, stderr says which file and why in
    one line, the file holds only whole lines, and the run exits 1 (README: a failure)."""
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    record = "/dev/full" if where == "/dev/full" else str(tmp_path / "rec.jsonl")
    args = ["run", "request.json", "--no-tui", "--base-url", servers.emulator, "--record", record]
    if where == "/dev/full":
        done = run_cli(args, tmp_path)
    else:  # the file size limit set in a real `python -m mcptui` process before it starts
        done = real_cli(args, tmp_path, cli_env(), preexec_fn=_file_size_limit(4000))
        assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stderr.strip().splitlines()
    assert said[-1].startswith(f"mcptui: could not write the recording {record}: ")
    assert ("File too large" if where == "ulimit -f" else "No space left") in said[-1]
    assert "response.completed" in done.stdout  # the stream went on after the failure
    if where == "ulimit -f":
        text = Path(record).read_text()
        assert 0 < len(text) <= 4000 and text.endswith("\n")
        header, entries = read_recording(Path(record))  # every line whole JSON
        assert header["source"]["kind"] == "live" and entries
