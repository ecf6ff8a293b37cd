"""Every form people paste a stream in, made by the real libraries that print it: the openai
SDK's reprs and `model_dump()` dicts (events and a non-streamed Response), the Agents SDK's
stream events (reprs, and their JSON per line), Node's `console.log` of the same events (run
by node), and a Python log whose timestamps give the events their times. Each is read as the
run it shows: the failed call and its error. Prose that quotes example events is no run."""

from __future__ import annotations

import json
import logging
import subprocess
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from agents import Agent
from agents.items import MCPListToolsItem, MessageOutputItem, ReasoningItem, ToolCallItem
from agents.stream_events import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
)
from mcptui.cli.main import main
from mcptui.io.formats import load_path, load_text
from mcptui.io.recording import Loaded
from mcptui.model.conformance import check_stream
from mcptui.model.timeline import Timeline
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
FAILED_TOOL = "search_files"
ERROR = "424: unhandled errors in a TaskGroup (1 sub-exception)"


@pytest.fixture(scope="module")
def stream() -> list[Any]:
    """The sample's events as the openai SDK parses them (what an app holds and prints)."""
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    return [adapter.validate_python(e.raw) for e in load_path(str(RECORDING)).events]


def final_response(stream: list[Any]) -> Response:
    done = [e for e in stream if e.type == "response.completed"]
    return Response.model_validate(done[-1].response.model_dump())


def failed_calls(loaded: Loaded) -> list[tuple[str | None, str]]:
    """(tool, error) of every failed MCP call the reading shows."""
    state = Timeline(loaded.events, loaded.snapshots).final_state()
    return [
        (item.name, item.error_text)
        for resp in state.responses
        for item in resp.items
        if item.type == "mcp_call" and item.error is not None
    ]


def assert_reads_the_failure(path: Path, capsys: pytest.CaptureFixture[str]) -> Loaded:
    loaded = load_path(str(path))
    assert failed_calls(loaded) == [(FAILED_TOOL, f"http_error {ERROR}")]
    assert main(["inspect", str(path)]) == 1  # the failed call
    out = capsys.readouterr().out
    assert f"✗ mcp_call {FAILED_TOOL}  http_error {ERROR}" in out
    assert "unknown_event_type" not in out
    assert "missing_field" not in out  # no finding about what the paste form left out
    assert "Failures (1)" in out  # the call alone: not also "never finished"
    return loaded


def test_print_response_of_a_non_streamed_response(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "print.txt"
    path.write_text(f"the response was:\n{final_response(stream)!r}\n")
    loaded = assert_reads_the_failure(path, capsys)
    assert not loaded.events and len(loaded.snapshots) == 1


def test_print_of_response_model_dump(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dump.txt"
    path.write_text(f"{final_response(stream).model_dump()!r}\n")
    assert_reads_the_failure(path, capsys)


@pytest.mark.parametrize("form", [repr, lambda e: repr(e.model_dump())], ids=["repr", "dump"])
def test_print_of_each_event_and_of_its_model_dump(
    tmp_path: Path, stream: list[Any], form: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "events.txt"
    path.write_text("".join(form(event) + "\n" for event in stream))
    loaded = assert_reads_the_failure(path, capsys)
    assert len(loaded.events) == len(stream)


def agents_stream(stream: list[Any]) -> list[Any]:
    """What `Runner.run_streamed(...).stream_events()` yields: an agent update first, then each
    Responses event in its envelope."""
    first = AgentUpdatedStreamEvent(new_agent=Agent(name="Finance helper"))
    return [first, *(RawResponsesStreamEvent(data=event) for event in stream)]


def test_the_agents_sdk_stream_events_printed(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agents.txt"
    path.write_text("".join(f"{event!r}\n" for event in agents_stream(stream)))
    loaded = assert_reads_the_failure(path, capsys)
    assert len(loaded.events) == len(stream)


RUN_ITEMS = {
    "mcp_list_tools": ("mcp_list_tools", MCPListToolsItem),
    "reasoning": ("reasoning_item_created", ReasoningItem),
    "mcp_call": ("tool_called", ToolCallItem),
    "message": ("message_output_created", MessageOutputItem),
}


def test_the_agents_sdk_run_items_alone_as_its_streaming_example_prints_them(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The Agents SDK's own example skips the raw events (`if event.type ==
    "raw_response_event": continue`) and prints the rest: each run item stands for the
    output item it carries."""
    agent = Agent(name="Finance helper")
    printed = [AgentUpdatedStreamEvent(new_agent=agent)]
    for event in stream:
        if event.type == "response.output_item.done":
            name, kind = RUN_ITEMS[event.item.type]
            printed.append(
                RunItemStreamEvent(name=name, item=kind(agent=agent, raw_item=event.item))
            )
    path = tmp_path / "agents-items.txt"
    path.write_text("".join(f"{event!r}\n" for event in printed))
    loaded = assert_reads_the_failure(path, capsys)
    items = [e.item.type for e in stream if e.type == "response.output_item.done"]
    assert [e.raw["item"]["type"] for e in loaded.events] == items
    assert [str(p) for p in loaded.problems] == [
        "1 Agents SDK event of its own (agent updates) skipped: they carry no output item",
        f"{len(items)} Agents SDK run items read as the output items they carry: no "
        "raw_response_event in it, so no deltas, lifecycle or timing",
    ]


def agents_jsonl(stream: list[Any], copies: int = 1) -> str:
    lines = []
    for _ in range(copies):
        for event in agents_stream(stream):
            data = event.data.model_dump(mode="json") if event.type == "raw_response_event" else {}
            lines.append(json.dumps({"type": event.type, "data": data}))
    return "".join(line + "\n" for line in lines)


def test_the_agents_sdk_events_as_json_lines(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agents.jsonl"
    path.write_text(agents_jsonl(stream))
    loaded = assert_reads_the_failure(path, capsys)
    assert [e.raw for e in loaded.events] == [e.model_dump(mode="json") for e in stream]
    assert [str(p) for p in loaded.problems] == [
        "1 Agents SDK event of its own (run items, agent updates) skipped: the "
        "raw_response_event events carry the same stream"
    ]


def test_a_large_agents_file_reads_as_the_whole_text_reader_reads_it(
    tmp_path: Path, stream: list[Any]
) -> None:
    """A file past the head the lazy readers sniff is read the same as its whole text."""
    text = agents_jsonl(stream, copies=20)
    path = tmp_path / "agents.jsonl"
    path.write_text(text)
    array = tmp_path / "agents.json"
    array.write_text("[" + ",\n".join(text.splitlines()) + "]")
    whole = load_text(text)
    assert len(failed_calls(whole)) == 20
    for read in (load_path(str(path)), load_path(str(array))):
        assert [e.raw for e in read.events] == [e.raw for e in whole.events]
        assert failed_calls(read) == failed_calls(whole)


def test_node_console_log_of_each_event(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "events.json"
    events.write_text(json.dumps([e.model_dump(mode="json") for e in stream]))
    printed = subprocess.run(
        ["node", "-e", "for (const e of require(process.argv[1])) console.log(e)", str(events)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert "[Object]" in printed and "type: 'response.created'" in printed  # Node's own form
    path = tmp_path / "node.txt"
    path.write_text(printed)
    loaded = assert_reads_the_failure(path, capsys)
    assert len(loaded.events) == len(stream)
    (problem,) = loaded.problems
    assert "values Node's console.log cut short ([Object], ... more items) left out" in str(problem)
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    drift = [f for f in check_stream(timeline.events, timeline.state) if f.code == "sdk_drift"]
    assert not drift  # cut, not drifted


def test_a_python_log_gives_the_events_their_times(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """`logging` with its default `asctime` (`2026-11-27 12:00:01,234`): the events' times
    are the log's, so the failed call's duration is what the log says."""
    recorded = [e.t for e in load_path(str(RECORDING)).events]
    buffer = StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("paste-forms-app")
    logger.addHandler(handler)
    logger.propagate = False
    start = 1_764_244_800.0
    for event, t in zip(stream, recorded, strict=True):
        record = logger.makeRecord(
            logger.name, logging.INFO, __file__, 1, "event: %r", (event,), None
        )
        record.created = start + (t or 0.0)
        record.msecs = (record.created % 1) * 1000
        logger.handle(record)
    path = tmp_path / "app.log"
    path.write_text(buffer.getvalue())
    loaded = assert_reads_the_failure(path, capsys)
    times = [e.t for e in loaded.events]
    assert times[0] == 0.0
    assert times == pytest.approx([t - recorded[0] for t in recorded], abs=0.0015)


def test_prose_quoting_example_events_is_not_a_run(
    tmp_path: Path, stream: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    failed = next(e for e in stream if e.type == "response.mcp_call.failed").model_dump()
    doc = tmp_path / "notes.md"
    doc.write_text(
        "# How our MCP calls fail\n\nA call that fails sends this:\n\n```json\n"
        f"{json.dumps(failed, indent=2)}\n```\n\nand a retry fails the same way:\n\n```json\n"
        f"{json.dumps(failed, indent=2)}\n```\n"
    )
    assert main(["inspect", str(doc)]) == 2
    out = capsys.readouterr().out
    assert "not a stream: prose quoting 2 example events (sequence number 14 comes after 14" in out
    readme = ROOT / "README.md"
    assert main(["inspect", str(readme)]) == 2
    out = capsys.readouterr().out
    assert "unrecognised content: no events" in out and "lines of prose" in out
