"""Azure OpenAI as a user points `mcptui run`, `attach` and `open` at it: the real command (a
process of its own, the openai SDK inside) against an emulator that answers Azure's routes.

The emulator here is this module's own, so the test reads what it received (`Emulator.seen`:
method, path and query, which credential headers; never their values): every request kept
`api-version` after the path and carried the key in `api-key`, never as a bearer token. The
recording names the provider and keeps the version, and the key reaches no file or output.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _e2e_support import Servers, calls
from mcptui.emulator.app import Emulator, Seen
from mcptui.emulator.runner import RunConfig
from mcptui.net.serve import ServerThread
from test_run_cli import cli_env, read_recording, run_cli, write_request

AZURE_KEY = "azk-3f9Q7xLm2Pz8Rt6Vw1Ny4Bc0"
"""A key shaped like none of the patterns redaction knows: only being the key hides it."""
DATED = "2025-04-01-preview"
RECORD = ("--record", "rec.jsonl")


@pytest.fixture(scope="module")
def azure() -> Iterator[tuple[str, Emulator]]:
    emulator = Emulator(RunConfig(delta_delay=0.0, queue_delay=0.05), seed=3)
    with ServerThread(emulator.app) as server:
        yield server.url, emulator


def azure_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in cli_env(api_key=None).items() if not k.startswith("AZURE_OPENAI_")}
    return {**env, "AZURE_OPENAI_API_KEY": AZURE_KEY, **extra}


def body(servers: Servers, **fields: Any) -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "input": calls("q", ("search", {"query": "retry policy"})),
        "tools": [servers.tool()],
        **fields,
    }


def seen_since(emulator: Emulator, count: int) -> list[Seen]:
    return list(emulator.seen)[count:]


def assert_nothing_holds_the_key(folder: Path, *outputs: str) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            assert AZURE_KEY not in path.read_text(errors="replace"), path
    for output in outputs:
        assert AZURE_KEY not in output


def run_on_azure(
    servers: Servers, tmp_path: Path, base: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """`mcptui run` of the demo body with `--provider azure --base-url base`, Azure's key set."""
    write_request(tmp_path, body(servers))
    return run_cli(
        ["run", "request.json", "--no-tui", "--provider", "azure", "--base-url", base, *extra],
        tmp_path,
        azure_env(),
    )


def test_run_against_azure_s_v1_route_keeps_the_version_and_signs_with_api_key(
    azure: tuple[str, Emulator], servers: Servers, tmp_path: Path
) -> None:
    origin, emulator = azure
    before = len(emulator.seen)
    record = tmp_path / "rec.jsonl"
    done = run_on_azure(
        servers, tmp_path, f"{origin}/openai/v1?api-version=preview", "--record", str(record)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [post] = seen_since(emulator, before)
    assert (post.method, post.target) == ("POST", "/openai/v1/responses?api-version=preview")
    assert post.credentials == ("api-key",)  # no `Authorization: Bearer` beside it
    header, entries = read_recording(record)
    assert header["provider"] == "azure"
    assert header["endpoint"] == f"{origin}/openai/v1/responses?api-version=preview"
    assert entries[-1]["event"]["type"] == "response.completed"
    assert " · via azure" in done.stdout.splitlines()[0] or "via azure" in done.stdout
    assert_nothing_holds_the_key(tmp_path, done.stdout, done.stderr)


def test_azure_s_variables_alone_reach_the_dated_route_and_attach_follows_it(
    azure: tuple[str, Emulator], servers: Servers, tmp_path: Path
) -> None:
    """`AZURE_OPENAI_ENDPOINT` + `OPENAI_API_VERSION` (openai-python's names), no URL and no
    OPENAI_API_KEY: `/openai/responses?api-version=…`; a background run's resumes (GETs with
    their own query) and an `attach` keep the version too, after the path."""
    origin, emulator = azure
    env = azure_env(AZURE_OPENAI_ENDPOINT=origin, OPENAI_API_VERSION=DATED)
    before = len(emulator.seen)
    write_request(
        tmp_path, body(servers, background=True, metadata={"mcptui_fault": "drop_after:4"})
    )
    done = run_cli(["run", "request.json", "--no-tui", "--record", "rec.jsonl"], tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    header, entries = read_recording(tmp_path / "rec.jsonl")
    assert header["provider"] == "azure"
    assert header["endpoint"] == f"{origin}/openai/responses?api-version={DATED}"
    assert any(e.get("note", {}).get("kind") == "resume" for e in entries)  # a GET was made
    targets = [seen.target for seen in seen_since(emulator, before)]
    assert targets[0] == f"/openai/responses?api-version={DATED}"
    resumed = [t for t in targets if t.startswith("/openai/responses/resp_")]
    assert resumed, targets
    assert all(f"?api-version={DATED}&" in t and "stream=true" in t for t in resumed), resumed

    response_id = entries[0]["event"]["response"]["id"]
    before = len(emulator.seen)
    attached = run_cli(
        ["attach", response_id, "--no-tui", "--record", "attach.jsonl"], tmp_path, env
    )
    assert attached.returncode == 0, attached.stdout + attached.stderr
    [get] = seen_since(emulator, before)
    assert get.target.startswith(f"/openai/responses/{response_id}?api-version={DATED}&")
    assert get.credentials == ("api-key",)
    assert read_recording(tmp_path / "attach.jsonl")[0]["provider"] == "azure"
    assert_nothing_holds_the_key(tmp_path, done.stdout, done.stderr, attached.stdout)


def test_open_fetches_a_stored_response_through_azure_s_route(
    azure: tuple[str, Emulator], servers: Servers, tmp_path: Path
) -> None:
    origin, emulator = azure
    base = f"{origin}/openai/v1?api-version=preview"
    made = run_on_azure(servers, tmp_path, base, *RECORD)
    response_id = read_recording(tmp_path / "rec.jsonl")[1][-1]["event"]["response"]["id"]
    before = len(emulator.seen)
    shown = run_cli(
        ["open", response_id, "--provider", "azure", "--base-url", base, "--json"],
        tmp_path,
        azure_env(),
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["files"][0]["provider"] == "azure"
    targets = [(s.target.partition("?")[2], s.credentials) for s in seen_since(emulator, before)]
    assert targets and all(
        query.startswith("api-version=preview") and credentials == ("api-key",)
        for query, credentials in targets
    ), targets
    assert_nothing_holds_the_key(tmp_path, made.stdout, shown.stdout, shown.stderr)


def test_the_dated_route_without_a_version_is_refused_before_sending(
    azure: tuple[str, Emulator], servers: Servers, tmp_path: Path
) -> None:
    origin, emulator = azure
    before = len(emulator.seen)
    done = run_on_azure(servers, tmp_path, f"{origin}/openai/responses")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("mcptui: this Azure route") and "api-version" in done.stderr
    assert len(emulator.seen) == before
    assert not (tmp_path / "mcptui-recordings").exists()


@pytest.mark.parametrize("fmt", ["x.py", "x.sh"])
def test_an_azure_recording_s_export_reaches_azure_s_route_signed_with_api_key(
    azure: tuple[str, Emulator], servers: Servers, tmp_path: Path, fmt: str
) -> None:
    """The exported script (the openai SDK's `AzureOpenAI`, or curl) sends to the recorded
    route with its version, the key in `api-key`."""
    origin, emulator = azure
    base = f"{origin}/openai/responses?api-version={DATED}"
    made = run_on_azure(servers, tmp_path, base, *RECORD)
    assert made.returncode == 0, made.stderr
    exported = run_cli(["export", "rec.jsonl", "-o", fmt], tmp_path, azure_env())
    assert exported.returncode == 0, exported.stderr
    before = len(emulator.seen)
    command = [sys.executable, fmt] if fmt.endswith(".py") else ["bash", fmt]
    ran = subprocess.run(
        command, cwd=tmp_path, env=azure_env(), capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert "response.completed" in ran.stdout
    [post] = seen_since(emulator, before)
    assert (post.method, post.target) == ("POST", f"/openai/responses?api-version={DATED}")
    assert post.credentials == ("api-key",)
    assert_nothing_holds_the_key(tmp_path, exported.stdout, exported.stderr)


def post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """POST a small request with the standard library: (status, JSON body)."""
    data = json.dumps({"model": "gpt-5-mini", "input": "hi"}).encode()
    request = urllib.request.Request(
        url, data, {"content-type": "application/json", **headers}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_the_emulator_answers_azure_s_refusals_in_its_words(azure: tuple[str, Emulator]) -> None:
    origin, _ = azure
    status, unsigned = post(f"{origin}/openai/v1/responses", {})
    assert status == 401 and "api-key header" in unsigned["error"]["message"]
    status, undated = post(f"{origin}/openai/responses", {"api-key": "k"})
    assert status == 404 and "needs ?api-version=" in undated["error"]["message"]
    status, signed = post(f"{origin}/openai/v1/responses", {"api-key": "k"})
    assert status == 200 and signed["status"] == "completed"
