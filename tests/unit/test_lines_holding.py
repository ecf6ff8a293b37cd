"""The byte search for the lines that name secrets (`lines_holding`) finds each line holding a
needle, however the file is laid out, mapped in memory as read a block at a time (an empty
file, which cannot be mapped); a BOM is dropped, and a line too long to search is said (None)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcptui.io import read_ahead
from mcptui.io.read_ahead import lines_holding

NEEDLES = (b'"request"', b'"server_url"')


def layout(tmp_path: Path, text: bytes) -> Path:
    path = tmp_path / "file.jsonl"
    path.write_bytes(text)
    return path


CASES = {
    "first line": b'{"request": 1}\n{"a": 2}\n',
    "last line, no newline": b'{"a": 1}\n{"b": {"server_url": "x"}}',
    "both in one line": b'{"request": {"server_url": "u"}}\n',
    "after a BOM": b'\xef\xbb\xbf{"request": 1}\n',
    "none": b'{"a": 1}\n' * 100,
    "crlf": b'{"a": 1}\r\n{"request": 2}\r\n',
    "empty": b"",
    "spread over blocks": b"".join(
        b'{"n": %d, "pad": "%s"}\n' % (n, b"x" * 5000) for n in range(200)
    )
    + b'{"server_url": "far"}\n',
}


def expected(text: bytes) -> list[bytes]:
    text = text.removeprefix(b"\xef\xbb\xbf")
    lines = text.split(b"\n")
    return sorted(line for needle in NEEDLES for line in lines if needle in line)


@pytest.mark.parametrize("name", CASES)
def test_mapped_and_by_blocks_find_each_line_that_holds_a_needle(tmp_path: Path, name: str):
    path = layout(tmp_path, CASES[name])
    with path.open("rb") as file:
        mapped = sorted(lines_holding(file, NEEDLES))  # type: ignore[type-var]
    with path.open("rb") as file:
        by_blocks = sorted(read_ahead._lines_holding_by_blocks(file, NEEDLES))  # type: ignore[type-var]
    assert mapped == by_blocks == expected(CASES[name])


def test_a_line_too_long_to_search_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(read_ahead, "LONGEST_SEARCHED", 100)
    path = layout(tmp_path, b'{"request": "' + b"x" * 200 + b'"}\n{"request": 2}\n')
    with path.open("rb") as file:
        found = list(lines_holding(file, NEEDLES))
    assert found == [None, b'{"request": 2}']
