"""Where each element of a JSON array ends: CPU per element of five ways to find out, on 1 MB
of bench/dumps.py's 200k-event array (one event a line), for tui/mcptui/io/json_array.py.

  json raw_decode    `json.JSONDecoder().raw_decode` on the decoded text (builds every value)
  regex tokens       a regex over strings and brackets, the depth kept in Python
  msgspec trailing   msgspec reads `Raw` from the element's start to the piece's end and says
                     where the value stopped ("trailing characters (byte N)")
  msgspec line       msgspec reads the element's own line (without its comma) as `Raw`
  scan, one by one   `ArrayScan.scan` with the element's line tried first, element by element
  scan, runs         `ArrayScan.scan` as it runs: lines of one element each checked at once

Run: `.venv/bin/python bench/array_elements.py` (after bench/dumps.py wrote the array).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcptui.io.json_array import ELEMENT, ArrayScan

ARRAY = Path(__file__).resolve().parent / "out" / "dump-200000-s7.array"
TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},]')
_skip = msgspec.json.Decoder(msgspec.Raw).decode


def main() -> int:
    fd = os.open(ARRAY, os.O_RDONLY)
    size = os.fstat(fd).st_size
    text = os.pread(fd, 1 << 20, 20 << 20)
    text = text[text.index(b"\n") + 1 : text.rindex(b",\n") + 2]  # whole lines
    count = text.count(b",\n")
    doc = text.decode()
    lines = []
    at = 0
    while at < len(text):
        end = text.index(b",\n", at)
        lines.append((at, end))
        at = end + 2

    def raw_decode() -> None:
        decoder, at = json.JSONDecoder(), 0
        while at < len(doc):
            _, at = decoder.raw_decode(doc, at)
            at += 2

    def regex() -> None:
        depth = 0
        for match in TOKENS.finditer(text):
            byte = text[match.start()]
            if byte in b"[{":
                depth += 1
            elif byte in b"]}":
                depth -= 1

    def trailing() -> None:
        view, at = memoryview(text), 0
        while at < len(text):
            try:
                _skip(view[at:])
                return
            except msgspec.DecodeError as exc:
                message = str(exc)
                at += int(message[message.rindex("(byte ") + 6 : -1]) + 1

    def line() -> None:
        view = memoryview(text)
        for start, end in lines:
            _skip(view[start:end])

    def scan(runs: bool) -> Callable[[], None]:
        def run() -> None:
            found = ArrayScan(lambda at, n: os.pread(fd, n, at), size, 1, strict=True)
            found.state = ELEMENT
            if not runs:
                found._line_run = lambda text, base, at, batch: at  # type: ignore[method-assign]
            found.scan(text, 20 << 20, False)

        return run

    print(f"{count} elements, {len(text) / count:.0f} bytes each")
    ways = {
        "json raw_decode": raw_decode,
        "regex tokens": regex,
        "msgspec trailing": trailing,
        "msgspec line": line,
        "scan, one by one": scan(runs=False),
        "scan, runs": scan(runs=True),
    }
    for name, way in ways.items():
        best = min(_cpu(way) for _ in range(5))
        print(f"{name:18} {best / count * 1e6:6.2f} µs an element")
    return 0


def _cpu(run: Callable[[], None]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


if __name__ == "__main__":
    sys.exit(main())
