"""What `mcptui probe` reads: --header options, the headers applied to tool entries, a request
file told apart from a stream dump and the servers the dump names, and the verdict line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcptui.model.causes import CAUSES, LikelyCause
from mcptui.probe.probing import Verdict, entry_headers
from mcptui.probe.targets import (
    ProbeInputError,
    file_servers,
    parse_header,
    parse_headers,
    read_input,
    with_headers,
)
from mcptui.probe.view import verdict_line
from rich.console import Console

ENV = {"TOKEN": "tok-1234", "EMPTY": ""}


# -- --header ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("X-Api-Key=abc", ("X-Api-Key", "abc")),
        ("Authorization=Bearer abc==", ("Authorization", "Bearer abc==")),  # '=' in the value
        ("Authorization=${TOKEN}", ("Authorization", "tok-1234")),
        ("Authorization=Bearer ${TOKEN}", ("Authorization", "Bearer tok-1234")),
        ("X-Key=${NOPE:-fallback}", ("X-Key", "fallback")),
        (" X-Key = v ", ("X-Key", "v")),
    ],
)
def test_header_options(option: str, expected: tuple[str, str]):
    assert parse_header(option, ENV) == expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["Authorization: Bearer s3cret-v"],
            "the first --header has no '=': write --header NAME=VALUE (not NAME: VALUE)",
        ),
        (["A=1", "s3cret-v"], "the second --header has no '='"),
        (
            ["A=1", "B=2", "C=3", "Bearer s3cret-v=x"],
            "--header number 4 has no valid header name before '='",
        ),
        (["=s3cret-v"], "the first --header has no valid header name"),
        (
            ["Authorization=${UNSET}"],
            "--header Authorization: ${UNSET} is not set: export it, or write ${UNSET:-default}",
        ),
        (["X-Key="], "--header X-Key has an empty value"),
        (["X-Key=${EMPTY}"], "--header X-Key has an empty value"),
        (["X-Key=s3cret-v\r\nX-Evil: 1"], "--header X-Key: the value holds a line break or NUL"),
    ],
)
def test_bad_header_options_are_refused_without_quoting_the_value(options: list[str], message: str):
    with pytest.raises(ProbeInputError) as raised:
        parse_headers(options, ENV)
    assert str(raised.value).startswith(message)
    assert "s3cret" not in str(raised.value)


def test_supplied_headers_replace_redacted_ones_in_any_case_and_are_added():
    request = {
        "model": "m",
        "tools": [
            {
                "type": "mcp",
                "server_label": "a",
                "headers": {"authorization": "<redacted>", "X-Other": "<redacted>"},
            },
            {"type": "mcp", "server_label": "b", "authorization": "<redacted>"},
            {"type": "mcp", "server_label": "c", "headers": None},
            {"type": "function", "name": "f"},
        ],
    }
    changed = with_headers(request, [("Authorization", "Bearer tok-1234")])
    a, b, c, function = changed["tools"]
    # The redacted lower-case authorization is replaced; X-Other is still redacted, so named.
    assert entry_headers(a) == ({"Authorization": "Bearer tok-1234"}, ["X-Other"])
    assert entry_headers(b) == ({"Authorization": "Bearer tok-1234"}, [])  # the field is gone
    assert entry_headers(c) == ({"Authorization": "Bearer tok-1234"}, [])
    assert function == {"type": "function", "name": "f"}
    assert request["tools"][0]["headers"]["authorization"] == "<redacted>"  # not modified
    assert with_headers(request, []) == request


# -- the positional: a request, or a dump and the servers it names ------------------------------


def created(*tools: dict[str, Any], limit: str | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "status": "in_progress",
        "output": [],
        "tools": list(tools),
    }
    if limit:
        response["metadata"] = {"mcptui_tool_timeout_s": limit}
    return {"type": "response.created", "sequence_number": 0, "response": response}


def mcp(label: str, url: str = "https://mcp.example.com/mcp", **fields: Any) -> dict[str, Any]:
    return {"type": "mcp", "server_label": label, "server_url": url, **fields}


def test_a_request_file_is_read_as_run_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PROBE_URL", "https://x.example.com/mcp")
    path = tmp_path / "request.json"
    path.write_text(
        json.dumps({"model": "m", "input": "q", "tools": [mcp("a", url="${PROBE_URL}")]})
    )
    found = read_input(str(path))
    assert found.recording is None
    assert found.request["tools"][0]["server_url"] == "https://x.example.com/mcp"
    path.write_text('{"model": "m", "input": ')
    with pytest.raises(ProbeInputError, match=r"request.json: invalid JSON at line 1"):
        read_input(str(path))
    path.write_text(json.dumps({"model": "m", "tools": []}))
    with pytest.raises(ProbeInputError, match='the request has no "input"'):
        read_input(str(path))


def test_a_dump_names_its_servers_from_the_echoed_tools(tmp_path: Path):
    path = tmp_path / "pasted.json"
    path.write_text(
        json.dumps(
            [
                created(mcp("a"), {"type": "web_search"}, mcp("b")),
                {"type": "response.output_text.delta", "delta": "x"},
            ]
        )
    )
    found = read_input(str(path))
    assert found.recording is not None and found.echoed
    assert [e["server_label"] for e in found.request["tools"]] == ["a", "b"]


def test_a_recording_header_comes_first_and_keeps_its_header_names(tmp_path: Path):
    header = {
        "mcptui": "recording",
        "format": 1,
        "request": {
            "model": "m",
            "input": "q",
            "tools": [mcp("a", url="https://a.example.com/mcp", headers={"X-Key": "secret-77"})],
        },
    }
    lines = [
        header,
        {"t": 0.0, "event": created(mcp("a", url="https://echo.example.com/mcp"), mcp("b"))},
    ]
    path = tmp_path / "rec.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    found = read_input(str(path))
    assert found.recording is not None
    entries, echoed = file_servers(found.recording)
    assert [(e["server_label"], e["server_url"]) for e in entries] == [
        ("a", "https://a.example.com/mcp"),
        ("b", "https://mcp.example.com/mcp"),
    ]
    assert entries[0]["headers"] == {"X-Key": "<redacted>"}  # redacted on the way in
    assert echoed  # "b" is known only from the echo


def test_a_dump_without_servers_is_refused(tmp_path: Path):
    path = tmp_path / "deltas.jsonl"
    path.write_text(json.dumps(created({"type": "web_search"})) + "\n")
    with pytest.raises(ProbeInputError) as raised:
        read_input(str(path))
    assert str(raised.value) == (
        f"nothing to probe: {path} names no MCP server (no request in it and no "
        "response.created with tools); pass the request file: mcptui probe REQUEST.json "
        f"--recording {path}"
    )


# -- the verdict line ---------------------------------------------------------------------------


def shown(verdict: Verdict) -> str:
    console = Console(record=True, width=300, color_system=None)
    console.print(verdict_line(verdict))
    return console.export_text().rstrip("\n")


def test_the_verdict_names_the_confirmed_cause_else_the_top_candidates():
    def cause(key: str, confidence: Any) -> LikelyCause:
        return LikelyCause(CAUSES[key], confidence, ("evidence",))

    confirmed = Verdict(
        "demo", "search", "mcp_1", [cause("output_schema_without_structured_content", "confirmed")]
    )
    assert (
        shown(confirmed) == "✗ search (mcp_1): confirmed: Output schema without structuredContent"
    )
    open_case = Verdict(
        "demo",
        "search\x1b[31m",
        None,
        [
            cause("timeout", "likely"),
            cause("auth", "possible"),
            cause("invalid_content", "possible"),
            cause("session_terminated", "possible"),
        ],
    )
    assert shown(open_case) == (
        "! search\\x1b[31m: likely: Tool slower than the time limit; possible: "
        "Authentication refused (401/403), Invalid content block (+1 more in --json)"
    )
    assert shown(Verdict("demo", "t", "mcp_2", [])) == (
        "! t (mcp_2): no known cause fits; see the call's checks above"
    )
