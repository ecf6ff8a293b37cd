"""Same events and problems whichever way a file is read: a file of one JSON event per line
(a dump: the upstream `*.chunks.txt`, a log of events), an SSE text and a recording, read a
piece at a time (tui/mcptui/io/indexed.py, with and without its helper process;
tui/mcptui/io/sse_reader.py) or whole (tui/mcptui/io/formats.py), on a varied corpus: the
upstream fixtures and shipped recordings as they are and as SSE, and dumps with every kind of
odd line or message the whole reader has a rule for, placed at random past the lines the
format is sniffed by."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from _support import text_delta as delta
from mcptui.io.formats import load_bytes, load_path
from mcptui.io.indexed import RecordingReader, recording_reader
from mcptui.io.recording import Loaded
from mcptui.io.sniff import HEAD_BYTES
from mcptui.io.sse_reader import SSEReader

REPO = Path(__file__).resolve().parents[2]
TOKEN = "tk9Qx7Lm2Vb8Zr4"
SERVER = f"https://mcp.example.com/mcp?token={TOKEN}"


def seen(loaded: Loaded) -> tuple[Any, ...]:
    """All that a reading yields that anything shows or checks."""
    return (
        loaded.format,
        [
            (e.kind, e.t, e.line, e.is_note, json.dumps(e.raw, sort_keys=True))
            for e in loaded.events
        ],
        [(p.line, p.message) for p in loaded.problems],
        dict(loaded.problems.seen),
        loaded.snapshots,
        loaded.header,
        sorted(loaded.secrets),
    )


def whole(path: Path) -> Loaded:
    return load_bytes(path.read_bytes(), source=str(path))


def lazily(path: Path, *, helper: bool, piece: int = 4096) -> Loaded:
    """`path` read in `piece`-byte pieces; with `helper`, a helper process reads ahead from
    the first piece on."""
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None, f"{path.name} was not read lazily"
    if isinstance(reader, RecordingReader):
        reader.helper_after = 0 if helper else 1 << 62
        reader.helper_piece = piece
    while not reader.done:
        reader.read(piece)
    return reader.loaded


def created() -> dict[str, Any]:
    tool = {"type": "mcp", "server_label": "files", "server_url": SERVER}
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "tools": [tool]}
    return {"type": "response.created", "sequence_number": 0, "response": response}


def plain_stream(count: int) -> list[str]:
    lines = [json.dumps(created())]
    lines += [json.dumps(delta(n, f"msg_{n // 40}", f"word {n} ")) for n in range(1, count)]
    return lines


ODD_LINES: list[str] = [
    "",
    "   \t",
    "\x1c",
    "{not json",
    '{"type": "response.output_text.delta", "delta": "cut',
    "[1, 2]",
    '"a string"',
    "3",
    "null",
    json.dumps({"no": "type"}),
    json.dumps({"other": "typeless"}),
    json.dumps({"type": 5}),
    json.dumps({"type": "response.output_text.delta", "item_id": "m", "delta": 7}),
    "[" * 300 + "]" * 300,
    json.dumps({"type": "response.x", "deep": json.loads("[" * 80 + "]" * 80)}),
    json.dumps(delta(9000, "msg_s", f"the url is {SERVER} ")),
    json.dumps(delta(9001, "msg_s", f"half {TOKEN[:7]}"))
    + "\n"
    + json.dumps(delta(9002, "msg_s", f"{TOKEN[7:]} rest")),
    json.dumps(delta(9003, "msg_k", "key sk-proj-abcdefghijklmnopqrstuvwx1234 end")),
    json.dumps(delta(9004, "msg_b", "Authorization: Bearer abcdefghijklmnop1234")),
    json.dumps({"type": "response.output_item.done", "item": {"text": "x" * 9000}}),
    json.dumps({"type": "error", "message": "boom"}),
]
"""A line (or two) for each rule of the whole reader's, and for redaction."""

TYPELESS_RUN = "\n".join([json.dumps({"no": "type"})] * 5)


def write_dump(path: Path, seed: int) -> Path:
    """A stream of 400 events with odd lines at random places past the first 60, some in
    runs, with random line endings, a BOM or not, and a last line that may be cut off."""
    rng = random.Random(seed)
    lines = plain_stream(400)
    for _ in range(rng.randint(5, 40)):
        odd = rng.choice([*ODD_LINES, TYPELESS_RUN, TYPELESS_RUN + "\n[1]\n" + TYPELESS_RUN])
        lines.insert(rng.randint(60, len(lines)), odd)
    ending = rng.choice(["\n", "\r\n"])
    text = ending.join(lines)
    tail = rng.choice(["", "\n", "\n\n  \n", '\n{"type": "response.completed", "respo'])
    if tail.startswith("\n{") and rng.random() < 0.5:
        tail += "\n\n"
    data = (text + tail).encode("utf-8")
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.3:
        at = data.index(b"word 200 ")
        data = data[:at] + b"\xff\xfe" + data[at:]  # not UTF-8: replaced as the whole reader does
    path.write_bytes(data)
    return path


def upstream_and_shipped() -> list[Path]:
    upstream = sorted((REPO.parent / "shared" / "fixtures" / "upstream").glob("*.chunks.txt"))
    return upstream + sorted((REPO / "recordings").glob("*.jsonl"))


@pytest.mark.parametrize("path", upstream_and_shipped(), ids=lambda p: p.name)
def test_a_file_as_it_is_reads_alike_lazily_and_whole(path: Path):
    expected = seen(whole(path))
    reader = recording_reader(str(path), 1 << 30)
    if sum(1 for line in path.read_text().splitlines() if line.strip()) > 1:
        assert reader is not None, "a dump or recording of several lines goes the lazy way"
    else:
        assert reader is None, "one line alone is a single event (or an error body)"
        return
    assert seen(load_path(str(path))) == expected
    assert seen(lazily(path, helper=False, piece=512)) == expected
    assert seen(lazily(path, helper=True, piece=4096)) == expected


@pytest.mark.parametrize("seed", range(12))
def test_a_dump_with_odd_lines_reads_alike_lazily_and_whole(tmp_path: Path, seed: int):
    path = write_dump(tmp_path / f"dump{seed}.chunks.txt", seed)
    expected = seen(whole(path))
    assert expected[0] == "JSON lines"
    assert expected[2], "the odd lines are problems"
    assert seen(lazily(path, helper=False, piece=1024 + 97 * seed)) == expected
    assert seen(lazily(path, helper=True, piece=4096)) == expected


def test_secrets_a_dump_echoes_are_hidden_from_the_first_event_either_way(tmp_path: Path):
    lines = plain_stream(100)
    lines.insert(1, json.dumps(delta(1, "msg_0", f"calling {SERVER} now")))
    path = tmp_path / "secret.chunks.txt"
    path.write_text("\n".join(lines) + "\n")
    for loaded in (whole(path), lazily(path, helper=False), lazily(path, helper=True)):
        text = json.dumps([e.raw for e in loaded.events])
        assert TOKEN not in text
        assert "mcp.example.com" in text  # the URL is kept, its token hidden


def test_a_dump_is_read_lazily_only_where_its_opening_tells(tmp_path: Path):
    lines = plain_stream(300)
    cases = {
        "jsonl": ("\n".join(lines), True),
        "odd line early": ("\n".join([lines[0], "{not json", *lines[1:]]), False),
        "one object": (lines[0], False),
        "pretty object": (json.dumps(created(), indent=2), False),
        "a har": (json.dumps({"log": {"entries": []}}) + "\n" + lines[1], False),
        "sse": ("\n".join(f"data: {line}\n" for line in lines), False),
        "recording": (json.dumps({"mcptui": "recording", "format": 1}) + "\n", False),
    }
    for name, (text, lazy) in cases.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        reader = recording_reader(str(path), 1 << 30)
        taken = isinstance(reader, RecordingReader) and reader.bare
        assert taken == lazy, name
        assert isinstance(reader, SSEReader) == (name == "sse"), name
        assert seen(load_path(str(path))) == seen(whole(path)), name


def test_the_lazy_reader_keeps_a_dumps_events_by_offset_not_as_dicts(tmp_path: Path):
    path = tmp_path / "plain.chunks.txt"
    path.write_text("\n".join(plain_stream(2000)) + "\n")
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, RecordingReader) and reader.bare
    loaded = reader.read_all()
    assert loaded.format == "JSON lines"
    held = sum(1 for e in loaded.events if e._raw is not None)
    assert held <= 1, f"{held} events of 2000 were kept as dicts"


def as_sse(lines: list[str], rng: random.Random, named: float = 0.8) -> str:
    """Each line as an SSE message, named by its type (a `named` share of them) or not, the
    way servers and `curl -N` write them."""
    out = []
    for line in lines:
        try:
            kind = json.loads(line).get("type")
        except (ValueError, AttributeError):
            kind = None
        name = f"event: {kind}\n" if isinstance(kind, str) and rng.random() < named else ""
        out.append(f"{name}data: {line}\n\n")
    return "".join(out)


ODD_MESSAGES = [
    ": keep-alive\n\n",
    "data: [DONE]\n\n",
    "data: {not json\n\n",
    "data: [1, 2]\n\n",
    'data: {"no": "type"}\n\n',
    'data: {"no": "type"}\n\ndata: {"no": "type"}\n\ndata: {"no": "type"}\n\n',
    'event: x\ndata: {"type": "response.x",\ndata: "split": true}\n\n',
    "id: 7\nretry: 100\n\n",
    "event: only a name\n\n",
    'data:{"type":"error","message":"no space"}\n\n',
    f"data: {json.dumps(delta(9000, 'msg_s', f'the url is {SERVER} '))}\n\n",
    f"data: {json.dumps(delta(9001, 'msg_s', f'half {TOKEN[:7]}'))}\n\n"
    f"data: {json.dumps(delta(9002, 'msg_s', f'{TOKEN[7:]} rest'))}\n\n",
    "\n\n\n",
]


def write_sse(path: Path, seed: int) -> Path:
    rng = random.Random(seed)
    messages = [as_sse([line], rng) for line in plain_stream(400)]
    for _ in range(rng.randint(5, 30)):
        messages.insert(rng.randint(60, len(messages)), rng.choice(ODD_MESSAGES))
    text = "".join(messages)
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.3:
        text = text[: -rng.randint(5, 40)]  # cut off while written
    data = text.encode("utf-8")
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("path", upstream_and_shipped()[:6], ids=lambda p: p.name)
def test_an_upstream_stream_as_sse_reads_alike_in_pieces_and_whole(tmp_path: Path, path: Path):
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    sse = tmp_path / (path.name + ".sse")
    sse.write_text(as_sse(lines, random.Random(1)))
    expected = seen(whole(sse))
    assert expected[0] == "SSE"
    assert seen(load_path(str(sse))) == expected
    assert seen(lazily(sse, helper=False, piece=333)) == expected


@pytest.mark.parametrize("path", upstream_and_shipped(), ids=lambda p: p.name)
def test_a_stream_as_the_api_sends_it_reads_alike_from_its_payloads(tmp_path: Path, path: Path):
    """Every message named (`event: X` / `data: {...}`): the blocks are read fast, each event
    kept as its payload's bytes, and come out as the reference decoder makes them."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    sse = tmp_path / (path.name + ".sse")
    sse.write_text(as_sse(lines, random.Random(1), named=1.0))
    expected = seen(whole(sse))
    assert seen(lazily(sse, helper=False, piece=333)) == expected


def test_an_sse_dump_as_the_api_sends_it_is_kept_as_payloads_not_dicts(tmp_path: Path):
    path = tmp_path / "plain.sse"
    path.write_text(as_sse(plain_stream(2000), random.Random(5), named=1.0))
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, SSEReader)
    while not reader.done:
        reader.read(4096)  # each piece cuts a block: its start waits for the next
    assert seen(reader.loaded) == seen(whole(path))
    held = sum(1 for e in reader.loaded.events if e.payload is None)
    assert held <= 1, f"{held} events of 2000 were kept as dicts"


@pytest.mark.parametrize("seed", range(12))
def test_an_sse_dump_with_odd_messages_reads_alike_in_pieces_and_whole(tmp_path: Path, seed: int):
    path = write_sse(tmp_path / f"dump{seed}.sse", seed)
    expected = seen(whole(path))
    assert expected[0] == "SSE"
    assert seen(lazily(path, helper=False, piece=700 + 131 * seed)) == expected
    assert seen(load_path(str(path))) == expected


def test_an_sse_dump_whose_echo_spans_data_lines_is_read_whole(tmp_path: Path):
    """A server URL echoed in a JSON text spread over several `data:` lines cannot be known
    before the first event: the whole reader takes the file, and its token stays hidden."""
    spread = json.dumps(created(), indent=1).replace("\n", "\ndata: ")
    lines = [json.dumps(delta(n, "msg_0", f"word {n} ")) for n in range(1, 400)]
    text = f"data: {spread}\n\n" + as_sse(lines, random.Random(2))
    text += f"data: {json.dumps(delta(400, 'msg_0', f'see {SERVER}'))}\n\n"
    path = tmp_path / "spread.sse"
    path.write_text(text)
    assert recording_reader(str(path), 1 << 30) is None
    loaded = load_path(str(path))
    assert loaded.format == "SSE" and TOKEN not in json.dumps([e.raw for e in loaded.events])


@pytest.mark.parametrize("form", ["sse", "jsonl"])
def test_a_dump_that_ends_in_a_run_of_events_with_no_type_counts_the_run(tmp_path: Path, form: str):
    lines = plain_stream(200) + [json.dumps({"keep": "alive"})] * 4
    path = tmp_path / f"tail.{form}"
    text = as_sse(lines, random.Random(3)) if form == "sse" else "\n".join(lines)
    path.write_text(text)
    expected = seen(whole(path))
    assert any(message.startswith("3 more identical") for _, message in expected[2])
    assert seen(lazily(path, helper=False, piece=999)) == expected


@pytest.mark.parametrize("form", ["jsonl", "sse"])
def test_a_dump_longer_than_the_sniffed_head_is_read_in_pieces_alike(tmp_path: Path, form: str):
    """Past the 256 KB the format is sniffed from, only the head's whole lines count."""
    lines = plain_stream(6000)
    lines.insert(3000, "{not json")
    text = as_sse(lines, random.Random(4)) if form == "sse" else "\n".join(lines) + "\n"
    path = tmp_path / f"big.{form}"
    path.write_text(text)
    assert path.stat().st_size > 2 * HEAD_BYTES
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, SSEReader if form == "sse" else RecordingReader)
    assert seen(lazily(path, helper=False, piece=64 << 10)) == seen(whole(path))
