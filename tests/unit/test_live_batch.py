"""A live run adds each chunk's events as one batch (redacted, recorded and checked for
credentials once per batch): the timeline and the recording must be what adding them one by
one made, byte for byte, however the batch mixes plain deltas with ones that hold something
to hide (tui/mcptui/sources/live.py `_add_all`, tui/mcptui/io/recording.py `event_lines`)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _support import text_delta
from mcptui.io.recording import RecordingWriter, event_line, event_lines, make_header
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event, note
from mcptui.model.ingest import StreamIngester
from mcptui.model.player import Player
from mcptui.model.redaction import (
    _QUOTED_KEYS,
    ASCII_FOLDS,
    CREDENTIAL_KEYS,
    STRICT_URL_KEYS,
    merge_secrets,
    needs_redaction,
    redact_entries,
    redact_entry,
    request_secrets,
    url_may_hide,
    utf8_needs_redaction,
    value_secrets,
)
from mcptui.model.timeline import Timeline
from mcptui.sources.live import LiveRun, Recorder, Tracked
from mcptui.sources.session import Session
from openai import AsyncOpenAI

API_KEY = "sk-test-key-0123456789"
MCP_TOKEN = "tok3n-mcp-header-value"
REQUEST = {
    "model": "m",
    "tools": [
        {
            "type": "mcp",
            "server_label": "s",
            "server_url": "https://mcp.example/sse",
            "headers": {"X-Token": MCP_TOKEN},
        }
    ],
}


def delta(seq: int, text: str, **extra: Any) -> dict[str, Any]:
    return text_delta(seq, "msg_1", text, **extra)


def sse(event: dict[str, Any], *, raw: bytes | None = None) -> bytes:
    data = raw if raw is not None else json.dumps(event, ensure_ascii=False).encode()
    return b"event: " + event["type"].encode() + b"\ndata: " + data + b"\n\n"


def varied_stream() -> list[bytes]:
    """Plain deltas between ones that a batch check must catch: a quoted credential key in an
    extra field (any case, or spelled with `ſ`, which a case-blind search matches to `s`),
    `Basic `, the MCP header's value whole and split across two deltas, the API key, a byte
    that is not UTF-8, non-ASCII text, and events that are not deltas."""
    events: list[bytes] = [
        sse({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}})
    ]
    texts = [
        ("plain words ", {}),
        ("héllo wörld ", {}),
        ("more ", {"obfuscation": {"PassWord": "hunter2"}}),
        ("after ", {}),
        ("ſtill plain ", {"obfuscation": {"ſecret": "x"}}),
        ("a bAsIc thing ", {}),
        (f"the token {MCP_TOKEN} here ", {}),
        ("split tok3n-mcp-", {}),
        ("header-value done ", {}),
        (f"key {API_KEY} ", {}),
        ("K kelvin ", {"obfuscation": {"\u212aey": "x"}}),
        ("end.", {}),
    ]
    for seq, (text, extra) in enumerate(texts, start=1):
        events.append(sse(delta(seq, text, **extra)))
    odd = delta(len(texts) + 1, "odd byte")
    raw = json.dumps(odd).encode().replace(b'"odd byte"', b'"odd byte", "x": "\xff"')
    events.append(sse(odd, raw=raw))
    events.append(
        sse({"type": "response.completed", "sequence_number": 99, "response": {"id": "resp_1"}})
    )
    return events


def chunked(blocks: list[bytes], size: int) -> list[bytes]:
    wire = b"".join(blocks)
    return [wire[at : at + size] for at in range(0, len(wire), size)]


def secrets() -> list[str]:
    return merge_secrets(value_secrets(API_KEY), request_secrets(REQUEST))


def one_by_one(chunks: list[bytes], times: list[float]) -> list[str]:
    """The recording's event lines as adding each entry alone makes them: the scrubber, then
    `redact_entry` and `event_line` on each (what LiveRun did before it batched)."""
    clock = [0.0]
    ingester = StreamIngester(lambda: clock[0], start=0.0)
    scrubber = DeltaScrubber()
    known = secrets()
    lines: list[str] = []

    def add(ready: list[Event]) -> None:
        for event in ready:
            redact_entry(event, known)
            lines.append(event_line(event))

    for at, chunk in zip(times, chunks, strict=True):
        clock[0] = at
        for event in ingester.feed(chunk):
            add(scrubber.push(event, known))
    for event in ingester.finish():
        add(scrubber.push(event, known))
    add(scrubber.release(known))
    return lines


def live_recording(tmp_path: Path, chunks: list[bytes], times: list[float]) -> list[str]:
    now = [100.0]
    session = Session(Timeline(), source="test", player=Player(instant=True), live=True)
    recorder = Recorder(tmp_path / "run.jsonl")
    live = LiveRun(
        session,
        AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key=API_KEY),
        recorder=recorder,
        clock=lambda: now[0],
    )
    live.secrets = merge_secrets(live.secrets, request_secrets(REQUEST))
    recorder.open(make_header("live"))

    async def stream() -> AsyncIterator[bytes]:
        for at, chunk in zip(times, chunks, strict=True):
            now[0] = 100.0 + at
            yield chunk

    assert asyncio.run(live._read(stream(), Tracked())) == "end"
    live.recorder.close()  # type: ignore[union-attr]
    lines = (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert len(lines) == len(session.timeline.events)
    return lines


@pytest.mark.parametrize("size", [17, 90, 1 << 16])
def test_a_live_recording_is_what_adding_each_entry_alone_wrote(tmp_path: Path, size: int):
    chunks = chunked(varied_stream(), size)
    times = [0.001 * (n + 1) for n in range(len(chunks))]

    batched = live_recording(tmp_path, chunks, times)

    assert batched == one_by_one(chunks, times)
    text = "\n".join(batched)
    assert API_KEY not in text and MCP_TOKEN not in text
    assert "tok3n-mcp-" not in text  # the split one too
    assert '"PassWord":"hunter2"' not in text


def test_a_batch_of_lines_is_each_line_as_event_line_writes_it(tmp_path: Path):
    ingester = StreamIngester(lambda: 1.25, start=0.0)
    events = ingester.feed(b"".join(varied_stream())) + ingester.finish()
    events += [note("disconnect", "gone", 2.0), Event(delta(200, "from a dict"), t=None)]
    for start in range(len(events)):  # every batch that starts with each event
        batch = events[start:]
        expected = "".join(event_line(event) + "\n" for event in batch)
        assert event_lines(batch) == expected.encode("utf-8", "backslashreplace")

    with RecordingWriter(tmp_path / "r.jsonl", make_header("live")) as writer:
        writer.write_many(events)
    written = (tmp_path / "r.jsonl").read_bytes().split(b"\n", 1)[1]
    assert written == event_lines(events)


def test_a_known_secret_in_one_delta_of_a_batch_is_hidden_there_only():
    ingester = StreamIngester(lambda: 0.0, start=0.0)
    blocks = [sse(delta(n, f"plain {n} ")) for n in range(5)]
    blocks[3] = sse(delta(3, f"has {MCP_TOKEN} "))
    events = ingester.feed(b"".join(blocks))
    assert all(event.lite is not None for event in events)

    redact_entries(events, secrets())

    assert MCP_TOKEN not in events[3].raw["delta"]
    assert events[3].lite is None  # decoded, redacted
    assert all(event.lite is not None for n, event in enumerate(events) if n != 3)


def reference_needs_redaction(text: str) -> bool:
    """What `needs_redaction` answered before its keys were searched in lower-cased text (its
    links judged as they are now: tests/unit/test_redact_links.py)."""
    lowered = text.lower()
    return (
        "sk-" in text
        or "earer" in text
        or "Basic" in text
        or "basic " in lowered
        or _QUOTED_KEYS.search(text) is not None
        or any(f'"{key}"' in lowered for key in STRICT_URL_KEYS)
        or ("://" in text and ("\\u" in text or url_may_hide(text)))
    )


def tricky_texts() -> list[str]:
    keys = ["headers", *sorted(CREDENTIAL_KEYS)]
    texts = ["", "plain", '{"a":"b"}', "bAsIc x", "Basic", "basİc x", "x://y", "x://y?z"]
    texts += ["Bearer", '"Server_Url"', '"endpoİnt"']
    for key in keys:
        texts += [f'"{key}"', f'"{key.upper()}"', f'"{key.title()}"', f'x "{key}x"', key]
        texts += [f'"{key[:-1]}"', f'"{key[1:]}"', f'"x{key}"', f'{{"{key}": 1}}']
        for plain, fold in (("i", "\u0130"), ("i", "\u0131"), ("s", "\u017f"), ("k", "\u212a")):
            texts.append(f'"{key.replace(plain, fold)}"')
            texts.append(f'"{key.replace(plain.upper(), fold)}" ü')
    return texts


def test_the_quicker_key_search_answers_as_the_case_blind_regex():
    for text in tricky_texts():
        expected = reference_needs_redaction(text)
        assert needs_redaction(text) == expected, text
        assert utf8_needs_redaction(text.encode()) == expected, text
    joined = "\n".join(tricky_texts())
    assert utf8_needs_redaction(joined.encode()) == reference_needs_redaction(joined)


def test_the_folds_to_ascii_are_all_there_are():
    """`ASCII_FOLDS` must name every character a case-blind regex matches to an ASCII letter
    or that lower-cases to something holding ASCII: any other would let a spelled-odd key past
    the lower-cased search."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = []
    for code in range(0x80, 0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        if letter.fullmatch(char) or any(c.isascii() for c in char.lower()):
            found.append(char)
    assert sorted(found) == sorted(ASCII_FOLDS)
