"""An event's `sequence_number` read from its JSON as it came (a stream's payload, a dump's or a
recording's line) is what the decoded event says, for every odd value JSON can hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.io.indexed import RecordingReader, recording_reader
from mcptui.io.recording import make_header
from mcptui.model.events import Event, sequence_number_in
from mcptui.model.jsonsafe import loads_shallow

VALUES = [
    "7",
    "0",
    "-3",
    "true",
    "false",
    "null",
    "1.0",
    "1e2",
    '"4"',
    "[1]",
    "{}",
    str(2**63 - 1),
    str(2**64 - 1),
    str(2**64),
    str(-(2**63)),
    str(-(2**63) - 1),
    "99999999999999999999999",
]


def body(value: str) -> str:
    return '{"type": "response.output_item.added", "sequence_number": ' + value + ', "n": 1}'


@pytest.mark.parametrize("value", VALUES)
def test_read_from_a_payload_as_the_dict_has_it(value: str):
    payload = body(value).encode()
    event = Event(None, 0, None, None, False, None, payload, "response.output_item.added")
    assert event.sequence_number == sequence_number_in(loads_shallow(payload))


def test_a_repeated_key_counts_as_its_last():
    payload = b'{"type": "x", "sequence_number": 1, "sequence_number": 2}'
    event = Event(None, 0, None, None, False, None, payload, "x")
    assert event.sequence_number == 2 == sequence_number_in(loads_shallow(payload))


@pytest.mark.parametrize("bare", [True, False], ids=["dump line", "recording line"])
def test_read_from_a_files_line_as_the_dict_has_it(tmp_path: Path, bare: bool):
    header = json.dumps(make_header("replay"))
    lines = [body(value) for value in VALUES]
    if not bare:
        lines = [header] + ['{"t": 0.5, "event": ' + line + "}" for line in lines]
    path = tmp_path / ("dump.jsonl" if bare else "run.jsonl")
    path.write_text("\n".join(lines) + "\n")
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, RecordingReader) and reader.bare == bare
    events = [e for e in reader.read_all().events if not e.is_note]
    assert len(events) == len(VALUES)
    fast = sum(1 for e in events if e._raw is None)  # kept by offset, not as a dict
    assert fast >= len(VALUES) // 2, fast
    assert [e.sequence_number for e in events] == [sequence_number_in(e.raw) for e in events]
