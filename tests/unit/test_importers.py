"""mcptui.io.formats: every shape of dump people have gives the same events; bad input never
raises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _support import (
    APPROVAL_1,
    ERROR,
    EXPECTED_COUNTS,
    FAILED_ONLY,
    FIXTURES,
    MCP_TOOL,
    compact,
    fold,
    item_ids_of_type,
    read_chunks,
    to_jsonl,
    to_sse,
)
from mcptui.io.formats import load_bytes, load_path, load_text
from mcptui.io.recording import RecordingWriter, make_header
from mcptui.model.events import Event


def raws_of(loaded) -> list[dict]:
    return [event.raw for event in loaded.events]


# -- the upstream fixtures as they are --------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_upstream_fixture_loads_every_event_without_problems(upstream_dir: Path, name: str):
    loaded = load_path(str(upstream_dir / name))

    assert loaded.problems == []
    assert loaded.usable
    assert len(loaded.events) == EXPECTED_COUNTS[name]
    assert raws_of(loaded) == read_chunks(upstream_dir / name)
    assert [e.line for e in loaded.events] == list(range(1, EXPECTED_COUNTS[name] + 1))


def test_source_md_lists_the_counts_these_tests_expect(upstream_dir: Path):
    table = (upstream_dir / "SOURCE.md").read_text(encoding="utf-8")
    listed = {
        name: int(count)
        for name, count in re.findall(
            r"^\| `([^`]+\.chunks\.txt)` \| `[0-9a-f]+` \| (\d+) \|", table, re.M
        )
    }
    assert listed == EXPECTED_COUNTS
    assert {p.name for p in upstream_dir.glob("*.chunks.txt")} == set(EXPECTED_COUNTS)


# -- the same events in other shapes ----------------------------------------------------------

SSE_VARIANTS = {
    "lf": {},
    "crlf": {"newline": "\r\n"},
    "comments-and-ids": {"comments": True, "ids": True},
    "crlf-comments-ids-split-data": {
        "newline": "\r\n",
        "comments": True,
        "ids": True,
        "split_data": True,
    },
    "split-data": {"split_data": True},
}


@pytest.mark.parametrize("variant", sorted(SSE_VARIANTS))
@pytest.mark.parametrize("name", FIXTURES)
def test_raw_sse_dump_gives_the_same_events(upstream_dir: Path, name: str, variant: str):
    raws = read_chunks(upstream_dir / name)
    text = to_sse(raws, **SSE_VARIANTS[variant])

    loaded = load_bytes(text.encode("utf-8"), source="dump.sse")

    assert loaded.format == "SSE"
    assert loaded.problems == []
    assert raws_of(loaded) == raws


def test_sse_event_lines_point_at_the_dump_lines(upstream_dir: Path):
    raws = read_chunks(upstream_dir / ERROR)
    loaded = load_text(to_sse(raws, ids=True))
    # each event takes four lines: event, id, data, blank
    assert [e.line for e in loaded.events] == [1, 5, 9, 13]


def test_sse_data_that_is_not_json_is_a_problem_and_the_rest_is_kept(upstream_dir: Path):
    raws = read_chunks(upstream_dir / ERROR)
    text = to_sse(raws[:2]) + "event: oops\ndata: {not json\n\n" + to_sse(raws[2:])

    loaded = load_text(text)

    assert raws_of(loaded) == raws
    assert len(loaded.problems) == 1
    assert loaded.problems[0].line == 7
    assert "not JSON" in loaded.problems[0].message


@pytest.mark.parametrize("name", FIXTURES)
def test_json_array_gives_the_same_events(upstream_dir: Path, name: str):
    raws = read_chunks(upstream_dir / name)
    loaded = load_text(json.dumps(raws, indent=2))

    assert loaded.format == "JSON array"
    assert loaded.problems == []
    assert raws_of(loaded) == raws


def forum_paste(raws: list[dict]) -> tuple[str, list[int]]:
    """Events one after another as pasted in a forum post: no brackets, `,\\n` or `,\\n\\n`
    between them, every third one pretty-printed. Returns the text and each event's first line."""
    text = ""
    starts = []
    for number, raw in enumerate(raws):
        starts.append(text.count("\n") + 1)
        text += json.dumps(raw, indent=2) if number % 3 == 1 else compact(raw)
        if number < len(raws) - 1:
            text += ",\n\n" if number % 2 else ",\n"
    return text + "\n", starts


@pytest.mark.parametrize("name", [ERROR, APPROVAL_1, MCP_TOOL])
def test_forum_paste_gives_the_same_events(upstream_dir: Path, name: str):
    raws = read_chunks(upstream_dir / name)
    text, starts = forum_paste(raws)

    loaded = load_text(text)

    assert loaded.format == "pasted events"
    assert loaded.problems == []
    assert raws_of(loaded) == raws
    assert [e.line for e in loaded.events] == starts


def test_blank_line_separated_paste_with_one_pretty_event_keeps_it(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)[:40]
    text = "\n\n".join(
        json.dumps(r, indent=2) if n == 20 else compact(r) for n, r in enumerate(raws)
    )

    loaded = load_text(text)

    assert loaded.problems == []
    assert raws_of(loaded) == raws


def test_single_response_object_gives_items_from_the_snapshot(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    response = raws[-1]["response"]
    assert raws[-1]["type"] == "response.completed"

    loaded = load_text(json.dumps(response, indent=2))

    assert loaded.format == "Response object"
    assert loaded.events == []
    assert loaded.problems == []
    assert loaded.usable
    state = fold([], loaded.snapshots).state
    [resp] = state.responses
    assert resp.id == response["id"]
    assert resp.status == "completed"
    assert [item.item_id for item in resp.items] == [o["id"] for o in response["output"]]
    assert all(item.from_snapshot for item in resp.items)
    assert all(item.events == [] for item in resp.items)
    calls = [item for item in resp.items if item.type == "mcp_call"]
    assert [(c.name, c.status) for c in calls] == [("web_search_exa", "completed")] * 2


def test_failed_response_object_keeps_its_error(upstream_dir: Path):
    response = read_chunks(upstream_dir / FAILED_ONLY)[-1]["response"]
    loaded = load_text(compact(response))

    [resp] = fold([], loaded.snapshots).state.responses
    assert resp.status == "failed"
    assert resp.error["code"] == "rate_limit_exceeded"


def test_mcptui_recording_gives_the_same_events(upstream_dir: Path, tmp_path: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    path = tmp_path / "run.jsonl"
    with RecordingWriter(path, make_header("file", path="x")) as writer:
        for number, raw in enumerate(raws):
            writer.write(Event(raw, t=number * 0.25))

    loaded = load_path(str(path))

    assert loaded.format == "mcptui recording"
    assert loaded.problems == []
    assert loaded.header["source"] == {"kind": "file", "path": "x"}
    assert raws_of(loaded) == raws
    assert [e.t for e in loaded.events] == [n * 0.25 for n in range(len(raws))]
    assert [e.line for e in loaded.events] == list(range(2, len(raws) + 2))


# -- bad input ------------------------------------------------------------------------------


def test_truncated_last_line_keeps_good_events_and_names_the_line(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    text = to_jsonl(raws)
    cut = text.rstrip("\n")
    cut = cut[: cut.rindex("\n") + 1 + 300]  # 300 characters into the last line

    loaded = load_text(cut)

    assert raws_of(loaded) == raws[:-1]
    assert loaded.usable
    [problem] = loaded.problems
    assert problem.line == len(raws)
    assert "truncated" in problem.message
    assert str(problem).startswith(f"line {len(raws)}: ")


def test_invalid_json_line_in_the_middle_is_reported_and_skipped(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    lines = [compact(r) for r in raws]
    lines[9] = lines[9][:-7]  # line 10 broken

    loaded = load_text("\n".join(lines) + "\n")

    assert raws_of(loaded) == raws[:9] + raws[10:]
    [problem] = loaded.problems
    assert problem.line == 10
    assert "invalid JSON" in problem.message
    assert loaded.usable


def test_binary_garbage_is_not_usable_and_says_so():
    garbage = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20

    loaded = load_bytes(garbage, source="image.png")

    assert not loaded.usable
    assert loaded.events == []
    [problem] = loaded.problems
    assert "binary" in problem.message
    assert "accepted formats" in problem.message


def test_unrecognised_text_lists_the_accepted_formats():
    loaded = load_bytes(b"\xff\xfe hello there\nthis is not a stream\n")

    assert not loaded.usable
    [problem] = loaded.problems
    assert "unrecognised" in problem.message
    assert "raw SSE" in problem.message


@pytest.mark.parametrize("data", [b"", b"  \n\n\t\n", b"\xef\xbb\xbf\n"])
def test_empty_file_is_not_usable(tmp_path: Path, data: bytes):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(data)

    loaded = load_path(str(path))

    assert not loaded.usable
    assert [p.message for p in loaded.problems] == ["the file is empty"]


def test_five_megabyte_event_is_kept_whole(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    message_id = item_ids_of_type(raws, "message")[0]
    big = "x" * (5 * 1024 * 1024)
    huge = {
        "type": "response.output_text.delta",
        "sequence_number": 9999,
        "item_id": message_id,
        "output_index": 6,
        "content_index": 0,
        "delta": big,
    }

    alone = load_text(compact(huge))
    assert alone.problems == []
    assert [e.raw for e in alone.events] == [huge]

    spliced = [*raws[:-3], huge, *raws[-3:]]
    loaded = load_text(to_jsonl(spliced))
    assert loaded.problems == []
    assert len(loaded.events) == len(raws) + 1
    message = fold(raws_of(loaded)).state.responses[0].by_item_id[message_id]
    assert message.text.endswith(big)


def test_unknown_event_types_are_kept_and_attached_to_their_item(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    call_id = item_ids_of_type(raws, "mcp_call")[0]
    odd_item = {"type": "response.mcp_call.heartbeat_v9", "sequence_number": 9, "item_id": call_id}
    odd_response = {"type": "response.telemetry_v9", "sequence_number": 9}
    spliced = [*raws[:10], odd_item, odd_response, *raws[10:]]

    loaded = load_text(to_jsonl(spliced))

    assert loaded.problems == []
    assert raws_of(loaded) == spliced
    timeline = fold(raws_of(loaded))
    [resp] = timeline.state.responses
    assert len(resp.items) == 7
    call = resp.by_item_id[call_id]
    assert 10 in call.events
    assert timeline.events[10].type == "response.mcp_call.heartbeat_v9"
    assert 11 in resp.events
    assert call.status == "completed"


def test_events_with_missing_fields_are_kept_and_fold_without_error(upstream_dir: Path):
    raws = read_chunks(upstream_dir / ERROR)
    odd = [
        {"sequence_number": 2},  # no type
        {"type": "response.output_text.delta"},  # no item, no delta
        {"type": "response.output_item.added", "output_index": 3},  # no item object
        {"type": "response.output_item.done", "item": {"type": "mcp_call"}},  # item has no id
        {"type": "response.mcp_call.failed", "item_id": "mcp_x"},  # never added
    ]
    lines = raws[:2] + odd + raws[2:]

    loaded = load_text(to_jsonl(lines))

    assert raws_of(loaded) == lines
    assert [(p.line, p.message) for p in loaded.problems] == [(3, "event has no type (kept)")]
    timeline = fold(raws_of(loaded))
    [resp] = timeline.state.responses
    assert resp.status == "failed"
    assert resp.by_item_id["mcp_x"].status == "failed"


def test_json_lines_with_a_non_object_line(upstream_dir: Path):
    raws = read_chunks(upstream_dir / ERROR)
    text = to_jsonl(raws[:2]) + "[1, 2]\n" + to_jsonl(raws[2:])

    loaded = load_text(text)

    assert raws_of(loaded) == raws
    [problem] = loaded.problems
    assert problem.line == 3
    assert "expected a JSON object" in problem.message


def test_truncated_json_array_keeps_the_complete_events(upstream_dir: Path):
    raws = read_chunks(upstream_dir / APPROVAL_1)
    text = "[\n" + ",\n".join(compact(r) for r in raws) + "\n]"
    cut = text[: text.rindex(",\n") + 40]  # into the last element

    loaded = load_text(cut)

    assert raws_of(loaded) == raws[:-1]
    assert len(loaded.problems) == 1


def test_a_directory_is_not_usable(tmp_path: Path):
    loaded = load_path(str(tmp_path))

    assert not loaded.usable
    [problem] = loaded.problems
    assert "is a directory" in problem.message
    assert str(tmp_path) in problem.message


def test_a_missing_path_is_not_usable(tmp_path: Path):
    missing = tmp_path / "nope.jsonl"
    loaded = load_path(str(missing))

    assert not loaded.usable
    [problem] = loaded.problems
    assert problem.message == f"{missing}: no such file"


def test_a_json_error_names_its_column_once():
    loaded = load_text('{"type": "response.created"}\n{"a": "x\x01y"}\n{"type": "x"}\n')
    (problem,) = loaded.problems
    assert problem.message == "invalid JSON (Invalid control character at column 9)"


def test_identical_problems_are_kept_a_few_times_and_counted():
    loaded = load_text("\n".join(["{}", '{"a": 1}'] * 500))
    assert len(loaded.problems) == 200
    assert loaded.problems.total == 1000  # type: ignore[attr-defined]
    assert {p.message for p in loaded.problems} == {"event has no type (kept)"}


def test_a_run_of_identical_typeless_events_is_kept_as_its_first_and_counted():
    """A keep-alive `{}` sent a thousand times is one event and one count, in every format
    that reads events one by one (3M of them took 44 s and 1.7 GB as events)."""
    for text in (
        '{"type": "x"}\n' + "{}\n" * 1000 + '{"type": "y"}\n',
        'data: {"type": "x"}\n\n' + "data: {}\n\n" * 1000 + 'data: {"type": "y"}\n\n',
        "[" + ",".join(['{"type": "x"}', *["{}"] * 1000, '{"type": "y"}']) + "]",
    ):
        loaded = load_text(text)
        assert [e.raw.get("type") for e in loaded.events] == ["x", None, "y"], text[:20]
        assert [p.message for p in loaded.problems] == [
            "event has no type (kept)",
            "999 more identical events with no type after it, folded into it",
        ]


def test_a_pasted_api_error_body_reads_as_the_refusal_it_is():
    """`{"error": {...}}` is what a refused POST answers (a 424 listing failure, a 429):
    pasted alone it is diagnosed like the recording's error note, not a typeless event."""
    from mcptui.share.inspect_output import Inspection

    body = {
        "error": {
            "message": "You exceeded your current quota, please check your plan "
            "and billing details.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        }
    }
    loaded = load_text(json.dumps(body, indent=2))
    assert loaded.format == "API error body"
    assert not loaded.problems
    inspection = Inspection.of(loaded)
    [failure] = inspection.failures
    assert "exceeded your current quota" in failure.error
    assert [c.cause.key for c in inspection.causes_of(failure)] == ["insufficient_quota"]
