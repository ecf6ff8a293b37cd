"""`mcptui probe FILE` with no request file: the servers, calls and time limit from the file.

A failing demo tool is run through the emulator (tool timeout 1.5 s), its events are written
the way people paste them (a JSON array of `data:` objects, no timing) or recorded by `mcptui
run`, and the probe is pointed at that file alone. Each test checks what the user reads: the
server reached, the recorded call re-run, and the verdict naming the true cause; the token
supplied with --header never shows; refusals are one line and exit 2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _e2e_support import TOKEN, TOOL_TIMEOUT, Servers, calls, raw_events
from mcptui.cli.main import main
from openai import OpenAI
from test_run_cli import cli_env, request_body, run_cli, run_request

MISSING_TITLE = "Output schema without structuredContent"
TIMEOUT_TITLE = "Tool slower than the time limit"
ITEM_ID = r"\(mcp_[0-9a-f]+\)"


def pasted(tmp_path: Path, client: OpenAI, servers: Servers, *lines: tuple[str, Any]) -> Path:
    """The stream of a run, as a JSON array of its events: what a forum post holds."""
    events = raw_events(
        client, model="gpt-5-mini", input=calls("q", *lines), tools=[servers.tool()]
    )
    path = tmp_path / "pasted.json"
    path.write_text(json.dumps(events, indent=1))
    return path


def probe_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["probe", *args])
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    return " ".join(text.split())


# -- a pasted array: the failed calls re-run, the cause confirmed -------------------------------


def test_a_pasted_array_alone_names_the_server_and_confirms_the_causes(
    tmp_path: Path, client: OpenAI, servers: Servers, capsys: pytest.CaptureFixture[str]
):
    path = pasted(
        tmp_path,
        client,
        servers,
        ("search", {"query": "ok"}),
        ("broken_schema", {"query": "from the paste"}),
        ("slow_search", {"query": "slow", "delay_s": 2.5}),
    )
    code, out, err = probe_in_process(capsys, str(path))
    assert code == 1, out + err
    assert f"mcptui: connecting to demo at {servers.mcp}/mcp" in err
    assert f"✓ demo  {servers.mcp}/mcp  streamable HTTP" in out
    # Only the failed calls are re-run, with their recorded arguments.
    assert (
        '✗ broken_schema {"query": "from the paste"}  failed in' in out
        and "(re-run from the recording)" in out
    )
    assert "✓ search" not in out
    # The response's own limit (the emulator's 1.5 s), not 60 s: the slow tool times out again.
    assert (
        f"each call waits up to {TOOL_TIMEOUT:g} s, the tool time limit of the recorded response"
    ) in flat(out)
    assert f"✗ no answer within {TOOL_TIMEOUT:g} s" in out
    assert re.search(rf"✗ broken_schema {ITEM_ID}: confirmed: {MISSING_TITLE}\n", out), out
    assert re.search(rf"✗ slow_search {ITEM_ID}: confirmed: {re.escape(TIMEOUT_TITLE)}\n", out), out
    assert "fix: Return structuredContent that matches the outputSchema" in out
    assert "probe: 1 of 1 server usable · 2 calls, 2 failed · problems found (exit 1)" in out
    # The echoed tools carry no headers: the report says credentials are unknown, and how to
    # supply them.
    assert "--header NAME=VALUE` supplies one" in flat(out)

    code, text, err = probe_in_process(capsys, str(path), "--tool", "broken_schema", "--json")
    assert code == 1 and err == ""
    report = json.loads(text)
    (verdict,) = report["verdicts"]
    assert verdict["tool"] == "broken_schema" and verdict["item_id"].startswith("mcp_")
    assert [(c["cause"], c["confidence"]) for c in verdict["causes"]] == [
        ("output_schema_without_structured_content", "confirmed")
    ]
    (call,) = report["servers"][0]["calls"]
    assert call["causes"] == verdict["causes"] and call["item_id"] == verdict["item_id"]
    assert report["notes"][0].startswith(f"each call waits up to {TOOL_TIMEOUT:g} s")


def test_the_same_paste_with_the_request_at_hand_is_the_same_probe(
    tmp_path: Path, client: OpenAI, servers: Servers, capsys: pytest.CaptureFixture[str]
):
    """`probe pasted.json` == `probe request.json --recording pasted.json`."""
    path = pasted(tmp_path, client, servers, ("broken_schema", {"query": "x"}))
    (tmp_path / "request.json").write_text(json.dumps(request_body(servers)))

    def verdicts(*args: str) -> list[Any]:
        code, text, _err = probe_in_process(capsys, *args, "--json")
        assert code == 1
        return [
            (v["tool"], v["item_id"], [c["cause"] for c in v["causes"]])
            for v in json.loads(text)["verdicts"]
        ]

    alone = verdicts(str(path))
    assert alone == verdicts(str(tmp_path / "request.json"), "--recording", str(path))
    assert alone[0][2] == ["output_schema_without_structured_content"]


# -- a recording of a token-protected server: --header supplies the redacted token --------------


def test_header_supplies_the_redacted_token_and_never_shows_it(
    tmp_path: Path,
    servers: Servers,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
):
    tool = servers.tool(
        url=f"{servers.mcp_token}/mcp", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    ran, header, _entries = run_request(
        servers,
        tmp_path,
        request_body(servers, ("broken_schema", {"query": f"echo {TOKEN}"}), tool=tool),
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert header["request"]["tools"][0]["headers"] == {"Authorization": "<redacted>"}

    # Without the token: refused, and the report says which header is missing and the flag.
    code, out, _err = probe_in_process(capsys, str(tmp_path / "rec.jsonl"))
    assert code == 1
    assert "✗ demo  reachable but refusing: " in out and "HTTP 401" in out
    assert (
        "header values were redacted in the source (Authorization): sent without them, "
        "so the server may refuse the connection or the call; `mcptui probe FILE --header "
        "Authorization=VALUE` supplies it"
    ) in flat(out)
    assert re.search(rf"! broken_schema {ITEM_ID}: possible: ", out), out
    assert "confirmed" not in out

    # With it, from the environment: the call is made and its cause confirmed; the token (sent,
    # and echoed in the recorded arguments) appears nowhere.
    done = run_cli(
        ["probe", "rec.jsonl", "--header", "Authorization=Bearer ${DEMO_TOKEN}"],
        tmp_path,
        cli_env(DEMO_TOKEN=TOKEN),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "headers sent (values hidden): Authorization" in done.stdout
    assert "i from --header (values hidden): Authorization" in done.stdout
    assert "redacted in the source" not in done.stdout
    assert '✗ broken_schema {"query": "echo <redacted>"}  failed in' in done.stdout
    assert re.search(rf"✗ broken_schema {ITEM_ID}: confirmed: {MISSING_TITLE}\n", done.stdout), (
        done.stdout
    )
    assert TOKEN not in done.stdout + done.stderr

    monkeypatch.setenv("DEMO_TOKEN", f"Bearer {TOKEN}")
    code, text, err = probe_in_process(
        capsys, str(tmp_path / "rec.jsonl"), "--json", "--header", "authorization=${DEMO_TOKEN}"
    )
    assert code == 1 and TOKEN not in text + err
    server = json.loads(text)["servers"][0]
    assert server["reachable"] and server["headers"] == ["authorization"]
    assert server["calls"][0]["causes"][0]["confidence"] == "confirmed"


# -- refusals: one line on stderr, exit 2 -------------------------------------------------------


def test_refusals_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("UNSET_TOKEN_FOR_PROBE", raising=False)
    deltas = tmp_path / "deltas.json"
    deltas.write_text(json.dumps([{"type": "response.output_text.delta", "delta": "hi"}]))
    created = tmp_path / "created.json"
    created.write_text(
        json.dumps(
            [
                {
                    "type": "response.created",
                    "response": {
                        "id": "resp_1",
                        "object": "response",
                        "status": "in_progress",
                        "output": [],
                        "tools": [
                            {
                                "type": "mcp",
                                "server_label": "demo",
                                "server_url": "http://127.0.0.1:9/mcp",
                                "headers": None,
                            }
                        ],
                    },
                }
            ]
        )
    )
    (tmp_path / "notes.txt").write_text("just some notes\n")
    cases = {
        (str(deltas),): f"mcptui: nothing to probe: {deltas} names no MCP server (no request "
        "in it and no response.created with tools); pass the request file: "
        f"mcptui probe REQUEST.json --recording {deltas}",
        (
            str(created),
            "--header",
            "Authorization=Bearer ${UNSET_TOKEN_FOR_PROBE}",
        ): "mcptui: --header Authorization: ${UNSET_TOKEN_FOR_PROBE} is not set: export it, "
        "or write ${UNSET_TOKEN_FOR_PROBE:-default}",
        (
            str(created),
            "--header",
            "Authorization: Bearer sekrit-value",
        ): "mcptui: the first --header has no '=': write --header NAME=VALUE (not NAME: "
        "VALUE), e.g. --header 'Authorization=Bearer ${TOKEN}'",
        (
            str(created),
            "--header",
            "X-A=1",
            "--header",
            "Bearer sekrit=value",
        ): "mcptui: the second --header has no valid header name before '=' (letters, digits "
        "and -_.!#$%&'*+^`|~ only): write --header NAME=VALUE",
        (str(tmp_path / "notes.txt"),): f"mcptui: cannot use {tmp_path / 'notes.txt'}: "
        "unrecognised content: no events, Response objects or "
        "SDK event reprs in it (1 line of prose skipped); accepted formats: ",
        (str(tmp_path / "gone.json"),): f"mcptui: {tmp_path / 'gone.json'}: no such file",
    }
    for args, expected in cases.items():
        code, out, err = probe_in_process(capsys, *args)
        assert code == 2, (args, out, err)
        assert out == "" and err.count("\n") == 1, (args, err)
        assert err.startswith(expected), (args, err)
        assert "sekrit" not in err


# -- a failed tool listing: the server's refusal is the verdict --------------------------------


def test_a_recorded_listing_failure_gets_the_refusal_the_probe_meets(
    tmp_path: Path, servers: Servers, capsys: pytest.CaptureFixture[str]
):
    """The POST's 424 says only "Error retrieving tool list"; probing the recording (no
    request file) reaches the server it names, which answers 421, and that is the verdict."""
    from mcptui.emulator.demo_server import DemoModes, build_app
    from mcptui.net.serve import ServerThread

    with ServerThread(build_app(modes=DemoModes(host_check=True))) as checked:
        done, _, _ = run_request(
            servers,
            tmp_path,
            request_body(
                servers, ("search", {"query": "q"}), tool=servers.tool(url=f"{checked.url}/mcp")
            ),
        )
        assert "Error retrieving tool list" in done.stdout + done.stderr
        recording = tmp_path / "rec.jsonl"
        code, out, err = probe_in_process(capsys, str(recording))
    assert code == 1, out + err
    assert "answered HTTP 421 Misdirected Request" in out
    assert re.search(
        r"tools/list: confirmed: Host header refused \(421\) behind a tunnel or "
        r"proxy, Tool listing failed",
        flat(out),
    ), out
    assert "unreachable" not in flat(out).split("verdict:")[1].lower()
