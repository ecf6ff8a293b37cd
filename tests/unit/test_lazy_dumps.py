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
import textwrap
from pathlib import Path
from typing import Any

import pytest
from _support import text_delta as delta
from mcptui.io.answers import NO_TYPE
from mcptui.io.formats import load_bytes, load_path
from mcptui.io.indexed import ArrayReader, RecordingReader, recording_reader
from mcptui.io.recording import Loaded
from mcptui.io.sniff import HEAD_BYTES
from mcptui.io.sse_reader import SSEReader
from mcptui.sources.session import Session

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


@pytest.mark.parametrize("cores", [1, 2])
def test_secrets_a_dump_echoes_are_hidden_from_the_first_event_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cores: int
):
    """`cores`: the lines naming secrets searched as a small file's are, or as a big file's
    (tui/mcptui/io/byte_search.py)."""
    from mcptui.io import read_ahead

    if cores == 2:
        monkeypatch.setattr(read_ahead, "SEARCHED_ON_TWO_CORES", 0)
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


# -- JSON arrays ------------------------------------------------------------------------------

LAYOUTS = ("compact", "tight", "pretty", "per line", "comma first")


def as_array(elements: list[str], layout: str) -> str:
    """Elements (JSON texts, or anything else for a broken array) written as `json.dump`
    writes a list: compact on one line (`, ` or `,` between), pretty-printed (`indent=2`),
    one element a line, or with each comma opening the next line."""
    if layout == "compact":
        return "[" + ", ".join(elements) + "]"
    if layout == "tight":
        return "[" + ",".join(elements) + "]"
    if layout == "pretty":
        return "[\n" + ",\n".join(textwrap.indent(e, "  ") for e in elements) + "\n]"
    if layout == "per line":
        return "[\n" + ",\n".join(elements) + "\n]\n"
    return "[ " + "\n, ".join(elements) + "\n]"


def dumped(obj: Any, layout: str) -> str:
    if layout == "pretty":
        return json.dumps(obj, indent=2, ensure_ascii=False)
    separators = (",", ":") if layout == "tight" else (", ", ": ")
    return json.dumps(obj, separators=separators, ensure_ascii=False)


def snapshot() -> dict[str, Any]:
    """A Response object (no `type`): a whole array's snapshot, a pasted one's typeless event."""
    response = created()["response"]
    return {**response, "id": "resp_snap", "status": "completed", "output": []}


ODD_ELEMENTS: list[Any] = [
    1,
    'a string with [ ] { } , " and },{ in it',
    None,
    [1, [2, {"a": "]"}]],
    {"no": "type"},
    {"type": 5},
    {"type": "response.output_text.delta", "item_id": "m", "delta": 7},
    {"type": "response.x", "deep": json.loads("[" * 80 + "]" * 80)},
    delta(8000, "msg_u", 'délta 漢字 🎉 with "quotes", [brackets] and },{"type": 1}'),
    delta(9000, "msg_s", f"the url is {SERVER} "),
    delta(9003, "msg_k", "key sk-proj-abcdefghijklmnopqrstuvwx1234 end"),
    delta(9004, "msg_b", "Authorization: Bearer abcdefghijklmnop1234"),
    {"type": "response.output_item.done", "item": {"text": "x" * 9000}},
    {"type": "error", "message": "boom"},
]
"""Elements of a whole array, one for each rule of the whole reader's and for redaction."""

ODD_TEXTS = [
    '{"type": "response.x", "v": NaN}',  # the json module reads it; msgspec does not
    '{"type": "response.x", "s": "\\ud800 lone"}',
    '{"type": "response.x", "deep": ' + "[" * 98 + "]" * 98 + "}",  # 99 deep: still whole
]
BROKEN_TEXTS = [
    "{not json",
    '{"type": "response.x",}',
    '{"type": "response.x"} {"type": "response.y"}',  # no comma between
    '{"type": "response.x"},',  # two commas
    "[" * 300 + "]" * 300,
    '{"type": "response.x", "deep": ' + "[" * 99 + "]" * 99 + "}",  # 100 deep: no whole array
]
"""What makes an array one the whole reader reads as pasted values."""


def write_array(path: Path, seed: int, layout: str) -> Path:
    """A stream of 400 events as an array of `layout` with odd elements at random places
    past the first 60, some in runs, and at random: a broken element, a cut-off end, a BOM,
    CRLF line ends, whitespace around, a Response object."""
    rng = random.Random(seed)
    events: list[Any] = [json.loads(line) for line in plain_stream(400)]
    texts = [dumped(event, layout) for event in events]
    for _ in range(rng.randint(5, 30)):
        odd = rng.choice([*ODD_ELEMENTS, "run"])
        run = [dumped({"no": "type"}, layout)] * 4 if odd == "run" else [dumped(odd, layout)]
        texts[rng.randint(60, len(texts)) : 0] = run
    for _ in range(rng.randint(0, 3)):
        texts.insert(rng.randint(60, len(texts)), rng.choice(ODD_TEXTS))
    if rng.random() < 0.3:
        texts.insert(rng.randint(1, len(texts)), dumped(snapshot(), layout))
    if rng.random() < 0.25:
        texts.insert(rng.randint(60, len(texts)), rng.choice(BROKEN_TEXTS))
    text = as_array(texts, layout)
    if rng.random() < 0.3:
        text = text[: rng.randint(len(text) // 2, len(text) - 1)]  # cut off while written
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.2:
        text = rng.choice([" \n", "\x1c"]) + text + rng.choice(["\n", "  \u3000\n", "\x1c"])
    data = text.encode("utf-8")
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return path


def array_lazily(path: Path, piece: int) -> Loaded:
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, ArrayReader), f"{path.name} was not read as an array, lazily"
    while not reader.done:
        reader.read(piece)
    return reader.loaded


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("seed", range(10))
def test_an_array_reads_alike_lazily_and_whole(tmp_path: Path, seed: int, layout: str):
    path = write_array(tmp_path / f"dump{seed}.json", seed, layout)
    expected = seen(whole(path))
    assert expected[0].startswith("JSON array")
    assert seen(array_lazily(path, piece=1024 + 97 * seed)) == expected
    assert seen(array_lazily(path, piece=1 << 20)) == expected
    assert seen(load_path(str(path))) == expected


def test_the_arrays_cover_every_reading():
    """The corpus above holds whole arrays and pasted ones, cut off and broken inside, each
    with snapshots and problems: what the lazy reader must turn alike."""
    formats, snapshots, problems = set(), 0, set()
    for seed in range(10):
        for layout in LAYOUTS:
            path = Path(f"/dev/shm/array-cover-{seed}-{layout}.json")
            try:
                loaded = whole(write_array(path, seed, layout))
            finally:
                path.unlink(missing_ok=True)
            formats.add(loaded.format)
            snapshots += len(loaded.snapshots)
            problems.update(p.message.split(" (")[0].split(" element")[0] for p in loaded.problems)
    assert formats == {"JSON array", "JSON array (incomplete)"}
    assert snapshots
    words = {"array", "invalid JSON", "expected a JSON object, got int", NO_TYPE.split(" (")[0]}
    assert words <= problems


def upstream_events(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    kept = [row for row in rows if "note" not in row]
    return [row["event"] if "event" in row and "t" in row else row for row in kept]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("path", upstream_and_shipped(), ids=lambda p: p.name)
def test_an_upstream_stream_as_an_array_reads_alike(tmp_path: Path, path: Path, layout: str):
    events = upstream_events(path)
    array = tmp_path / (path.name + ".json")
    array.write_text(as_array([dumped(event, layout) for event in events], layout))
    expected = seen(whole(array))
    assert expected[0] == "JSON array"
    assert seen(array_lazily(array, piece=2000)) == expected
    cut = tmp_path / (path.name + ".cut.json")
    cut.write_bytes(array.read_bytes()[: array.stat().st_size * 2 // 3])  # a crash mid-write
    expected = seen(whole(cut))
    assert expected[0] == "JSON array (incomplete)" and expected[2]
    assert seen(array_lazily(cut, piece=1500)) == expected


BIG_NAN = '{"type": "response.x", "v": NaN, "s": "' + "x" * 300_000 + '"}'
"""Read by the json module, which a window at a time cannot tell before its end."""


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "[ ]\n",
        "[1, 2, 3]",
        "[1 , 2 ,3]",
        '["a", [1], {"b": 2}]',
        "[",
        "[\n",
        '[{"type": "x"}',
        "[1,",
        "[1,]",
        "[1] [2]",
        '[{"type": "x"}] {"type": "y"}',
        '[{"type": "x]',
        f"[{BIG_NAN}, {BIG_NAN}]",
        f"[{BIG_NAN}, {BIG_NAN}",
    ],
    ids=lambda text: text[:20],
)
def test_a_small_array_reads_alike_lazily_and_whole(tmp_path: Path, text: str):
    path = tmp_path / "small.json"
    path.write_text(text)
    expected = seen(whole(path))
    assert seen(array_lazily(path, piece=3)) == expected
    assert seen(load_path(str(path))) == expected


def test_secrets_an_array_echoes_are_hidden_from_the_first_event_either_way(tmp_path: Path):
    """The token of a server URL that only the array's last event echoes (its
    `response.completed`), and a delta before it that holds it: hidden either way, in
    each layout."""
    events: list[Any] = [json.loads(line) for line in plain_stream(300)]
    events[0]["response"]["tools"] = []  # only the last event names the server
    events.insert(5, delta(5, "msg_0", f"calling {SERVER} now"))
    completed = created()
    completed["type"] = "response.completed"
    events.append(completed)
    for layout in LAYOUTS:
        path = tmp_path / f"secret-{layout}.json"
        path.write_text(as_array([dumped(event, layout) for event in events], layout))
        for loaded in (whole(path), array_lazily(path, piece=1000)):
            text = json.dumps([e.raw for e in loaded.events])
            assert TOKEN not in text, layout
            assert "mcp.example.com" in text  # the URL is kept, its token hidden
        assert seen(array_lazily(path, piece=1000)) == seen(whole(path))


def test_an_array_is_read_lazily_only_where_its_opening_tells(tmp_path: Path):
    lines = plain_stream(300)
    record = json.dumps({"t": 0.5, "event": json.loads(lines[1])})
    cases = {
        "array": ("[\n" + ",\n".join(lines) + "\n]", True),
        "cut off": ("[\n" + ",\n".join(lines), True),
        "a record line sniffed": ("[\n" + ",\n".join(lines[:20]) + ",\n" + record + "\n]", False),
        "binary": ("[\x00" + ",\n".join(lines) + "]", False),
        "sse": ("[\ndata: {}\n" + ",\n".join(lines) + "]", False),
    }
    for name, (text, lazy) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        reader = recording_reader(str(path), 1 << 30)
        assert isinstance(reader, ArrayReader) == lazy, name
        assert seen(load_path(str(path))) == seen(whole(path)), name


def test_the_lazy_reader_keeps_an_arrays_events_by_offset_not_as_dicts(tmp_path: Path):
    for layout in ("compact", "pretty", "per line"):
        path = tmp_path / f"plain-{layout}.json"
        events = [json.loads(line) for line in plain_stream(2000)]
        path.write_text(as_array([dumped(event, layout) for event in events], layout))
        loaded = array_lazily(path, piece=64 << 10)
        assert loaded.format == "JSON array"
        held = sum(1 for e in loaded.events if e._raw is not None)
        assert held <= 1, f"{held} events of 2000 were kept as dicts ({layout})"
        assert [e.raw for e in loaded.events[1:]] == events[1:]  # the first hides a token


def test_a_session_over_an_array_seeds_a_response_object_found_later(tmp_path: Path):
    """A Response object past the first piece is a snapshot too: the state the session shows
    is the one of the whole reading."""
    events: list[Any] = [json.loads(line) for line in plain_stream(3000)]
    events.append(snapshot())
    path = tmp_path / "late.json"
    path.write_text(as_array([dumped(event, "per line") for event in events], "per line"))
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, ArrayReader)
    session = Session.reading(reader)
    assert not session.timeline.snapshots and session.loading is not None
    session.timeline.seek(50)
    session.load_all()
    expected = Session.from_loaded(whole(path))
    expected.timeline.seek(50)
    assert session.timeline.snapshots == expected.timeline.snapshots != []
    assert [r.id for r in session.timeline.state.responses] == [
        r.id for r in expected.timeline.state.responses
    ]
    session.timeline.seek_end()
    expected.timeline.seek_end()
    assert session.timeline.state.responses[0].status == expected.timeline.state.responses[0].status


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", ["broken late", "snapshot, then broken", "snapshot, whole"])
def test_an_array_found_not_whole_after_its_first_pieces_reads_alike(
    tmp_path: Path, case: str, layout: str
):
    """What was read as a whole array before the text turns out not to be one is read again as
    pasted values: each event gets its line, each problem its line and words. A Response object
    (a snapshot only in a whole array) met before then makes the reader look ahead first."""
    events: list[Any] = [json.loads(line) for line in plain_stream(3000)]
    texts = [dumped(event, layout) for event in events]
    for at in (500, 900, 1300):
        texts[at:at] = [dumped({"no": "type"}, layout)] * 3 + ["17", dumped(["x"], layout)]
    bare = {"id": "resp_bare", "object": "response", "status": "completed", "output": []}
    if case != "broken late":
        texts.insert(2000, dumped(bare, layout))  # no server URL: nothing looks ahead for it
    if case != "snapshot, whole":
        texts.insert(2600, "{not json")
    path = tmp_path / "late.json"
    path.write_text(as_array(texts, layout))
    expected = seen(whole(path))
    assert expected[0] == ("JSON array" if case == "snapshot, whole" else "JSON array (incomplete)")
    assert seen(array_lazily(path, piece=4096)) == expected


@pytest.mark.parametrize("layout", ["per line", "compact"])
@pytest.mark.parametrize("broken", [False, True])
def test_a_secret_named_late_is_hidden_in_what_was_read_before(
    tmp_path: Path, layout: str, broken: bool
):
    """A token that only the array's last event names (its final Response), held whole or
    split across two deltas long before: the events read before are read again, hidden as the
    whole reader hides them, and a session's state folded from them is folded again."""
    events: list[Any] = [json.loads(line) for line in plain_stream(3000)]
    events[0]["response"]["tools"] = []
    events[100:100] = [
        delta(100, "msg_2", f"see {SERVER} now "),
        delta(101, "msg_2", f"half {TOKEN[:7]}"),
        delta(102, "msg_2", f"{TOKEN[7:]} rest "),
    ]
    texts = [dumped(event, layout) for event in events]
    texts[1200:1200] = [dumped({"no": "type"}, layout)] * 2 + ["5"]
    if broken:
        texts.insert(2000, "{not json")  # the pasted reading reads on at the next line's `{`
        texts[2001] = "\n" + texts[2001].lstrip()
    completed = created()
    completed["type"] = "response.completed"
    texts.append(dumped(completed, layout))
    path = tmp_path / "late-secret.json"
    path.write_text(as_array(texts, layout))
    expected = whole(path)
    assert expected.secrets and TOKEN not in json.dumps([e.raw for e in expected.events])
    assert seen(array_lazily(path, piece=8192)) == seen(expected)
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, ArrayReader)
    session = Session.reading(reader)
    session.timeline.seek(110)  # past the deltas: their text is folded
    session.load_all()
    alike = Session.from_loaded(expected)
    alike.timeline.seek(110)
    (shown,) = [i for i in session.timeline.state.responses[0].items if i.item_id == "msg_2"]
    (wanted,) = [i for i in alike.timeline.state.responses[0].items if i.item_id == "msg_2"]
    assert shown.text_parts == wanted.text_parts
    assert TOKEN not in "".join(shown.text_parts) and TOKEN[7:] not in "".join(shown.text_parts)


def test_a_secret_only_a_late_response_object_names_is_hidden_before_it(tmp_path: Path):
    """A Response object (a snapshot) that names a password in its instructions, and no
    server: the whole reader hides it everywhere; read a piece at a time, the events before
    it are read again."""
    password = "pw7Hq2Zx9Lk4Rt"
    events: list[Any] = [json.loads(line) for line in plain_stream(2000)]
    events.insert(300, delta(300, "msg_7", f"the password is {password} "))
    bare = {"id": "resp_x", "object": "response", "output": []}
    bare["instructions"] = f"use https://bot:{password}@db.example.com/q"
    events.append(bare)
    path = tmp_path / "snapshot-secret.json"
    path.write_text(as_array([dumped(event, "per line") for event in events], "per line"))
    expected = whole(path)
    assert password in expected.secrets
    assert password not in json.dumps([e.raw for e in expected.events])
    assert seen(array_lazily(path, piece=4096)) == seen(expected)


def test_an_sse_dump_whose_last_response_is_longer_than_other_searches_stays_lazy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A long stream's `response.completed` holds all its text on one `data:` line, longer
    than other searches read (16 MB): its echo of the server URL is still read first, and
    the file a piece at a time, not whole."""
    from mcptui.io import read_ahead

    monkeypatch.setattr(read_ahead, "LONGEST_SEARCHED", 2000)
    lines = plain_stream(300)
    final = created() | {"type": "response.completed", "sequence_number": 300}
    final["response"] = final["response"] | {"output": [{"text": "long " * 1000}]}
    lines.append(json.dumps(final))
    lines.insert(5, json.dumps(delta(9000, "msg_s", f"the url is {SERVER} ")))
    path = tmp_path / "long.sse"
    path.write_text(as_sse(lines, random.Random(6), named=1.0))
    reader = recording_reader(str(path), 1 << 30)
    assert isinstance(reader, SSEReader), "read whole"
    loaded = lazily(path, helper=False, piece=4096)
    assert seen(loaded) == seen(whole(path))
    assert TOKEN not in json.dumps([e.raw for e in loaded.events])


@pytest.mark.parametrize("form", ["jsonl", "array", "array cut off"])
def test_a_run_of_deltas_is_read_in_one_piece_only_as_the_lines_it_was_read_from(
    tmp_path: Path, form: str
):
    """`written_run` (the delta check's one read for a run) is each delta's `written`,
    joined; an array's elements, with `,` between them, are never read as one piece."""
    from mcptui.model.events import written_run

    lines = plain_stream(60)
    text = "\n".join(lines) + "\n" if form == "jsonl" else "[\n" + ",\n".join(lines) + "\n]\n"
    if form == "array cut off":
        text = text[: text.rindex(",")]
    path = tmp_path / f"run.{form.split()[0]}"
    path.write_text(text)
    reader = recording_reader(str(path), 1 << 30)
    assert reader is not None
    events = [e for e in reader.read_all().events if e.lite is not None][:30]
    assert len(events) == 30
    joined = written_run(events)
    if form == "jsonl":
        assert joined == (b"".join(e.written or b"" for e in events), True)
    else:
        assert joined is None
