"""The fast readers (msgspec, mcptui/model/fast_read.py) accept, refuse and hide what the tolerant
reader would: at the nesting bound, and for secrets a recording's request names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.io.formats import load_path
from mcptui.model.ingest import StreamIngester
from mcptui.model.jsonsafe import TooDeep, loads
from mcptui.model.timeline import Timeline

CREATED = {
    "type": "response.created",
    "sequence_number": 0,
    "response": {"id": "resp_1", "status": "in_progress", "output": []},
}
ADDED = {
    "type": "response.output_item.added",
    "sequence_number": 1,
    "output_index": 0,
    "item": {"id": "msg_1", "type": "message", "status": "in_progress", "content": []},
}


def delta(text: str, seq: int = 2, **extra: object) -> dict[str, object]:
    return {
        "type": "response.output_text.delta",
        "sequence_number": seq,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
        **extra,
    }


def nested(levels: int) -> str:
    """A delta whose `logprobs` nests `levels` arrays deep, as JSON text."""
    return json.dumps(delta("x")).replace(
        '"delta": "x"', '"delta": "x", "logprobs": ' + "[" * levels + "]" * levels
    )


def sse(*payloads: str) -> bytes:
    return "".join(f"event: e\ndata: {p}\n\n" for p in payloads).encode()


@pytest.mark.parametrize("levels", [97, 98, 99, 100, 101])
def test_a_stream_refuses_exactly_what_the_tolerant_reader_refuses(levels: int):
    payload = nested(levels)
    try:
        loads(payload)
        refused = False
    except TooDeep:
        refused = True

    out = StreamIngester().feed(sse(json.dumps(CREATED), json.dumps(ADDED), payload))

    assert [e.note_kind for e in out] == [None, None, "malformed" if refused else None]
    if not refused:
        timeline = Timeline(out)
        timeline.seek_end()
        assert timeline.state.responses[0].by_item_id["msg_1"].text == "x"


@pytest.mark.parametrize("levels", [97, 98, 99, 100])
def test_a_recording_refuses_exactly_what_the_tolerant_reader_refuses(tmp_path: Path, levels: int):
    line = '{"t":0.5,"event":' + nested(levels) + "}"
    try:
        loads(line)
        refused = False
    except TooDeep:
        refused = True
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"mcptui":"recording","format":1}\n'
        + "\n".join(
            [
                '{"t":0,"event":' + json.dumps(CREATED) + "}",
                '{"t":0.1,"event":' + json.dumps(ADDED) + "}",
                line,
            ]
        )
        + "\n"
    )

    loaded = load_path(str(path))

    assert len(loaded.events) == (2 if refused else 3)
    assert bool(loaded.problems) is refused


def test_a_secret_the_recordings_request_names_is_hidden_in_folded_text(tmp_path: Path):
    """A URL's token (written by another tool: mcptui's own writer hides it) echoed in a
    delta, which the fast reader would otherwise fold as it is."""
    secret = "hv7f3a9c1d2e5b"
    header = {
        "mcptui": "recording",
        "format": 1,
        "request": {
            "tools": [
                {
                    "type": "mcp",
                    "server_label": "s",
                    "server_url": f"https://mcp.example.com/mcp?token={secret}",
                }
            ]
        },
    }
    path = tmp_path / "hand-written.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                header,
                {"t": 0, "event": CREATED},
                {"t": 0.1, "event": ADDED},
                {"t": 0.2, "event": delta(f"the key is {secret}.")},
                {"t": 0.3, "event": delta(" Plain text.", seq=3)},
            ]
        )
        + "\n"
    )

    loaded = load_path(str(path))
    timeline = Timeline(loaded.events)
    timeline.seek_end()

    text = timeline.state.responses[0].by_item_id["msg_1"].text
    assert secret not in text and "<redacted>" in text and text.endswith(" Plain text.")
    assert all(secret not in json.dumps(e.raw) for e in loaded.events)


ESCAPED_LINES = [
    r'{"type":"error","message":"key \u0073k-proj-A1b2C3d4E5f6G7h8 refused"}',
    r'{"type":"response.output_item.done","item":{"server_url":"https:\/\/u:pw12345678@x.io"}}',
    '{"type":"response.output_item.done","item":{"headers":{"X-Key":"v-123456"}}}',
    '{"type":"x","item":{"HEADERS":{"X-Key":"v-123456"}}}',
    '{"type":"x","item":{"api_\u212aey":"v-123456789"}}',  # a Kelvin sign lower-cases to k
    '{"type":"x","text":"Authorization: Bearer abcdefghijklmnop1234"}',
    '{"type":"x","text":"plain text, ünïcödé, nothing to hide"}',
]


@pytest.mark.parametrize("line", ESCAPED_LINES)
def test_a_written_line_is_let_through_only_when_redaction_would_change_nothing(line: str):
    from mcptui.model.redaction import redact_event, written_needs_redaction

    raw = json.loads(line)
    if redact_event(raw) != raw:
        assert written_needs_redaction(line.encode())
    assert written_needs_redaction(line.encode(), known=[line[-12:-4]])  # a known secret


def test_an_escaped_secret_in_a_recordings_event_is_hidden_when_read_back(tmp_path: Path):
    path = tmp_path / "escaped.jsonl"
    path.write_text(
        '{"mcptui":"recording","format":1}\n'
        + "\n".join('{"t":0,"event":' + line + "}" for line in ESCAPED_LINES[:2])
        + "\n"
    )

    loaded = load_path(str(path))

    shown = json.dumps([e.raw for e in loaded.events])
    assert "sk-proj-A1b2C3d4E5f6G7h8" not in shown and "pw12345678" not in shown


def test_a_line_with_nothing_to_hide_is_not_serialised_again():
    from mcptui.model.redaction import written_needs_redaction

    assert not written_needs_redaction(ESCAPED_LINES[-1].encode())


ODD_LINES = [
    '{"t": 1e999, "event": ' + json.dumps(delta("inf", 3)) + "}",
    '{"t": -1e999, "event": ' + json.dumps(delta("-inf", 4)) + "}",
    '{"t": true, "event": ' + json.dumps(delta("bool", 5)) + "}",
    '{"t": "0.5", "event": ' + json.dumps(delta("text", 6)) + "}",
    '{"event": ' + json.dumps(delta("no time", 7)) + "}",
    '{"t": null, "event": ' + json.dumps(delta("null time", 8)) + "}",
    '{"t": 0.7, "event": ' + json.dumps(delta("extra key", 9)) + ', "x": 1}',
    '{"t": 0.8, "event": null}',
    '{"t": 0.9, "event": ' + json.dumps(delta("a note too", 10)) + ', "note": {"kind": "x"}}',
    '{"t": 1, "event": ' + json.dumps(delta("int time", 11)) + "}",
    '{"t": 1' + "0" * 400 + ', "event": ' + json.dumps(delta("huge", 12)) + "}",
    '{"t": 1e308, "event": ' + json.dumps(delta("big", 13)) + "}",
]


def test_a_recordings_odd_lines_read_as_the_tolerant_reader_reads_them(tmp_path: Path):
    """Times that are not finite numbers, missing fields and extra keys: the fast reader
    refuses them to the tolerant one (in C), which decides as it does for the whole file."""
    from mcptui.io.recording import read_recording

    lines = [
        '{"mcptui":"recording","format":1}',
        '{"t":0,"event":' + json.dumps(CREATED) + "}",
        '{"t":0.1,"event":' + json.dumps(ADDED) + "}",
        *ODD_LINES,
    ]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n")

    fast = load_path(str(path))
    whole = read_recording(enumerate(lines, 1))

    def seen(events: list) -> list:
        return [(e.type, e.t, e.line, e.raw) for e in events]

    assert seen(fast.events) == seen(whole.events)
    assert [p for p in fast.problems] == [p for p in whole.problems]
    timeline = Timeline(fast.events)
    timeline.seek_end()
    assert timeline.state.responses[0].by_item_id["msg_1"].text.startswith("inf-infbool")


def test_an_event_read_back_before_a_note_names_its_secret_is_hidden_once_it_does(tmp_path: Path):
    """An event read back is kept for one more read (an instant replay's fold reads it right
    after the failure scan): a secret learned in between (a later `request` note) still
    hides it on that read."""
    from mcptui.io.indexed import recording_reader

    secret = "hv7f3a9c1d2e5b"
    done = {
        "type": "response.output_item.done",
        "sequence_number": 2,
        "output_index": 0,
        "item": {
            "id": "msg_1",
            "type": "message",
            "status": "completed",
            "content": [{"type": "output_text", "text": f"the key is {secret}"}],
        },
    }
    request = {
        "tools": [
            {
                "type": "mcp",
                "server_label": "s",
                "server_url": f"https://mcp.example.com/mcp?token={secret}",
            }
        ]
    }
    lines = [
        {"mcptui": "recording", "format": 1},
        {"t": 0, "event": CREATED},
        {"t": 0.1, "event": done},
        {"t": 0.2, "note": {"kind": "request", "request": request}},
    ]
    path = tmp_path / "late-secret.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    reader = recording_reader(str(path), 1 << 20)
    assert reader is not None
    first = reader.read(len(path.read_text().split("\n")[0]) + 200)  # header and created
    first += reader.read(len(json.dumps(lines[2])) + 1)  # the item's line, not the note
    item = next(e for e in first if e.type == "response.output_item.done")
    # The note comes later in the file, but its secrets are learnt before any event is read
    # (tui/mcptui/io/indexed.py `noted_secrets`): the event is hidden from its first read on.
    assert secret not in json.dumps(item.raw)

    reader.read_all()

    assert secret not in json.dumps(item.raw) and "<redacted>" in json.dumps(item.raw)


DELTA_PAYLOADS = [
    json.dumps(delta("plain")),
    json.dumps(delta("zero", seq=0)),
    json.dumps({**delta("null seq"), "sequence_number": None}),
    json.dumps({k: v for k, v in delta("no item").items() if k != "item_id"}),
    json.dumps({**delta("x"), "item_id": 7}),
    json.dumps(delta("see https://example.com/a?token=abcdefgh")),
    json.dumps(delta("Bearer abcdefghijklmnop")),
    json.dumps(delta("big", logprobs=[{"token": "t" * 50, "top": [[1, 2]] * 10}])),
    json.dumps(delta("deep", logprobs=[[[[[]]]]] * 30)),
    '{"type":"response.output_text.delta","type":"x","sequence_number":2,'
    '"item_id":"msg_1","delta":"two types"}',
    '{"type":"x","type":"response.output_text.delta","sequence_number":2,'
    '"item_id":"msg_1","delta":"two types"}',
    '{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1",'
    '"delta":"first","delta":"last"}',
    '{"type":"response.output_text.delta","sequence_number":true,"item_id":"msg_1",'
    '"delta":"a bool"}',
]


@pytest.mark.parametrize("payload", DELTA_PAYLOADS)
def test_a_text_delta_is_read_as_the_general_fast_reader_reads_it(payload: str):
    """Most events are text deltas, read by msgspec as `Delta` (type and field types checked
    in C); whatever it refuses or `plain_delta` turns down is read as a `Lite`. Either way
    the event, what the fold keeps of it and what it shows are what `classified` gives."""
    from mcptui.model.fast_read import LITE_FAILURES, classified, decode_lite

    data = payload.encode()
    try:
        expected = classified(decode_lite(data), data)
    except LITE_FAILURES:
        expected = None  # the tolerant reader's: a dict, its type from it

    event = StreamIngester().feed(sse(payload))[0]

    kind, lite = expected or (loads(payload)["type"], None)
    assert event.type == kind and not event.is_note
    assert (event.lite is None) is (lite is None)
    if lite is not None:
        assert (event.lite.item_id, event.lite.delta, event.lite.sequence_number) == (
            lite.item_id,
            lite.delta,
            lite.sequence_number,
        )
    assert event.raw == loads(payload)


def test_an_entry_read_whole_before_a_note_names_its_secret_is_hidden_once_it_does(tmp_path: Path):
    """Notes and odd lines are read whole and redacted as they are read; a secret a later
    `request` note names is hidden in them too once all is read."""
    secret = "hv7f3a9c1d2e5b"
    request = {
        "tools": [
            {
                "type": "mcp",
                "server_label": "s",
                "server_url": f"https://mcp.example.com/mcp?token={secret}",
            }
        ]
    }
    lines = [
        {"mcptui": "recording", "format": 1},
        {"t": 0, "event": CREATED},
        {"t": 0.1, "note": {"kind": "disconnect", "message": f"lost {secret}"}},
        {"t": 0.2, "note": {"kind": "request", "request": request}},
        {"t": 0.3, "note": {"kind": "resume", "message": f"again {secret}"}},
    ]
    path = tmp_path / "late-secret.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")

    loaded = load_path(str(path))

    notes = [e for e in loaded.events if e.is_note]
    assert [n.note_kind for n in notes] == ["disconnect", "request", "resume"]
    for note in notes:
        assert secret not in json.dumps(note.raw)
    assert "<redacted>" in notes[0].raw["message"] and "<redacted>" in notes[2].raw["message"]


def test_a_recording_read_a_piece_at_a_time_numbers_and_finds_failures_as_read_whole(
    tmp_path: Path,
):
    """`f` (next failure) and every step's index come from what was read a piece at a time:
    the same as the recording read whole, a tool's `failed` event and its failed item once."""
    from mcptui.io.indexed import recording_reader
    from mcptui.sources.session import Session

    def mcp(n: int, seq: int, **item: object) -> dict[str, object]:
        return {
            "type": "response.output_item.done",
            "sequence_number": seq,
            "output_index": n,
            "item": {
                "id": f"mcp_{n}",
                "type": "mcp_call",
                "name": "t",
                "arguments": "{}",
                "server_label": "s",
                **item,
            },
        }

    many = 3000  # past the first piece (FIRST_PIECE): the rest is read in pieces of 500 bytes
    raws = [
        CREATED,
        ADDED,
        *(delta(f"w{n} ", 2 + n) for n in range(many)),
        {
            "type": "response.mcp_call.failed",
            "sequence_number": many + 2,
            "output_index": 1,
            "item_id": "mcp_1",
        },
        mcp(1, many + 3, status="failed", error="boom"),
        *(delta(f"v{n} ", many + 4 + n) for n in range(30)),
        mcp(2, many + 34, status="completed", error="late"),
        mcp(3, many + 35, status="completed"),
    ]
    path = tmp_path / "failures.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"mcptui": "recording", "format": 1}),
                *(json.dumps({"t": n / 10, "event": raw}) for n, raw in enumerate(raws)),
            ]
        )
        + "\n"
    )
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None
    session = Session.reading(reader)
    while session.load_more(size=500):
        pass
    whole = Timeline(load_path(str(path)).events)
    events = session.timeline.events
    assert [e.index for e in events] == list(range(len(raws)))
    assert [e.type for e in events] == [raw["type"] for raw in raws]
    assert session.timeline.failure_indexes == whole.failure_indexes == [many + 2, many + 34]


FAILED_ITEMS = [  # (the item as written, whether it failed)
    (
        '{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text",'
        '"text":"an error, then \\"failed\\" in quotes"}]}',
        False,
    ),
    ('{"id":"mcp_1","type":"mcp_call","status":"failed"}', True),
    ('{"id":"mcp_2","type":"mcp_call","status":"f\\u0061iled"}', True),
    ('{"id":"mcp_3","type":"mcp_call","status":"completed","\\u0065rror":"boom"}', True),
    ('{"id":"mcp_4","type":"mcp_call","status":"completed","error":null}', False),
    ('{"id":"mcp_5","type":"mcp_call","status":"completed","error":""}', False),
    ('{"id":"mcp_6","type":"mcp_call","status":"completed","error":{"message":"x"}}', True),
    (
        '{"id":"msg_2","type":"message","status":"completed","content":[{"type":"output_text",'
        '"text":"it failed"}],"note":"failed"}',
        False,
    ),
]


@pytest.mark.parametrize(("item", "failed"), FAILED_ITEMS)
def test_a_failed_item_is_found_however_its_done_event_spells_it(
    tmp_path: Path, item: str, failed: bool
):
    """The failure scan reads an `output_item.done` whole only when its text may say failed:
    an escaped spelling or an `error` key still counts, from a recording and from a stream."""
    from mcptui.io.indexed import recording_reader
    from mcptui.model.reducer import is_failure_event

    payload = (
        f'{{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{item}}}'
    )
    path = tmp_path / "item.jsonl"
    path.write_text(f'{{"mcptui": "recording", "format": 1}}\n{{"t": 0.1, "event": {payload}}}\n')
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None
    [from_file] = reader.read_all().events
    [from_stream] = StreamIngester().feed(sse(payload))
    assert from_file.written is not None and from_stream.payload is not None
    assert is_failure_event(from_file) is is_failure_event(from_stream) is failed
