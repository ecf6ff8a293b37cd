"""JSON nested 10 000 deep: a problem in every reader, never a RecursionError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.cli.main import main
from mcptui.io.formats import load_text
from mcptui.model.ingest import StreamIngester
from mcptui.model.jsonsafe import MAX_DEPTH, TooDeep, loads
from mcptui.model.state import parse_json_text
from mcptui.sources.request_file import RequestFileError, load_request

REPO = Path(__file__).resolve().parents[2]
DEEP = "[" * 10_000 + "]" * 10_000
CREATED = '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1"}}'
DEEP_EVENT = (
    '{"type":"response.output_text.delta","sequence_number":1,"item_id":"m",'
    f'"output_index":0,"delta":"x","extra":{DEEP}}}'
)
DONE = (
    '{"type":"response.completed","sequence_number":2,'
    '"response":{"id":"resp_1","status":"completed"}}'
)


def test_the_bound():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(TooDeep):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    # brackets inside strings are text, not nesting
    assert loads(json.dumps({"a": "[" * 5000})) == {"a": "[" * 5000}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("JSON lines", f"{CREATED}\n{DEEP_EVENT}\n{DONE}\n"),
        ("SSE", f"data: {CREATED}\n\ndata: {DEEP_EVENT}\n\ndata: {DONE}\n\n"),
        (
            "recording",
            '{"mcptui":"recording","format":1}\n'
            + "\n".join(f'{{"t":0,"event":{e}}}' for e in (CREATED, DEEP_EVENT, DONE))
            + "\n",
        ),
        ("pasted", f"{CREATED},\n{DEEP_EVENT},\n{DONE}"),
    ],
)
def test_every_reader_keeps_the_rest_and_names_the_deep_line(name: str, text: str):
    loaded = load_text(text, source=name)

    assert [e.raw["type"] for e in loaded.events] == ["response.created", "response.completed"]
    (problem,) = loaded.problems
    assert problem.line in (2, 3) and "nested more than 100 levels deep" in problem.message


def test_a_deep_json_array_is_a_problem():
    loaded = load_text(f"[{CREATED}, {DEEP_EVENT}]", source="array")
    assert loaded.problems and "nested more than" in loaded.problems[0].message


def test_a_live_chunk_keeps_the_events_around_a_deep_one():
    chunk = f"data: {CREATED}\n\ndata: {DEEP_EVENT}\n\ndata: {DONE}\n\n"
    out = StreamIngester().feed(chunk.encode())

    assert [e.note_kind or e.raw["type"] for e in out] == [
        "response.created",
        "malformed",
        "response.completed",
    ]
    assert "nested more than 100 levels deep" in out[1].raw["message"]


def test_a_deep_request_file_is_a_one_line_error(tmp_path: Path):
    path = tmp_path / "request.json"
    path.write_text(f'{{"model": "m", "input": {DEEP}}}')
    with pytest.raises(RequestFileError, match="nested more than 100 levels deep"):
        load_request(path)


def test_deep_arguments_are_shown_as_text():
    text = '{"q": ' + DEEP + "}"
    assert parse_json_text(text) == text


def test_probe_args_too_deep(capsys: pytest.CaptureFixture[str]):
    code = main(
        [
            "probe",
            str(REPO / "requests" / "probe.json"),
            "--tool",
            "search",
            "--args",
            '{"a": ' + DEEP + "}",
        ]
    )
    assert code == 2
    assert "--args is not valid JSON: nested more than 100 levels deep" in capsys.readouterr().err
