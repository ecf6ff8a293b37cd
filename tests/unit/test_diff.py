"""`mcptui diff`: aligning two runs and naming where they diverge first.

The model is tested on small streams that differ in one way each (`mcp_stream`); the command
in-process on the shipped recordings, a fixture against itself, an unusable file, and
arguments holding credentials.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _support import HTTP_ERROR_424, TASKGROUP_424, mcp_stream, to_jsonl
from mcptui.cli.main import main
from mcptui.model.diagnosis import diagnose
from mcptui.model.events import Event
from mcptui.model.run_diff import Comparison, Run, compare
from mcptui.model.timeline import Timeline

REPO = Path(__file__).resolve().parents[2]
SUCCESS = str(REPO / "recordings" / "mcp-success.jsonl")
BROKEN = str(REPO / "recordings" / "mcp-424-broken-schema.jsonl")
SEARCH = {
    "name": "search_files",
    "description": "Search files.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
}
READ = {"name": "read_file", "input_schema": {"type": "object"}}


def run_of(
    raws: list[dict[str, Any]], *, delay_after: int | None = None, delay: float = 0.0
) -> Run:
    """The stream folded and diagnosed as `diff` does; each event 0.1 s after the one
    before, and `delay` seconds more from event `delay_after` on (a slow tool)."""
    events = [
        Event(
            raw,
            t=0.1 * number + (delay if delay_after is not None and number >= delay_after else 0.0),
        )
        for number, raw in enumerate(raws)
    ]
    timeline = Timeline(events)
    timeline.seek_end()
    return Run(timeline.state, timeline.events, diagnose(timeline.events, timeline.state))


def diff(a: list[dict[str, Any]], b: list[dict[str, Any]], **b_options: Any) -> Comparison:
    return compare(run_of(a), run_of(b, **b_options))


def kinds(comparison: Comparison) -> list[tuple[str, bool]]:
    return [(change.kind, change.shape) for change in comparison.changes]


def markers(comparison: Comparison) -> list[str]:
    return [row.marker if row is not None else pair.marker for pair, row in comparison.pairs()]


def index_of(raws: list[dict[str, Any]], event_type: str, item_id: str) -> int:
    return next(
        n
        for n, raw in enumerate(raws)
        if raw["type"] == event_type and raw.get("item_id") == item_id
    )


# -- the model ------------------------------------------------------------------------------


def test_identical_runs_are_the_same_shape_with_no_differences():
    raws = mcp_stream(
        [{"name": "search_files", "arguments": {"query": "q"}}],
        tools=[SEARCH],
        usage={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    )
    comparison = diff(raws, raws)
    assert comparison.same and comparison.changes == [] and comparison.first is None
    assert set(markers(comparison)) == {"="}


def test_a_call_that_failed_in_b_is_the_first_divergence_with_b_error_and_cause():
    a = mcp_stream([{"name": "search_files"}], tools=[SEARCH])
    b = mcp_stream([{"name": "search_files", "error": HTTP_ERROR_424}], tools=[SEARCH])
    comparison = diff(a, b)
    first = comparison.first
    assert first is not None and not comparison.same
    assert first.kind == "status" and first is comparison.first_failure
    assert first.subject == "mcp_call search_files @srv (#1)"
    assert first.error == f"http_error {TASKGROUP_424}"
    assert first.causes and first.causes[0].cause.title == "Output schema without structuredContent"
    assert first.line == (
        f"mcp_call search_files @srv (#1): completed in A, failed in B: "
        f"http_error {TASKGROUP_424}; likely cause: Output schema without "
        f"structuredContent ({first.causes[0].confidence})"
    )
    assert first.b_event == index_of(b, "response.mcp_call.failed", "mcp_0")
    assert markers(comparison) == ["=", "=", "≠", "="]


def test_calls_pair_by_server_and_tool_so_an_extra_call_shifts_nothing():
    a = mcp_stream([{"name": "x"}, {"name": "z"}])
    b = mcp_stream([{"name": "y"}, {"name": "x"}, {"name": "z", "error": "boom"}])
    comparison = diff(a, b)
    rows = comparison.responses[0].items
    assert [(row.a and row.a.name, row.b and row.b.name, row.marker) for row in rows] == [
        (None, "y", "+"),
        ("x", "x", "="),
        ("z", "z", "≠"),
        (None, None, "="),
    ]
    assert [(change.kind, change.subject) for change in comparison.shape_changes] == [
        ("only_in_b", "mcp_call y @srv (#0)"),
        ("status", "mcp_call z @srv (#2 in B, #1 in A)"),
    ]
    assert comparison.first_failure is comparison.shape_changes[1]
    assert comparison.first_failure.summary == "completed in A, failed in B: boom"


def test_an_item_only_in_a_shows_where_b_went_on_without_it():
    a = mcp_stream([{"name": "x"}, {"name": "z"}])
    b = mcp_stream([{"name": "z"}])
    comparison = diff(a, b)
    (change,) = comparison.changes
    assert (change.kind, change.shape, change.summary) == (
        "only_in_a",
        True,
        "only in A (completed)",
    )
    assert change.subject == "mcp_call x @srv (#0)"
    assert change.b_event == 2  # B's first item event: where A called x, B called z
    assert markers(comparison) == ["=", "−", "=", "="]


def test_a_different_call_at_the_same_place_pairs_as_replaced():
    a = mcp_stream([{"name": "search_docs", "server_label": "docs"}])
    b = mcp_stream([{"name": "search_files", "server_label": "files", "error": "bad"}])
    comparison = diff(a, b)
    assert kinds(comparison) == [("replaced", True), ("status", True)]
    replaced = comparison.changes[0]
    assert replaced.summary == "a different call: search_docs @docs in A, search_files @files in B"


def test_argument_structure_is_shape_and_values_are_informational():
    a = mcp_stream([{"name": "search", "arguments": {"query": "q1", "limit": 3}}])
    values = diff(a, mcp_stream([{"name": "search", "arguments": {"query": "q2", "limit": 3}}]))
    assert values.same and kinds(values) == [("argument_values", False)]
    assert [p.as_json() for p in values.changes[0].paths] == [
        {"path": "query", "change": "changed", "a": "q1", "b": "q2"}
    ]

    shape = diff(
        a,
        mcp_stream(
            [{"name": "search", "arguments": {"query": "q1", "limit": "3", "folder": "/f"}}]
        ),
    )
    assert not shape.same and kinds(shape) == [("arguments", True)]
    assert [p.line for p in shape.changes[0].paths] == [
        'limit: 3 in A, "3" in B',
        'folder: added in B: "/f"',
    ]


def test_a_tool_list_change_names_tools_added_removed_and_the_schema_that_appeared():
    with_schema = {**SEARCH, "output_schema": {"type": "object"}}
    comparison = diff(
        mcp_stream([], tools=[SEARCH, READ]),
        mcp_stream([], tools=[with_schema, {"name": "write_file"}]),
    )
    (change,) = comparison.changes
    assert change.kind == "tools" and change.shape
    assert [tool.line for tool in change.tools] == [
        "output_schema appeared on search_files",
        "read_file only in A",
        "write_file only in B",
    ]
    assert "output_schema appeared on search_files" in change.summary


def test_a_changed_input_schema_lists_its_paths_and_a_description_alone_is_informational():
    narrower = {**SEARCH, "input_schema": {"type": "object", "properties": {}}}
    schema = diff(mcp_stream([], tools=[SEARCH]), mcp_stream([], tools=[narrower]))
    (tool,) = schema.changes[0].tools
    assert tool.line == "input_schema changed on search_files"
    assert [p.path for p in tool.paths] == ["input_schema.properties.query"]

    reworded = diff(
        mcp_stream([], tools=[SEARCH]),
        mcp_stream([], tools=[{**SEARCH, "description": "Find files."}]),
    )
    assert reworded.same and kinds(reworded) == [("descriptions", False)]


def test_a_response_that_failed_in_b_is_a_shape_difference_with_its_error():
    comparison = diff(mcp_stream([]), mcp_stream([], status="failed"))
    (change,) = comparison.changes
    assert (change.kind, change.subject) == ("status", "response 1")
    assert change.summary == "completed in A, failed in B: server_error: The server had an error."


def test_timing_and_usage_are_informational_and_say_how_much_slower():
    a = mcp_stream(
        [{"name": "x"}], usage={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    )
    b = mcp_stream(
        [{"name": "x"}], usage={"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}
    )
    slow = diff(a, b, delay_after=index_of(b, "response.mcp_call.completed", "mcp_0"), delay=0.9)
    assert slow.same
    assert [(c.kind, c.summary) for c in slow.changes] == [
        ("timing", "10.0x slower (0.10s in A, 1.00s in B)"),
        ("usage", "tokens in 10 → 12, total 15 → 17"),
    ]
    a_bit = diff(
        a, a, delay_after=index_of(a, "response.mcp_call.completed", "mcp_0"), delay=0.3
    )  # 4x, but only 0.3 s: not worth saying
    assert a_bit.changes == []


def test_a_reasoning_item_in_one_run_only_is_informational():
    comparison = diff(mcp_stream([{"name": "x"}]), mcp_stream([{"name": "x"}], reasoning=1))
    assert comparison.same and kinds(comparison) == [("only_in_b", False)]


# -- the command ----------------------------------------------------------------------------


def test_the_shipped_pair_names_the_failed_call_and_b_error(capsys: pytest.CaptureFixture[str]):
    assert main(["diff", "--no-tui", SUCCESS, BROKEN]) == 1
    out = capsys.readouterr().out
    assert out.startswith("mcptui diff: they differ")
    assert (
        "first failure in B: mcp_call search_files @files (#2): completed in A, failed in "
        f"B: http_error {TASKGROUP_424}; likely cause: Output schema without "
        "structuredContent (possible)"
    ) in out
    assert (
        "first divergence: mcp_list_tools @files (#0): a different server: @docs in A, "
        "@files in B" in out
    )


def test_json_gives_scripts_the_first_divergence_and_b_error(capsys: pytest.CaptureFixture[str]):
    assert main(["diff", "--json", SUCCESS, BROKEN]) == 1
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {
        "same",
        "a",
        "b",
        "first",
        "first_failure",
        "differences",
        "counts",
        "alignment",
        "notes",
    }
    assert report["same"] is False
    assert report["a"]["file"] == SUCCESS and report["b"]["responses"][0]["status"] == "completed"
    failure = report["first_failure"]
    assert (failure["kind"], failure["subject"], failure["b_error"]) == (
        "status",
        "mcp_call search_files @files (#2)",
        f"http_error {TASKGROUP_424}",
    )
    assert failure["b_likely_causes"][0]["title"] == "Output schema without structuredContent"
    assert report["first"] == report["differences"][0]
    assert report["counts"] == {"shape": 4, "informational": 2}
    assert [row["marker"] for row in report["alignment"][0]["items"]] == ["≠", "=", "≠", "=", "~"]


def test_a_fixture_against_itself_exits_0(upstream_dir: Path, capsys: pytest.CaptureFixture[str]):
    path = str(upstream_dir / "openai-mcp-tool.1.chunks.txt")
    assert main(["diff", "--json", path, path]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["same"] is True and report["differences"] == [] and report["first"] is None
    assert main(["diff", "--no-tui", path, path]) == 0
    assert "the same shape, no differences" in capsys.readouterr().out


def test_two_upstream_fixtures_differ_where_b_has_no_mcp(
    upstream_dir: Path, capsys: pytest.CaptureFixture[str]
):
    assert (
        main(
            [
                "diff",
                "--json",
                str(upstream_dir / "openai-mcp-tool.1.chunks.txt"),
                str(upstream_dir / "openai-web-search-tool.1.chunks.txt"),
            ]
        )
        == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert report["first"]["line"] == "mcp_list_tools @dmcp (#0): only in A (completed)"
    assert "A has no timestamps: timing is not compared" in report["notes"]


def test_an_unusable_file_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["diff", "--json", SUCCESS, str(empty)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"mcptui: cannot compare: {empty}: the file is empty\n"


def test_secrets_in_arguments_are_never_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    def stream(key: str, token: str) -> Path:
        raws = mcp_stream(
            [
                {
                    "name": "fetch",
                    "arguments": {
                        "api_key": key,
                        "auth": f"Bearer {token}",
                        "url": f"https://x.test/?token={token}",
                        "note": f"[bold red]{len(key)}[/] \x1b[31m",
                    },
                }
            ]
        )
        path = tmp_path / f"run-{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text(to_jsonl(raws))
        return path

    a = stream("hunter2-first-secret", "tokenAAAAAAAAAAAA1")
    b = stream("hunter2-other-secret-", "tokenBBBBBBBBBBBB2")
    outputs = {}
    for flag in ("--json", "--no-tui"):
        assert main(["diff", flag, str(a), str(b)]) == 0  # values only: the same shape
        outputs[flag] = out = capsys.readouterr().out
        for secret in ("hunter2", "tokenAAAA", "tokenBBBB"):
            assert secret not in out
        assert "<redacted>" in out and "api_key" in out
        assert "\x1b" not in out
    # Markup and escape sequences from the stream are shown as written, never acted on.
    assert (
        'note: "[bold red]20[/] \\u001b[31m" in A, "[bold red]21[/] \\u001b[31m" in B'
        in outputs["--no-tui"]
    )
