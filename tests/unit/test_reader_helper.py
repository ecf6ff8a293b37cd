"""The reading helper (mcptui/io/read_ahead.py): a recording read with a helper process decoding its
text deltas gives exactly the events, offsets, problems and redactions of reading it here,
and a helper that dies mid-way costs nothing but its speed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from _support import text_delta as delta
from mcptui.io.indexed import RecordingReader, recording_reader
from mcptui.model.timeline import Timeline

SECRET_IN_HEADER = "hv7f3a9c1d2e5b"
SECRET_IN_NOTE = "zq8w4e6r2t0y1u"
CREATED = {
    "type": "response.created",
    "sequence_number": 0,
    "response": {"id": "resp_1", "status": "in_progress", "output": []},
}


def request(secret: str) -> dict[str, Any]:
    return {
        "tools": [
            {
                "type": "mcp",
                "server_label": "s",
                "server_url": f"https://mcp.example.com/mcp?token={secret}",
            }
        ]
    }


def varied_recording(path: Path, seed: int = 3) -> list[str]:
    """Runs of text deltas between every other kind of line the reader must read itself."""
    rng = random.Random(seed)
    lines = [
        json.dumps({"mcptui": "recording", "format": 1, "request": request(SECRET_IN_HEADER)}),
        json.dumps({"t": 0, "event": CREATED}),
    ]
    seq = 1
    for n in range(40):
        item = f"msg_{n}"
        lines.append(
            json.dumps(
                {
                    "t": seq / 100,
                    "event": {
                        "type": "response.output_item.added",
                        "sequence_number": seq,
                        "output_index": n,
                        "item": {
                            "id": item,
                            "type": "message",
                            "status": "in_progress",
                            "content": [],
                        },
                    },
                }
            )
        )
        for _ in range(rng.randrange(5, 60)):
            seq += 1
            text = rng.choice(["plain ", "more text ", "ünïcödé ", "a\nnewline ", "\u00e9"])
            lines.append(json.dumps({"t": seq / 100, "event": delta(seq, item, text)}))
        seq += 1
        odd = [
            {"t": None, "event": delta(seq, item, "untimed ")},
            {"t": seq / 100, "event": delta(seq, item, "sk-proj-A1b2C3d4E5f6G7h8 ")},
            {"t": seq / 100, "event": delta(seq, item, f"header's {SECRET_IN_HEADER} ")},
            {
                "t": seq / 100,
                "event": delta(
                    seq, item, f"note's {SECRET_IN_NOTE} " if n > 20 else "named later "
                ),
            },
            {"t": seq / 100, "note": {"kind": "disconnect", "message": "lost"}},
            {
                "t": seq / 100,
                "event": {
                    "type": "response.mcp_call.failed",
                    "sequence_number": seq,
                    "item_id": item,
                },
            },
        ][n % 6]
        lines.append(json.dumps(odd))
        if n == 20:  # from here on, a second secret is named
            lines.append(
                json.dumps(
                    {
                        "t": seq / 100,
                        "note": {"kind": "request", "request": request(SECRET_IN_NOTE)},
                    }
                )
            )
        if n % 9 == 4:
            lines.append(
                '{"t": 0.5, "event": '
                + json.dumps(delta(seq, item, "x"))[:-1]
                + ', "logprobs": '
                + "[" * 120
                + "]" * 120
                + "}}"
            )  # too deep
            lines.append("{not json")
        lines.append(
            json.dumps(
                {
                    "t": seq / 100,
                    "event": {
                        "type": "response.output_item.done",
                        "sequence_number": seq,
                        "output_index": n,
                        "item": {
                            "id": item,
                            "type": "message",
                            "status": "completed",
                            "content": [{"type": "output_text", "text": "whole " * 50}],
                        },
                    },
                }
            )
        )
    lines.append(json.dumps({"t": seq / 100, "note": {"kind": "disconnect", "message": "end"}}))
    path.write_text("\n".join(lines))  # no newline after the last line
    return lines


def read(path: Path, helper: bool, piece: int = 4096) -> RecordingReader:
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None
    reader.helper_after = 0 if helper else 1 << 62
    reader.helper_piece = piece
    while not reader.done:
        reader.read(piece)
    return reader


def helped_reader(path: Path) -> RecordingReader:
    """A reader of `path` in 4 KB pieces whose helper starts with the first piece (read)."""
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None
    reader.helper_after, reader.helper_piece = 0, 4096
    reader.read(4096)  # here, and the helper starts: a fresh interpreter, not ready yet
    return reader


def seen(reader: RecordingReader) -> list[tuple[Any, ...]]:
    """What the app shows and folds of each event."""
    return [
        (
            e.index,
            e.line,
            e.t,
            e.type,
            e.is_note,
            json.dumps(e.raw, sort_keys=True),
            None if e.lite is None else (e.lite.sequence_number, e.lite.item_id, e.lite.delta),
        )
        for e in reader.loaded.events
    ]


@pytest.mark.parametrize("piece", [700, 4096, 40_000])
def test_reading_with_the_helper_gives_what_reading_here_gives(tmp_path: Path, piece: int):
    path = tmp_path / "varied.jsonl"
    varied_recording(path)

    here, helped = read(path, helper=False, piece=piece), read(path, helper=True, piece=piece)

    assert helped.helped >= 2  # the helper read pieces
    assert here.helped == 0
    assert seen(helped) == seen(here)
    assert list(helped.lines.starts) == list(here.lines.starts)
    assert [str(p) for p in helped.loaded.problems] == [str(p) for p in here.loaded.problems]
    assert len(helped.loaded.problems) >= 2  # the deep line and the broken one, reported


def test_no_secret_reaches_the_folded_text_or_an_event_read_with_the_helper(tmp_path: Path):
    path = tmp_path / "varied.jsonl"
    varied_recording(path)

    reader = read(path, helper=True)
    timeline = Timeline(reader.loaded.events)
    timeline.seek_end()

    texts = "".join(item.text for resp in timeline.state.responses for item in resp.items)
    shown = texts + json.dumps([e.raw for e in reader.loaded.events])
    assert "more text" in texts and "<redacted>" in texts
    for secret in (SECRET_IN_HEADER, SECRET_IN_NOTE, "sk-proj-A1b2C3d4E5f6G7h8"):
        assert secret not in shown


def test_a_helper_that_dies_leaves_the_rest_to_the_reader(tmp_path: Path):
    path = tmp_path / "varied.jsonl"
    varied_recording(path)
    expected = seen(read(path, helper=False))

    reader = helped_reader(path)
    reader.read(4096)  # the helper's first piece
    assert reader.helped == 1 and reader._ahead is not None
    reader._ahead._process.kill()
    reader._ahead._process.join()
    while not reader.done:
        reader.read(4096)

    assert seen(reader) == expected
    assert reader._ahead is None  # stopped, not left behind


def test_an_app_reading_between_frames_is_never_held_up_by_the_helper(tmp_path: Path):
    """`read(wait=False)` (what the app calls between frames) gives nothing rather than
    wait for the helper's next piece; the pieces come as the helper sends them."""
    import time

    path = tmp_path / "varied.jsonl"
    varied_recording(path)
    expected = seen(read(path, helper=False))

    reader = helped_reader(path)
    assert reader.waiting
    assert reader.read(4096, wait=False) == [] and reader.helped == 0 and not reader.done
    deadline = time.monotonic() + 60
    while not reader.done and time.monotonic() < deadline:
        if not reader.read(4096, wait=False):
            time.sleep(0.002)

    assert reader.helped >= 2
    assert seen(reader) == expected
