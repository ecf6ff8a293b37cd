"""Pastes as people write them: a fenced Markdown dump, a forum post with prose and a curl
command, an app's log of the SDK's event reprs. `mcptui inspect` reads the events in them and
says what it skipped; nothing in them is ever evaluated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcptui.cli.main import main
from mcptui.io import paste
from mcptui.io.formats import load_text
from mcptui.io.node_inspect import NotInspected
from mcptui.model.sdktypes import event_models

CORPUS = Path(__file__).resolve().parents[1] / "causes"
EVENTS: list[dict[str, Any]] = json.loads((CORPUS / "broken_schema" / "pasted.json").read_text())
"""A real emulator run whose broken_schema call failed with the 424 (tests/causes)."""


def kinds(loaded: Any) -> list[tuple[str, int | None]]:
    return [(e.raw.get("type"), e.raw.get("sequence_number")) for e in loaded.events]


EXPECTED = [(e["type"], e.get("sequence_number")) for e in EVENTS]


def inspect_exit(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    code = main(["inspect", str(path)])
    return code, capsys.readouterr().out


def test_a_fenced_markdown_dump_reads_its_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "Here is what I get from the API:\n\n```json\n"
        + json.dumps(EVENTS, indent=2)
        + "\n```\n\nAny idea what is wrong?\n"
    )
    loaded = load_text(text)
    assert kinds(loaded) == EXPECTED
    assert [str(p) for p in loaded.problems] == ["2 lines of prose skipped"]
    code, out = inspect_exit(tmp_path, text, capsys)
    assert code == 1  # the failed call
    assert "mcp_call broken_schema  http_error 424" in out


def test_a_forum_post_with_prose_curl_and_comma_separated_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = {
        "model": "gpt-5-mini",
        "input": "x",
        "tools": [
            {
                "type": "mcp",
                "server_label": "demo",
                "server_url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer sk-live-SECRET-abcdef"},
            }
        ],
    }
    text = (
        "Hi all,\nI call the API like this:\n\ncurl https://api.openai.com/v1/responses \\\n"
        "  -H 'Content-Type: application/json' \\\n  -d '" + json.dumps(request) + "'\n\n"
        "and the stream goes:\n\n"
        + ",\n".join(json.dumps(e) for e in EVENTS)
        + "\n\nThanks for any help!\nBob\n"
    )
    loaded = load_text(text)
    assert kinds(loaded) == EXPECTED
    # The curl body is the request (for probe and the server URL), redacted like a recording's.
    tool = loaded.header["request"]["tools"][0]
    assert tool["server_url"] == "https://mcp.example.com/mcp"
    assert "SECRET" not in json.dumps(loaded.header)
    assert [str(p) for p in loaded.problems] == ["5 lines of prose skipped"]
    code, out = inspect_exit(tmp_path, text, capsys)
    assert code == 1 and "broken_schema" in out and "SECRET" not in out


def _sdk_repr_log() -> str:
    models = event_models()
    return (
        "\n".join(
            f"2025-11-20 10:00:{n:02d} INFO app: {models[e['type']].model_validate(e)!r}"
            for n, e in enumerate(EVENTS)
        )
        + "\n"
    )


def test_an_sdk_repr_log_reads_as_the_events_it_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`print(event)` of the SDK's typed events, behind log prefixes: the same events (types,
    sequence numbers, the failed call's error) as the JSON they came from."""
    text = _sdk_repr_log()
    assert "ResponseMcpCallFailedEvent(" in text and "McpCall(" in text
    loaded = load_text(text)
    assert kinds(loaded) == EXPECTED
    failed = [
        e.raw["item"]
        for e in loaded.events
        if e.raw["type"] == "response.output_item.done" and e.raw["item"].get("type") == "mcp_call"
    ]
    original = [
        e["item"]
        for e in EVENTS
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "mcp_call"
    ]
    assert [i["error"] for i in failed] == [i["error"] for i in original]
    assert not loaded.problems
    code, out = inspect_exit(tmp_path, text, capsys)
    assert code == 1 and "mcp_call broken_schema  http_error 424" in out


def test_python_dict_literals_are_read_and_nothing_is_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / "evaluated"
    text = (
        "events = [\n    {'type': 'response.created', 'sequence_number': 0, "
        "'response': {'id': 'resp_1', 'status': 'in_progress', 'output': [], "
        "'error': None}},\n]\n"
        f"ResponseFailedEvent(response=__import__('os').system('touch {marker}'), "
        "sequence_number=1, type='response.failed')\n"
    )
    loaded = load_text(text)
    assert kinds(loaded) == [("response.created", 0), ("response.failed", 1)]
    assert loaded.events[0].raw["response"]["error"] is None
    assert not marker.exists()


def test_prose_without_events_is_refused_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "post.txt"
    path.write_text("My MCP call fails with a 424 and I have no idea why.\n{not json}\n")
    assert main(["inspect", str(path)]) == 2
    shown = capsys.readouterr()
    assert "unrecognised content: no events, Response objects or SDK event reprs in it" in shown.out
    assert "nothing usable could be read" in shown.err


BRACES = (
    lambda n: "x " + '{"a": ' * n + "\n" + "{{{{" * (n * 5 // 2),
    lambda n: "y " + "{'a': " * n,
    lambda n: "ResponseCreatedEvent(" * n,
    lambda n: "z " + "{ a: " * n,
    lambda n: "z " + "{ a: 'x', b: [ 1, " * n,
)
"""Texts full of openings that close nothing, `n` of them: a JSON object nested too deep and
prose braces, Python dict literals never closed, SDK reprs never closed, Node objects (as
`console.log` prints them) nested too deep and never closed."""


def scanned(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    """Characters the paste reader's scans went through on `text` (counted by wrapping them):
    each JSON decode to where it stopped, plus the lines json's error counted from the
    start of the text to where it failed; each bracket scan (dict literal, SDK repr) and each
    reading of a Node object to where it ended or gave up."""
    work = 0
    decode, balanced, inspected = paste.raw_decode, paste._balanced, paste.read_inspected

    def counted_decode(decoder: json.JSONDecoder, text: str, start: int) -> tuple[Any, int]:
        nonlocal work
        try:
            value, stop = decode(decoder, text, start)
        except ValueError as exc:
            work += getattr(exc, "pos", start + 1)
            raise
        work += stop - start
        return value, stop

    def counted_balanced(text: str, start: int, *args: Any, **kwargs: Any) -> int | None:
        nonlocal work
        stop = balanced(text, start, *args, **kwargs)
        limit = kwargs.get("limit", args[2] if len(args) > 2 else paste.MAX_REPR)
        work += (min(len(text), start + limit) if stop is None else stop) - start
        return stop

    def counted_inspected(text: str, start: int, limit: int) -> Any:
        nonlocal work
        try:
            read = inspected(text, start, limit)
        except NotInspected as exc:
            work += exc.scanned
            raise
        work += read.end - start
        return read

    with monkeypatch.context() as patch:
        patch.setattr(paste, "raw_decode", counted_decode)
        patch.setattr(paste, "_balanced", counted_balanced)
        patch.setattr(paste, "read_inspected", counted_inspected)
        assert not load_text(text).events
    return work


@pytest.mark.parametrize("shape", range(len(BRACES)))
def test_text_full_of_braces_is_read_in_linear_work(
    monkeypatch: pytest.MonkeyPatch, shape: int
) -> None:
    """Each `{` is tried once, and failed tries are budgeted: twice the text costs about
    twice the scanning, never four times (trying every opening to the end of the text, or
    counting json's error lines from its start each time, is quadratic: minutes for texts of
    this kind a few times longer). Counted, not timed: bench/paste_braces.py times it."""
    make = BRACES[shape]
    small, large = make(2_000), make(4_000)
    work_small, work_large = scanned(monkeypatch, small), scanned(monkeypatch, large)
    assert work_small > len(small)  # the scans were counted: the wrapped functions ran
    assert work_large <= (paste.SCAN_BUDGET + 20) * len(large)
    assert work_large <= 2.2 * work_small, (work_small, work_large)


def test_a_failed_item_quoted_alone_in_a_post_is_read_with_its_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A post quoting only the failed `mcp_call` out of `response.output`: the item is read
    as the event that ends it; a tool's definition beside it (no `id`) is no event."""
    done = next(
        e
        for e in EVENTS
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "mcp_call"
    )
    tool = {"type": "mcp", "server_label": "demo", "server_url": "https://example.com/mcp"}
    text = (
        f"My tool is\n{json.dumps(tool)}\nand the output has\n"
        f"{json.dumps(done['item'], indent=2)}\nwhy?\n"
    )
    loaded = load_text(text)
    assert [e.raw for e in loaded.events] == [
        {"type": "response.output_item.done", "item": done["item"]}
    ]
    assert [str(p) for p in loaded.problems] == [
        "3 lines of prose, 1 JSON object that is no event skipped"
    ]
    code, out = inspect_exit(tmp_path, text, capsys)
    assert code == 1
    assert "mcp_call broken_schema  http_error 424" in out
    assert "Failures (1)" in out and "never finished" not in out  # an excerpt, not a stream
    assert "Findings" not in out  # its shape, built here, is not judged
    quoted = f"The stream ended with\n```json\n{json.dumps(done, indent=2)}\n```\n"
    code, out = inspect_exit(tmp_path, quoted, capsys)
    assert code == 1 and "Failures (1)" in out and "no_terminal_event" not in out


def test_a_log_written_all_at_one_moment_gives_no_times() -> None:
    """Events logged after the stream, from a list, share one moment: no timing is read from
    them (a call "failed 0 ms after its arguments" would rule out a timeout)."""
    lines = [
        f"2026-11-27 12:00:00,{100 + n:03d} INFO event: {json.dumps(e)}"
        for n, e in enumerate(EVENTS[:30])
    ]
    assert all(e.t is None for e in load_text("\n".join(lines)).events)
    spread = [
        f"2026-11-27 12:00:{n:02d},000 INFO event: {json.dumps(e)}"
        for n, e in enumerate(EVENTS[:30])
    ]
    assert [e.t for e in load_text("\n".join(spread)).events] == [float(n) for n in range(30)]
