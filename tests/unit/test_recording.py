"""mcptui.io.recording: lines flushed as written, crash-cut files readable, no secret on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support import (
    APPROVAL_1,
    APPROVAL_2,
    ERROR,
    FAILED_ONLY,
    MCP_TOOL,
    WEB_SEARCH,
    compact,
    read_chunks,
)
from mcptui.io.formats import load_path
from mcptui.io.recording import RecordingWriter, make_header, recording_name, save_recording
from mcptui.model.events import Event, note


def test_each_line_is_on_disk_as_soon_as_it_is_written(upstream_dir: Path, tmp_path: Path):
    raws = read_chunks(upstream_dir / ERROR)
    path = tmp_path / "live.jsonl"
    writer = RecordingWriter(path, make_header("live", url="https://api.example/v1"))
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 1
        assert json.loads(lines[0])["mcptui"] == "recording"
        for number, raw in enumerate(raws):
            writer.write(Event(raw, t=number / 10))
            lines = path.read_text(encoding="utf-8").splitlines()  # writer still open
            assert len(lines) == number + 2
            assert json.loads(lines[-1]) == {"t": number / 10, "event": raw}
    finally:
        writer.close()


def test_writer_refuses_to_overwrite_and_to_write_after_close(tmp_path: Path):
    path = tmp_path / "once.jsonl"
    path.write_text("precious\n")
    with pytest.raises(FileExistsError):
        RecordingWriter(path, make_header("file"))
    assert path.read_text() == "precious\n"

    other = RecordingWriter(tmp_path / "two.jsonl", make_header("file"))
    other.close()
    with pytest.raises(ValueError, match="closed"):
        other.write(Event({"type": "x"}))


def test_notes_and_timing_round_trip(tmp_path: Path):
    events = [
        note("http_error", "HTTP 424 Failed Dependency", t=0.5, level="error", status=424),
        Event({"type": "response.created", "sequence_number": 0}, t=1.25),
        Event({"type": "response.in_progress", "sequence_number": 1}),
    ]
    path = save_recording(tmp_path / "notes.jsonl", make_header("live"), events)

    loaded = load_path(str(path))

    assert loaded.problems == []
    assert [(e.is_note, e.t, e.raw) for e in loaded.events] == [
        (
            True,
            0.5,
            {
                "kind": "http_error",
                "message": "HTTP 424 Failed Dependency",
                "level": "error",
                "status": 424,
            },
        ),
        (False, 1.25, {"type": "response.created", "sequence_number": 0}),
        (False, None, {"type": "response.in_progress", "sequence_number": 1}),
    ]
    assert loaded.events[0].type == "mcptui.note"


def test_crash_truncated_recording_keeps_every_complete_line(upstream_dir: Path, tmp_path: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    path = save_recording(
        tmp_path / "crash.jsonl",
        make_header("live"),
        [Event(r, t=float(n)) for n, r in enumerate(raws)],
    )
    data = path.read_bytes()
    line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    # Crash while writing line 200 (file line numbers count the header as line 1).
    crashed = data[: line_starts[199] + 25]
    path.write_bytes(crashed)

    loaded = load_path(str(path))

    assert loaded.format == "mcptui recording"
    assert [e.raw for e in loaded.events] == raws[:198]
    assert loaded.usable
    [problem] = loaded.problems
    assert problem.line == 200
    assert "invalid JSON" in problem.message


def test_newer_format_is_read_with_a_warning(tmp_path: Path):
    path = tmp_path / "future.jsonl"
    path.write_text(
        compact({"mcptui": "recording", "format": 99})
        + "\n"
        + compact({"t": None, "event": {"type": "response.created"}})
        + "\n"
        + '{"something": "else"}\n'
    )
    loaded = load_path(str(path))

    assert [e.raw for e in loaded.events] == [{"type": "response.created"}]
    assert [p.line for p in loaded.problems] == [1, 3]
    assert "newer" in loaded.problems[0].message


# -- secrets ---------------------------------------------------------------------------------

HEADER_SECRET = "hv-7f3a9c1d2e5b"
AUTH_SECRET = "oauth-4b8e2a7c9d1f"
BEARER_SECRET = "tok-9c2e7b4a1d6f3e8a"
API_KEY = "sk-proj-A1b2C3d4E5f6G7h8"


def test_secrets_never_reach_the_file_but_names_and_structure_do(tmp_path: Path):
    request = {
        "model": "gpt-5-mini",
        "input": "hi",
        "stream": True,
        "tools": [
            {
                "type": "mcp",
                "server_label": "deepwiki",
                "server_url": "https://mcp.deepwiki.com/mcp",
                "headers": {"X-Custom-Header": HEADER_SECRET},
                "authorization": AUTH_SECRET,
                "require_approval": "never",
            }
        ],
    }
    header = make_header(
        "live",
        request=request,
        endpoint="https://api.openai.com/v1/responses",
        http_status=200,
        http_headers={"Authorization": f"Bearer {BEARER_SECRET}", "x-request-id": "req_123"},
    )
    leaky = {
        "type": "error",
        "sequence_number": 0,
        "error": {
            "type": "invalid_request_error",
            "code": "invalid_api_key",
            "message": f"Incorrect API key provided: {API_KEY}. Check it.",
        },
    }
    path = save_recording(tmp_path / "secret.jsonl", header, [Event(leaky, t=0.0)])

    data = path.read_bytes()
    for secret in (HEADER_SECRET, AUTH_SECRET, BEARER_SECRET, API_KEY, "A1b2C3d4E5f6G7h8"):
        assert secret.encode() not in data
    assert b"<redacted>" in data

    loaded = load_path(str(path))
    tool = loaded.header["request"]["tools"][0]
    assert tool == {
        "type": "mcp",
        "server_label": "deepwiki",
        "server_url": "https://mcp.deepwiki.com/mcp",
        "headers": {"X-Custom-Header": "<redacted>"},
        "authorization": "<redacted>",
        "require_approval": "never",
    }
    assert loaded.header["http"] == {
        "status": 200,
        "headers": {"Authorization": "<redacted>", "x-request-id": "req_123"},
    }
    assert loaded.header["endpoint"] == "https://api.openai.com/v1/responses"
    [event] = loaded.events
    assert event.raw["error"]["code"] == "invalid_api_key"
    assert event.raw["error"]["message"] == "Incorrect API key provided: <redacted>. Check it."


def test_secret_in_the_header_is_redacted_even_when_the_caller_forgot(tmp_path: Path):
    header = {
        "mcptui": "recording",
        "format": 1,
        "request": {"tools": [{"type": "mcp", "headers": {"Authorization": BEARER_SECRET}}]},
    }
    with RecordingWriter(tmp_path / "raw-header.jsonl", header) as writer:
        path = writer.path
    assert BEARER_SECRET.encode() not in path.read_bytes()
    assert b'"Authorization":"<redacted>"' in path.read_bytes()


def recorded_event_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1:]


@pytest.mark.parametrize("name", [MCP_TOOL, ERROR, FAILED_ONLY, WEB_SEARCH])
def test_events_without_secrets_are_written_byte_identical(
    upstream_dir: Path, tmp_path: Path, name: str
):
    raws = read_chunks(upstream_dir / name)
    path = save_recording(tmp_path / "plain.jsonl", make_header("file"), [Event(r) for r in raws])

    assert recorded_event_lines(path) == ['{"t":null,"event":' + compact(r) + "}" for r in raws]


@pytest.mark.parametrize("name", [APPROVAL_1, APPROVAL_2])
def test_tool_listing_with_a_password_parameter_is_written_unchanged(
    upstream_dir: Path, tmp_path: Path, name: str
):
    raws = read_chunks(upstream_dir / name)
    path = save_recording(tmp_path / "plain.jsonl", make_header("file"), [Event(r) for r in raws])

    assert recorded_event_lines(path) == ['{"t":null,"event":' + compact(r) + "}" for r in raws]


def test_logprob_tokens_are_written_unchanged(tmp_path: Path):
    raw = {
        "type": "response.output_text.delta",
        "sequence_number": 7,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hi",
        "logprobs": [{"token": "Hi", "logprob": -0.01, "top_logprobs": []}],
    }
    path = save_recording(tmp_path / "lp.jsonl", make_header("file"), [Event(raw)])

    assert recorded_event_lines(path) == ['{"t":null,"event":' + compact(raw) + "}"]


def test_ordinary_text_is_written_unchanged(tmp_path: Path):
    text = "A task-oriented plan needs a basic understanding of the data."
    raw = {
        "type": "response.output_text.done",
        "sequence_number": 9,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "text": text,
    }
    path = save_recording(tmp_path / "text.jsonl", make_header("file"), [Event(raw)])

    assert recorded_event_lines(path) == ['{"t":null,"event":' + compact(raw) + "}"]


def test_non_finite_or_huge_arrival_times_are_dropped():
    """JSON allows NaN and 400-digit integers; as times they would break every duration."""
    from mcptui.io.recording import read_recording

    lines = [
        '{"mcptui": "recording", "format": 1}',
        '{"t": NaN, "event": {"type": "response.created", "sequence_number": 0}}',
        '{"t": 1' + "0" * 400 + ', "event": {"type": "response.in_progress"}}',
        '{"t": 0.5, "event": {"type": "response.completed"}}',
    ]
    loaded = read_recording(enumerate(lines, 1))
    assert [e.t for e in loaded.events] == [None, None, 0.5]


# -- names: never over an existing file, one pattern ----------------------------------------------


def test_two_runs_in_the_same_second_before_any_response_id_get_two_files(tmp_path: Path):
    from mcptui.sources.live import Recorder

    first, second = Recorder(folder=tmp_path), Recorder(folder=tmp_path)
    second.started = first.started  # the same second: the same automatic name
    a = first.open(make_header("live"))
    first.write(Event({"type": "response.created"}, t=0.0))
    b = second.open(make_header("live"))
    assert a != b and a.exists() and b.exists()
    assert b.name == a.name.replace(".jsonl", "-2.jsonl")
    assert '"response.created"' in a.read_text(encoding="utf-8")  # not overwritten
    first.close()
    second.close()


def test_a_record_path_that_exists_is_kept_and_a_numbered_one_written(tmp_path: Path):
    from mcptui.sources.live import Recorder

    taken = tmp_path / "run.jsonl"
    taken.write_text("my earlier run\n", encoding="utf-8")
    recorder = Recorder(taken)
    written = recorder.open(make_header("live"))
    recorder.close()
    assert written == tmp_path / "run-2.jsonl"
    assert taken.read_text(encoding="utf-8") == "my earlier run\n"


def test_attach_names_the_file_after_the_response_at_once(tmp_path: Path):
    from mcptui.sources.live import Recorder

    recorder = Recorder(folder=tmp_path, response_id="resp_abc")
    path = recorder.open(make_header("live"))
    recorder.close()
    assert path.name.endswith("-resp_abc.jsonl") and "pending" not in path.name
    assert recorder.name_after("resp_other") is None  # already named


def test_renaming_after_the_response_id_never_overwrites(tmp_path: Path):
    from mcptui.sources.live import Recorder

    recorder = Recorder(folder=tmp_path)
    recorder.open(make_header("live"))
    existing = tmp_path / recording_name("resp_1", recorder.started)
    existing.write_text("another run\n", encoding="utf-8")
    renamed = recorder.name_after("resp_1")
    recorder.close()
    assert renamed == existing.with_name(existing.stem + "-2.jsonl")
    assert existing.read_text(encoding="utf-8") == "another run\n"


def test_a_lone_surrogate_from_any_parser_is_written_as_its_escape(tmp_path: Path):
    """An SDK, a header or a Python object can carry `\\ud800` (json.loads keeps it): the
    line is still written, valid UTF-8, and reads back as the same value."""
    path = tmp_path / "live.jsonl"
    header = make_header("live", request={"model": "m", "input": "q \ud800"}, url="x")
    with RecordingWriter(path, header) as writer:
        writer.write(
            Event(
                {
                    "type": "response.output_text.delta",
                    "sequence_number": 0,
                    "delta": "a\ud800b",
                    "\udc00key": ["\ud83d\ude00"],
                }
            )
        )
        writer.write(note("mcp", "← result", 0.1, jsonrpc={"result": "\udfff"}))
    lines = path.read_bytes().decode("utf-8").splitlines()  # strict: valid UTF-8
    assert len(lines) == 3
    header_back, event, mcp = (json.loads(line) for line in lines)
    assert header_back["request"]["input"] == "q \ud800"
    assert event["event"]["delta"] == "a\ud800b" and event["event"]["\udc00key"] == ["😀"]
    assert mcp["note"]["jsonrpc"]["result"] == "\udfff"


FULL_DISK_SCRIPT = """
import resource, signal, sys
from mcptui.capture.tap import TapHub
from mcptui.model.events import note
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (5000, 5000))
hub = TapHub("http://127.0.0.1:9/mcp", sys.argv[1])
told = []
hub.on_problem = told.append
for n in range(200):
    hub.add(note("mcp", "x" * 97, n * 0.1, number=n), flush=n % 3 == 0)
hub.close()
print(len(told))
print(told[0])
"""


def test_a_full_disk_leaves_the_tap_recording_whole_lines_and_says_so_once(tmp_path: Path):
    """The tap (and the proxy, through the same writer) under `ulimit -f`: the file is cut
    back to its last whole line, the problem is told once, the tap goes on."""
    import subprocess
    import sys

    path = tmp_path / "tap.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    count, message = done.stdout.splitlines()
    assert count == "1" and f"could not write the recording {path}: File too large" in message
    text = path.read_text()
    assert 0 < len(text) <= 5000 and text.endswith("\n")
    loaded = load_path(str(path))
    assert not loaded.problems and loaded.events
