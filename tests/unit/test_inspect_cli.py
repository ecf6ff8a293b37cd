"""`mcptui inspect`: what a user reads on the terminal, the --json form, and the exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_fork import forked_cli, forked_cli_bytes, real_cli, real_cli_bytes
from _support import (
    APPROVAL_1,
    APPROVAL_2,
    ERROR,
    FAILED_ONLY,
    HTTP_ERROR_424,
    MCP_TOOL,
    TASKGROUP_424,
    WEB_SEARCH,
    compact,
    message_stream,
    read_chunks,
    to_jsonl,
    with_failed_mcp_call,
)
from mcptui.cli.main import main
from mcptui.io.recording import event_line, make_header
from mcptui.model.events import Event, note

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def plain_wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """No colour forced from the environment, and lines wide enough not to wrap."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "400")


def write(tmp_path: Path, raws: list[dict], name: str = "stream.jsonl") -> str:
    path = tmp_path / name
    path.write_text(to_jsonl(raws), encoding="utf-8")
    return str(path)


def inspect_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["inspect", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


# -- exit codes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (MCP_TOOL, 0),
        (APPROVAL_1, 0),
        (APPROVAL_2, 0),
        (WEB_SEARCH, 0),
        (ERROR, 1),
        (FAILED_ONLY, 1),
    ],
)
def test_exit_code_per_fixture(upstream_dir: Path, capsys, name: str, code: int):
    assert main(["inspect", str(upstream_dir / name)]) == code
    assert main(["inspect", "--json", str(upstream_dir / name)]) == code


def test_exit_code_two_when_nothing_usable(tmp_path: Path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\x01\x02garbage" * 50)

    code = main(
        ["inspect", str(empty), str(binary), str(tmp_path / "missing.jsonl"), str(tmp_path)]
    )

    captured = capsys.readouterr()
    assert code == 2
    assert "nothing usable could be read" in captured.err
    assert "the file is empty" in captured.out
    assert "binary data" in captured.out
    assert "no such file" in captured.out
    assert "is a directory" in captured.out


def test_any_failure_among_several_files_exits_one(upstream_dir: Path, capsys):
    assert main(["inspect", str(upstream_dir / MCP_TOOL), str(upstream_dir / ERROR)]) == 1
    assert main(["inspect", str(upstream_dir / MCP_TOOL), str(upstream_dir / APPROVAL_1)]) == 0


def test_no_command_prints_help_and_exits_two(capsys):
    assert main([]) == 2
    assert "inspect" in capsys.readouterr().out


# -- the human report --------------------------------------------------------------------------


def test_report_shows_response_items_and_tools(upstream_dir: Path, capsys):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    assert main(["inspect", str(upstream_dir / MCP_TOOL)]) == 0
    out = capsys.readouterr().out

    assert "JSON lines · 373 events" in out
    assert raws[0]["response"]["id"] in out
    assert "gpt-5-mini-2025-08-07" in out
    assert out.count("mcp_call web_search_exa @dmcp  ✓ completed  · 6 events") == 2
    assert "tools (2) web_search_exa, get_code_context_exa" in out
    assert "Failures" not in out


def test_report_of_the_error_fixture_lists_both_failures(upstream_dir: Path, capsys):
    assert main(["inspect", str(upstream_dir / ERROR)]) == 1
    out = capsys.readouterr().out

    assert "Failures (2)" in out
    assert "✗ error  insufficient_quota You exceeded your current quota" in out
    assert "✗ response.failed  insufficient_quota: You exceeded your current quota" in out


def test_failed_tool_call_424_is_named_with_its_error(upstream_dir: Path, tmp_path: Path, capsys):
    raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)
    path = write(tmp_path, raws)

    assert main(["inspect", path]) == 1
    out = capsys.readouterr().out

    assert "Failures (1)" in out
    failure_lines = [line for line in out.splitlines() if "✗ mcp_call" in line]
    assert failure_lines
    assert all("web_search_exa" in line and TASKGROUP_424 in line for line in failure_lines)
    assert call_id in failure_lines[-1]


def test_failure_line_is_not_wrapped_when_piped(
    upstream_dir: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("COLUMNS")
    raws, _ = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)

    assert main(["inspect", write(tmp_path, raws)]) == 1
    out = capsys.readouterr().out

    assert any("web_search_exa" in line and TASKGROUP_424 in line for line in out.splitlines())


def test_plain_string_tool_error_is_shown(upstream_dir: Path, tmp_path: Path, capsys):
    error = "Error executing tool web_search_exa: upstream timed out"
    raws, _ = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), error, keep_status=False)

    assert main(["inspect", write(tmp_path, raws)]) == 1
    out = capsys.readouterr().out
    assert f"✗ mcp_call web_search_exa  {error}" in out


def test_markup_and_escape_sequences_in_stream_text_print_literally(tmp_path: Path, capsys):
    raws = message_stream(
        "look: [bold red]x[/] then \x1b[31mred\x1b[0m and a bell \x07", tool_name="[bold red]x[/]"
    )
    # a failure whose message is markup too
    raws.insert(
        -1,
        {
            "type": "error",
            "sequence_number": 99,
            "error": {"type": "server_error", "message": "[link=http://e.vil]y[/link]"},
        },
    )

    assert main(["inspect", write(tmp_path, raws)]) == 1
    out = capsys.readouterr().out

    assert "\x1b" not in out
    assert "\x07" not in out
    assert "text look: [bold red]x[/] then \\x1b[31mred\\x1b[0m and a bell \\x07" in out
    assert "mcp_call [bold red]x[/] @srv" in out
    assert "[link=http://e.vil]y[/link]" in out


def test_truncated_input_reports_the_problem_line(upstream_dir: Path, tmp_path: Path, capsys):
    raws = read_chunks(upstream_dir / APPROVAL_1)
    path = tmp_path / "cut.jsonl"
    path.write_text(to_jsonl(raws)[:-50], encoding="utf-8")

    # The cut line was response.completed: the response never finished, which is a failure.
    assert main(["inspect", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Problems reading the input (1)" in out
    assert "line 11: truncated last line" in out
    assert "✗ unfinished  never finished: last event response.output_item.done #9" in out

    assert main(["inspect", "--json", str(path)]) == 1
    (failure,) = json.loads(capsys.readouterr().out)["failures"]
    assert failure["type"] == "unfinished" and failure["error"].startswith("never finished")


def test_response_object_input_says_where_items_came_from(
    upstream_dir: Path, tmp_path: Path, capsys
):
    response = read_chunks(upstream_dir / APPROVAL_1)[-1]["response"]
    path = tmp_path / "response.json"
    path.write_text(json.dumps(response, indent=2), encoding="utf-8")

    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Response object · 0 events" in out
    assert out.count("· from response object") == 3
    assert "mcp_approval_request create_short_url @zip1" in out


# -- --json --------------------------------------------------------------------------------------


def test_json_shape(upstream_dir: Path, capsys):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    code, data = inspect_json(capsys, str(upstream_dir / MCP_TOOL))

    assert code == 0
    assert {"responses", "failures", "problems"} <= set(data)
    [resp] = data["responses"]
    assert {"id", "status", "model", "items"} <= set(resp)
    assert (resp["id"], resp["status"], resp["model"]) == (
        raws[0]["response"]["id"],
        "completed",
        "gpt-5-mini-2025-08-07",
    )
    for item in resp["items"]:
        assert {"index", "id", "type", "name", "status", "error"} <= set(item)
    assert [(i["index"], i["type"], i["name"], i["status"], i["error"]) for i in resp["items"]] == [
        (0, "mcp_list_tools", None, "completed", None),
        (1, "reasoning", None, "completed", None),
        (2, "mcp_call", "web_search_exa", "completed", None),
        (3, "reasoning", None, "completed", None),
        (4, "mcp_call", "web_search_exa", "completed", None),
        (5, "reasoning", None, "completed", None),
        (6, "message", None, "completed", None),
    ]
    assert all(i["id"] for i in resp["items"])
    assert data["failures"] == []
    assert data["problems"] == []


def test_json_failures_for_a_424_stream(upstream_dir: Path, tmp_path: Path, capsys):
    raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)
    code, data = inspect_json(capsys, write(tmp_path, raws))

    assert code == 1
    [failure] = data["failures"]
    assert {"response_id", "item_id", "type", "name", "error"} <= set(failure)
    assert (
        failure["response_id"],
        failure["item_id"],
        failure["type"],
        failure["name"],
        failure["error"],
    ) == (
        raws[0]["response"]["id"],
        call_id,
        "mcp_call",
        "web_search_exa",
        f"http_error {TASKGROUP_424}",
    )
    [call] = [i for i in data["responses"][0]["items"] if i["id"] == call_id]
    assert (call["status"], call["error"]) == ("failed", HTTP_ERROR_424)


def test_json_failures_and_problems_for_the_error_fixture(
    upstream_dir: Path, tmp_path: Path, capsys
):
    lines = to_jsonl(read_chunks(upstream_dir / ERROR)).splitlines()
    lines.insert(2, "{oops")
    path = tmp_path / "error.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    code, data = inspect_json(capsys, str(path))

    assert code == 1
    assert [(f["type"], f["response_id"]) for f in data["failures"]] == [
        ("error", "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424"),
        ("response.failed", "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424"),
    ]
    assert all("insufficient_quota" in f["error"] for f in data["failures"])
    [problem] = data["problems"]
    assert {"line", "message"} <= set(problem)
    assert problem["line"] == 3
    assert problem["message"].startswith("invalid JSON")


def test_json_of_unusable_input(tmp_path: Path, capsys):
    code, data = inspect_json(capsys, str(tmp_path / "missing.jsonl"))

    assert code == 2
    assert data["responses"] == []
    assert data["failures"] == []
    assert [(p["line"], p["message"]) for p in data["problems"]] == [
        (None, f"{tmp_path / 'missing.jsonl'}: no such file")
    ]


def test_json_keeps_markup_and_control_characters_as_data(tmp_path: Path, capsys):
    name = "[bold red]x[/]\x1b[31m"
    raws = message_stream("hello", tool_name=name)
    code, data = inspect_json(capsys, write(tmp_path, raws))

    assert code == 0
    assert data["responses"][0]["items"][0]["name"] == name


def test_dash_reads_standard_input(upstream_dir: Path, capsys, monkeypatch):
    data = (upstream_dir / ERROR).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    code, out = inspect_json(capsys, "-")

    assert code == 1
    assert out["files"][0]["path"] == "<stdin>"
    assert out["responses"][0]["status"] == "failed"


def test_dash_reads_sse_from_standard_input(upstream_dir: Path, capsys, monkeypatch):
    raws = read_chunks(upstream_dir / APPROVAL_1)
    sse = "".join(f"event: {r['type']}\r\ndata: {compact(r)}\r\n\r\n" for r in raws)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(sse.encode())))

    assert main(["inspect", "-"]) == 0
    out = capsys.readouterr().out
    assert "<stdin>  SSE · 11 events" in out
    assert "mcp_approval_request create_short_url @zip1" in out


# -- the real entry point ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "code", "real"), [(MCP_TOOL, 0, False), (ERROR, 1, True)])
def test_inspect_json_in_a_process_of_its_own(upstream_dir: Path, name: str, code: int, real: bool):
    """`mcptui inspect --json FILE` as a process of its own: the failing stream as `python -m
    mcptui` itself (its exit code passed on by __main__), the clean one forked from the
    _cli_fork server (~0.1 s of CPU, not ~1.5 s)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    args = ["inspect", "--json", str(upstream_dir / name)]
    result = (real_cli if real else forked_cli)(args, REPO, env, timeout=60)

    assert result.returncode == code, result.stderr
    data = json.loads(result.stdout)
    assert data["responses"][0]["id"] == read_chunks(upstream_dir / name)[0]["response"]["id"]


@pytest.mark.parametrize(
    "odd",
    [
        {"type": "response.output_text.delta", "item_id": ["msg_1"], "delta": "x"},
        {
            "type": "response.output_item.added",
            "output_index": {"n": 1},
            "item": {"id": "msg_2", "type": "message"},
        },
    ],
    ids=["list-item-id", "object-output-index"],
)
def test_malformed_ids_do_not_crash_inspect(tmp_path: Path, capsys, odd: dict):
    raws = message_stream("hello")
    raws.insert(3, {**odd, "sequence_number": 50})

    code = main(["inspect", write(tmp_path, raws)])

    assert code in (0, 1)
    assert "resp_synthetic" in capsys.readouterr().out


# -- diagnosis: likely causes, timing, findings, --strict ---------------------------------------


def test_the_classic_424_recording_names_its_likely_cause(capsys):
    path = str(REPO / "recordings" / "mcp-424-broken-schema.jsonl")
    assert main(["inspect", path]) == 1
    out = capsys.readouterr().out
    failures = out[out.index("Failures (1)") :]
    # The stream cannot tell it from an invalid content block: a candidate, first as the most
    # common, with the step that tells them apart; never "likely".
    assert "possible cause: Output schema without structuredContent" in failures
    assert "likely cause" not in failures
    assert (
        "evidence the call failed 1.13 s after its arguments were sent: too soon for a "
        "timeout" in failures
    )
    assert "cannot tell these candidates apart" in failures
    assert "try Return structuredContent that matches the outputSchema" in failures

    code, report = inspect_json(capsys, path)
    assert code == 1
    [failure] = report["failures"]
    assert failure["likely_causes"][0]["cause"] == "output_schema_without_structured_content"
    assert {c["confidence"] for c in failure["likely_causes"]} == {"possible"}


def test_the_timeout_recording_shows_timing_and_a_likely_timeout(capsys):
    path = str(REPO / "recordings" / "mcp-timeout-424.jsonl")
    assert main(["inspect", path]) == 1
    out = capsys.readouterr().out
    assert "likely cause: Tool slower than the time limit" in out
    timing = out[out.index("Timing") : out.index("Findings")]
    row = next(line for line in timing.splitlines() if "mcp_call slow_report" in line)
    assert "60.31s" in row and "60.24s" in row and "█" in row
    assert "likely_timeout  slow_report failed after 60.2 s" in out

    _, report = inspect_json(capsys, path)
    [timing_json] = report["timing"]
    call = next(i for i in timing_json["items"] if i["name"] == "slow_report")
    assert call["tool_s"] == pytest.approx(60.24, abs=0.01)
    assert [f["code"] for f in report["findings"]] == ["likely_timeout"]


def test_docs_spelled_argument_events_are_flagged_and_strict_fails(tmp_path: Path, capsys):
    raws = message_stream("hello")
    for raw in raws:
        raw["type"] = raw["type"].replace(
            "response.mcp_call_arguments.", "response.mcp_call.arguments."
        )
    path = write(tmp_path, raws)

    assert main(["inspect", path]) == 0  # nothing failed ...
    out = capsys.readouterr().out
    assert "unknown_event_type" in out
    assert "did you mean response.mcp_call_arguments.delta" in out
    assert "did you mean response.mcp_call_arguments.done" in out
    assert main(["inspect", "--strict", path]) == 1  # ... but the stream does not conform
    capsys.readouterr()

    code, report = inspect_json(capsys, "--strict", path)
    assert code == 1
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [(f["code"], f["suggestion"]) for f in errors] == [
        ("unknown_event_type", "response.mcp_call_arguments.delta"),
        ("unknown_event_type", "response.mcp_call_arguments.done"),
    ]
    assert [f["event_index"] for f in errors] == [3, 4]


@pytest.mark.parametrize("name", [MCP_TOOL, APPROVAL_1, APPROVAL_2, WEB_SEARCH, ERROR, FAILED_ONLY])
def test_real_streams_have_no_error_level_finding(upstream_dir: Path, capsys, name: str):
    path = str(upstream_dir / name)
    code, report = inspect_json(capsys, path)
    assert [f for f in report["findings"] if f["severity"] == "error"] == []
    assert main(["inspect", "--strict", path]) == code  # --strict changes nothing here


def test_odd_headers_and_usage_do_not_break_the_report(tmp_path: Path, capsys):
    """A recording's `request.tools` that is not a list, and token counts that are text with
    an escape sequence: a report, no traceback, nothing raw on the terminal."""
    header = {"mcptui": "recording", "format": 1, "request": {"tools": 5, "background": True}}
    failed = {
        "type": "response.failed",
        "sequence_number": 0,
        "response": {
            "id": "resp_x",
            "status": "failed",
            "error": None,
            "usage": {"input_tokens": "\u001b[2J", "output_tokens": 3},
        },
    }
    path = tmp_path / "odd.jsonl"
    path.write_text(
        compact(header) + "\n" + compact({"t": 0.0, "event": failed}) + "\n", encoding="utf-8"
    )
    assert main(["inspect", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "tokens in ? out 3" in out


def test_a_live_recordings_notes_show_in_order_in_the_tree_and_json(tmp_path: Path, capsys):
    """A resumed background run: a malformed line, a disconnect and a resume between events.
    `inspect` tells them in the order they happened, in the tree and in --json."""
    raws = message_stream("hello there")
    notes = {
        3: note("malformed", "SSE data is not JSON: 'data: {oops'", level="warning"),
        5: note("disconnect", "the connection broke mid-stream: peer closed", level="warning"),
        6: note("resume", "resuming resp_synthetic after sequence number 4"),
    }
    entries = []
    for position, raw in enumerate(raws):
        if position in notes:
            entries.append(event_line(notes[position]))
        entries.append(event_line(Event(raw, t=position * 0.1)))
    path = tmp_path / "resumed.jsonl"
    path.write_text("\n".join([json.dumps(make_header("live")), *entries]) + "\n")

    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    order = [
        out.index(text)
        for text in (
            "mcp_call lookup",
            "note malformed: SSE data is not JSON",
            "note disconnect: the connection broke",
            "note resume: resuming resp_synthetic",
            "message",
        )
    ]
    assert order == sorted(order), out

    code, report = inspect_json(capsys, str(path))
    assert code == 0
    (response,) = report["responses"]
    assert [(n["kind"], n["level"]) for n in response["notes"]] == [
        ("malformed", "warning"),
        ("disconnect", "warning"),
        ("resume", "info"),
    ]
    assert response["notes"][2]["message"] == "resuming resp_synthetic after sequence number 4"


HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x\x1b\\\x1b]52;c;ZXZpbA==\x07\x9b31m\u202eevil"


def hostile_recording(tmp_path: Path) -> Path:
    """Every string a report shows, from the stream or the recording, carrying terminal
    escapes (title, clear screen, hyperlink, clipboard write), a C1 CSI and a bidi override."""
    h = HOSTILE
    raws = with_failed_mcp_call(
        message_stream(f"text {h}", response_id=f"resp_{h}", tool_name=f"tool{h}"),
        {"message": f"err {h}"},
    )[0]
    raws[0]["response"]["model"] = f"model{h}"
    raws.insert(3, {"type": f"response.custom{h}", "sequence_number": 3})
    lines = [
        json.dumps(make_header("live")),
        *(event_line(Event(raw, t=n * 0.1)) for n, raw in enumerate(raws)),
    ]
    lines.insert(2, event_line(note(f"kind{h}", f"message {h}", 0.05, level="error")))
    lines.insert(3, f"not json {h}")
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("mode", [[], ["--json"]])
def test_no_control_character_from_the_input_reaches_the_terminal(
    tmp_path: Path, capsys, mode: list[str]
):
    path = hostile_recording(tmp_path)
    main(["inspect", *mode, str(path)])
    out = capsys.readouterr()
    shown = out.out + out.err

    assert "kind" in shown and "tool" in shown and "evil" in shown  # the fields are there
    bad = sorted(
        {
            hex(ord(c))
            for c in shown
            if (ord(c) < 0x20 and c not in "\n")
            or 0x7F <= ord(c) <= 0x9F
            or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
        }
    )
    assert bad == []
    if mode:
        json.loads(out.out)  # still valid JSON, the characters escaped


def test_a_missing_file_beside_a_good_one_exits_2_and_both_are_reported(tmp_path: Path, capsys):
    good = REPO / "recordings" / "mcp-success.jsonl"
    code = main(["inspect", str(good), str(tmp_path / "missing.jsonl")])
    out = capsys.readouterr()
    assert code == 2
    assert "mcp_call" in out.out  # the good file is reported
    assert "no such file" in out.out
    assert "1 of 2 files could not be used" in out.err


def test_an_internal_error_exits_3_with_one_line_and_a_log(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    from mcptui.share import inspect_output as report

    monkeypatch.chdir(tmp_path)

    def broken(_loaded):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(report.Inspection, "of", broken)
    code = main(["inspect", str(REPO / "recordings" / "mcp-success.jsonl")])
    err = capsys.readouterr().err
    assert code == 3
    assert (
        err.startswith("mcptui: internal error: ZeroDivisionError: a bug") and err.count("\n") == 1
    )
    assert "ZeroDivisionError" in (tmp_path / "mcptui-recordings" / "mcptui-error.log").read_text()


def test_json_of_many_unusable_lines_is_folded(tmp_path: Path, capsys):
    """A typeless event on every line: one folded problem and one folded finding with their
    counts, not a hundred thousand entries (which took 95 s and 5 GB to print)."""
    path = tmp_path / "empty.jsonl"
    path.write_text("".join(f'{{"n": {n}}}\n' for n in range(100_000)))
    code, out = inspect_json(capsys, str(path))
    assert code == 1
    (problem,) = out["problems"]
    assert (problem["message"], problem["count"], problem["lines"][:3]) == (
        "event has no type (kept)",
        100_000,
        [1, 2, 3],
    )
    missing = [f for f in out["findings"] if f["code"] == "missing_field"]
    assert len(missing) == 1 and missing[0]["count"] == 100_000
    assert len(missing[0]["event_indexes"]) == 20


def test_output_piped_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path):
    """`mcptui inspect --json … | head`: the reader leaves after a line; no traceback, no
    error log, the exit status a shell gives a command killed by SIGPIPE."""
    sample = str(REPO / "recordings" / "mcp-424-broken-schema.jsonl")
    process = subprocess.Popen(  # 20 copies: ~140 KB, more than a pipe holds
        [sys.executable, "-m", "mcptui", "inspect", "--json", *[sample] * 20],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    assert process.wait(timeout=30) == 141
    assert process.stderr.read() == b""
    assert not (tmp_path / "mcptui-recordings").exists()


ESCAPES = "\x1b]0;pwned\x07"
"""An OSC sequence (set the window title) in a file name: ESC … BEL."""


def cli(args: list[str], cwd: Path, *, real: bool = False) -> subprocess.CompletedProcess[bytes]:
    """`mcptui ARGS` forked from the _cli_fork server; `real`: as `python -m mcptui`."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    done = (real_cli_bytes if real else forked_cli_bytes)(args, cwd, env, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize(
    "args",
    [
        ["report", "rec.jsonl", "-o", f"out{ESCAPES}.md"],
        ["report", "rec.jsonl", "-o", f"no{ESCAPES}/out.md"],
        ["export", "rec.jsonl", "-o", f"out{ESCAPES}.sh"],
        ["export", "rec.jsonl", "-o", f"out{ESCAPES}.json"],
        ["inspect", f"missing{ESCAPES}.jsonl"],
        ["report", f"missing{ESCAPES}.jsonl"],
        ["replay", f"missing{ESCAPES}.jsonl"],
        ["probe", f"missing{ESCAPES}.jsonl"],
        ["inspect", "rec.jsonl", "--tap", f"missing{ESCAPES}.jsonl"],
    ],
    ids=lambda args: " ".join(args[:1] + args[2:3]).replace(ESCAPES, "ESC"),
)
def test_paths_the_cli_prints_act_on_no_terminal(args: list[str], tmp_path: Path):
    """ "report written to OUT", "wrote OUT", "OUT: no such file": the name's ESC and BEL are
    shown as `\\x1b`/`\\x07`, never sent."""
    (tmp_path / "rec.jsonl").write_bytes(
        (REPO / "recordings" / "mcp-424-broken-schema.jsonl").read_bytes()
    )
    done = cli(args, tmp_path)
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr, done.stderr
    assert b"\\x1b]0;pwned\\x07" in done.stderr, done.stderr


def test_json_names_a_file_whose_name_is_not_utf8(tmp_path: Path):
    """`b'\\xff.jsonl'`: the name is escaped (`\\udcff`), and the output is JSON."""
    sample = (REPO / "recordings" / "mcp-424-broken-schema.jsonl").read_bytes()
    name = os.fsdecode(b"\xff.jsonl")
    (tmp_path / name).write_bytes(sample)
    done = cli(["inspect", "--json", name], tmp_path, real=True)  # argv bytes: a real process
    assert done.returncode == 1, done.stderr  # the recording's 424
    data = json.loads(done.stdout.decode("utf-8"))
    assert [os.fsencode(file["path"]) for file in data["files"]] == [b"\xff.jsonl"]
    assert b'"\\udcff.jsonl"' in done.stdout
