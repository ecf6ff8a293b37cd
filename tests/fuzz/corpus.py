"""A seeded mutation corpus built from the test fixtures: the same cases on every run.

Mutations are the audit's: truncate, flip bytes, duplicate and shuffle lines, nest values deep,
oversize a delta, bad UTF-8, wrong JSON types, odd recording headers, control characters.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEEDS = (
    sorted((REPO / "tests" / "fixtures" / "upstream").glob("*.chunks.txt"))
    + sorted((REPO / "recordings").glob("*.jsonl"))
    + sorted((REPO / "tests" / "fixtures" / "pastes").glob("*.txt"))
)
HOSTILE = "\x1b]0;t\x07\x1b[2J\x9b31m\u202e\ud800"
"""Terminal escapes, a bidi override and a lone surrogate (the JSON escape `\\ud800` once
written): none may act on a terminal or stop an output from being encoded."""
CASES: list[str] = []
"""Names of the cases run, for the tier's summary line."""
ODD_VALUES: list[object] = [
    None,
    0,
    -1,
    1e308,
    "",
    "x" * 300,
    [],
    {},
    [1, [2]],
    {"a": {}},
    True,
    HOSTILE,
]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data))]


def flip(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 20)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def duplicate(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    return b"\n".join(lines[:at] + [lines[at]] * rng.randint(2, 50) + lines[at + 1 :])


def shuffle(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    rng.shuffle(lines)
    return b"\n".join(lines)


def bad_utf8(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + rng.choice([b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\x00"]) + data[at:]


def _edit_json_line(
    rng: random.Random, data: bytes, edit: Callable[[dict[str, object]], None]
) -> bytes:
    lines = _lines(data)
    candidates = [n for n, line in enumerate(lines) if line.strip().startswith(b"{")]
    if not candidates:
        return data
    n = rng.choice(candidates)
    try:
        obj = json.loads(lines[n])
    except (ValueError, RecursionError):  # an earlier mutation broke or deepened it
        return data
    if not isinstance(obj, dict):
        return data
    edit(obj)
    lines[n] = json.dumps(obj).encode()
    return b"\n".join(lines)


def _walk_dicts(value: object) -> Iterator[dict[str, object]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk_dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_dicts(item)


def wrong_type(rng: random.Random, data: bytes) -> bytes:
    def edit(obj: dict[str, object]) -> None:
        target = rng.choice(list(_walk_dicts(obj)))
        if target:
            target[rng.choice(list(target))] = rng.choice(ODD_VALUES)

    return _edit_json_line(rng, data, edit)


def nest(rng: random.Random, data: bytes) -> bytes:
    """A value nested 50 to 5000 levels deep, spliced into one JSON line (or as the line)."""
    depth = rng.choice([50, 99, 101, 150, 1000, 5000])
    deep = b"[" * depth + b"]" * depth
    lines = _lines(data)
    n = rng.randrange(len(lines))
    line = lines[n].rstrip()
    lines[n] = line[:-1] + b',"deep":' + deep + b"}" if line.endswith(b"}") else deep
    return b"\n".join(lines)


def oversize(rng: random.Random, data: bytes) -> bytes:
    def edit(obj: dict[str, object]) -> None:
        target = obj.get("event", obj)
        if isinstance(target, dict):
            target["delta"] = "word " * rng.choice([20_000, 200_000])

    return _edit_json_line(rng, data, edit)


def odd_header(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):
        return data
    if not isinstance(header, dict) or "mcptui" not in header:
        return data
    header[rng.choice(["http", "request", "source", "endpoint"])] = rng.choice(ODD_VALUES)
    if rng.random() < 0.5:
        header["http"] = {"status": rng.choice(ODD_VALUES), "headers": rng.choice(ODD_VALUES)}
    lines[0] = json.dumps(header).encode()
    return b"\n".join(lines)


def controls(rng: random.Random, data: bytes) -> bytes:
    def edit(obj: dict[str, object]) -> None:
        for target in _walk_dicts(obj):
            for key, value in list(target.items()):
                if isinstance(value, str) and rng.random() < 0.5:
                    target[key] = value + HOSTILE

    return _edit_json_line(rng, data, edit)


MUTATIONS = [
    truncate,
    flip,
    duplicate,
    shuffle,
    bad_utf8,
    wrong_type,
    nest,
    oversize,
    odd_header,
    controls,
]


def corpus(count: int, seed: int = 2026) -> Iterator[tuple[str, bytes]]:
    """`count` mutated inputs: (name, bytes), one to three mutations each."""
    rng = random.Random(seed)
    sources = [(path.name, path.read_bytes()) for path in SEEDS]
    for number in range(count):
        name, data = sources[number % len(sources)]
        steps = rng.sample(MUTATIONS, rng.randint(1, 3))
        for step in steps:
            if data:
                data = step(rng, data)
        yield f"{number:04d}-{name}-{'+'.join(s.__name__ for s in steps)}", data
