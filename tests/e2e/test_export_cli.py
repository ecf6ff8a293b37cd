"""`mcptui export` done end to end: what it exports reproduces the recorded run.

One recording (module scope) of `mcptui run` against the emulator, with the guarded demo MCP
server that wants `Authorization: Bearer TOKEN`: a `search` that succeeds and the classic 424
from `broken_schema`. Its curl export is run with bash and its Python export with this
interpreter, the token given only through the variable the export names; each answer, read
back with `mcptui.io.formats`, must have the recording's shape.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _e2e_support import TOKEN, Servers
from mcptui.io.formats import load_path, load_text
from mcptui.io.recording import Loaded
from test_run_cli import RATE_LIMITED, cli_env, request_body, run_cli, run_request

pytestmark = pytest.mark.xdist_group("test_export_cli")
"""One worker runs this module (`--dist loadgroup`, pyproject.toml): otherwise
its module fixture records a run once in each worker that runs one of its tests."""

HEADER_VARIABLE = "DEMO_AUTHORIZATION"
"""The name the export gives the demo server's redacted Authorization header."""


@dataclass(frozen=True)
class Recorded:
    folder: Path
    recording: Path


@pytest.fixture(scope="module")
def recorded(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    folder = tmp_path_factory.mktemp("export")
    tool = servers.tool(
        url=f"{servers.mcp_token}/mcp", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    body = request_body(
        servers,
        ("search", {"query": "webhook retry policy"}),
        ("broken_schema", {"query": "webhook retry policy"}),
        tool=tool,
    )
    done, header, _ = run_request(servers, folder, body)
    assert done.returncode == 1, done.stdout + done.stderr  # the 424 is a failure
    assert header["request"]["tools"][0]["headers"] == {"Authorization": "<redacted>"}
    return Recorded(folder, folder / "rec.jsonl")


def exported(recorded: Recorded, fmt: str) -> str:
    done = run_cli(["export", str(recorded.recording), "--format", fmt], recorded.folder)
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout + done.stderr
    return done.stdout


def run_with_variables(
    command: list[str], servers: Servers, folder: Path
) -> subprocess.CompletedProcess[str]:
    env = cli_env(OPENAI_BASE_URL=servers.emulator, **{HEADER_VARIABLE: f"Bearer {TOKEN}"})
    done = subprocess.run(
        command,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def shape(loaded: Loaded) -> dict[str, Any]:
    """What must match: each output item (type, tool, server, status, failure code) in order,
    and how the response ended."""
    raws = [event.raw for event in loaded.events if not event.is_note]
    items = [event["item"] for event in raws if event["type"] == "response.output_item.done"]
    last = raws[-1]
    return {
        "items": [
            (
                item["type"],
                item.get("name"),
                item.get("server_label"),
                item.get("status"),
                _error_code(item.get("error")),
            )
            for item in items
        ],
        "ended": (last["type"], last.get("response", {}).get("status")),
    }


def _error_code(error: Any) -> Any:
    return (error.get("type"), error.get("code")) if isinstance(error, dict) else error


def assert_reproduces(recorded: Recorded, answer: str) -> None:
    again = load_text(answer, source="export")
    assert again.usable and not again.problems, again.problems
    original = shape(load_path(str(recorded.recording)))
    assert shape(again) == original
    assert ("mcp_call", "search", "demo", "completed", None) in original["items"]
    failed = [item for item in original["items"] if item[1] == "broken_schema"]
    assert failed == [("mcp_call", "broken_schema", "demo", "failed", ("http_error", 424))]
    broken = next(
        event.raw["item"]
        for event in again.events
        if event.raw.get("type") == "response.output_item.done"
        and event.raw["item"].get("name") == "broken_schema"
    )
    assert "424: unhandled errors in a TaskGroup" in broken["error"]["message"]
    assert original["ended"] == ("response.completed", "completed")


def test_the_curl_export_reproduces_the_recording(recorded: Recorded, servers: Servers):
    script = exported(recorded, "curl")
    assert f"need {HEADER_VARIABLE} 'the full Authorization header value" in script
    path = recorded.folder / "repro.sh"
    path.write_text(script)
    done = run_with_variables(["bash", str(path)], servers, recorded.folder)
    assert done.stdout.startswith("event: response.created"), done.stdout[:200]
    assert_reproduces(recorded, done.stdout)


def test_the_python_export_reproduces_the_recording(recorded: Recorded, servers: Servers):
    snippet = exported(recorded, "python")
    assert f'os.environ["{HEADER_VARIABLE}"]' in snippet
    path = recorded.folder / "repro.py"
    path.write_text(snippet)
    done = run_with_variables([sys.executable, str(path)], servers, recorded.folder)
    assert_reproduces(recorded, done.stdout)


def test_the_request_export_runs_with_mcptui_run(recorded: Recorded, servers: Servers):
    request = exported(recorded, "request")
    assert f'"Authorization": "${{{HEADER_VARIABLE}}}"' in request
    written = run_cli(["export", str(recorded.recording), "-o", "again.json"], recorded.folder)
    assert written.returncode == 0, written.stderr
    assert (recorded.folder / "again.json").read_text() == request  # .json: the request format
    # the recorded endpoint is the emulator, which a request file cannot carry: the hint says
    assert f"mcptui run again.json --base-url {servers.emulator}" in written.stderr
    again = recorded.folder / "again.jsonl"
    env = cli_env(**{HEADER_VARIABLE: f"Bearer {TOKEN}"})
    done = run_cli(
        ["run", "again.json", "--no-tui", "--base-url", servers.emulator, "--record", str(again)],
        recorded.folder,
        env,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert shape(load_path(str(again))) == shape(load_path(str(recorded.recording)))


def test_the_curl_export_fails_on_an_http_error_and_prints_its_body(
    tmp_path: Path, servers: Servers
):
    """`--fail-with-body`: a 429 (or a 401) before the stream makes the script exit non-zero,
    with the API's answer still printed."""
    body = request_body(servers, ("search", {"query": "x"}), fault="http_429")
    (tmp_path / "request.json").write_text(json.dumps(body))
    done = run_cli(["export", "request.json", "-o", "repro.sh"], tmp_path)
    assert done.returncode == 0, done.stderr
    env = cli_env(OPENAI_BASE_URL=servers.emulator)
    failed = subprocess.run(
        ["bash", "repro.sh"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert failed.returncode == 22, failed.stdout + failed.stderr  # curl's HTTP-error code
    assert json.loads(failed.stdout)["error"]["message"] == RATE_LIMITED
    assert "429" in failed.stderr


UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x1b\x07]")
"""What must never reach a terminal from an export: C1 controls (U+009B is a one-byte CSI),
bidi overrides (U+202E), ESC, BEL."""
CSI, RLO = "\u009b", "\u202e"


@pytest.mark.parametrize("fmt", ["curl", "python", "request"])
def test_an_export_shows_control_characters_and_acts_on_none(fmt: str, tmp_path: Path):
    """A label, a text and a file name holding a C1 CSI and a bidi override: the script says
    `\\x9b`/`\\u202e` where a reviewer reads (comments) and sends the same text (body)."""
    text = f"say {CSI}31mred{RLO}evil"
    request = {
        "model": "gpt-5-mini",
        "input": text,
        "stream": True,
        "metadata": {f"k{RLO}": f"v{CSI}"},
        "tools": [
            {
                "type": "mcp",
                "server_label": f"fi{CSI}les{RLO}x",
                "server_url": "https://files.example.com/mcp",
                "headers": {"Authorization": "Bearer abcdefabcdefabcdef"},
                "require_approval": "never",
            }
        ],
    }
    name = f"req{CSI}2J{RLO}.json"
    (tmp_path / name).write_text(json.dumps(request))
    done = run_cli(["export", name, "--format", fmt], tmp_path)
    assert done.returncode == 0, done.stderr
    assert not UNSAFE.search(done.stdout + done.stderr), sorted(
        {hex(ord(c)) for c in UNSAFE.findall(done.stdout + done.stderr)}
    )
    if fmt == "request":
        assert json.loads(done.stdout)["input"] == text  # escaped, the same JSON
    elif fmt == "python":
        compile(done.stdout, "export.py", "exec")
        assert "#   req\\x9b2J\\u202e.json" in done.stdout
    else:
        assert "#   req\\x9b2J\\u202e.json" in done.stdout  # the comment names the file
        assert "fi\\x9bles\\u202ex server" in done.stdout  # and the variable's meaning
        assert '"input": "say \\u009b31mred\\u202eevil"' in done.stdout
