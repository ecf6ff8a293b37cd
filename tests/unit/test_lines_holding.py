"""The byte search for the lines that name secrets (`lines_holding`) finds each line holding a
needle, however the file is laid out, mapped in memory as read a block at a time (an empty
file, which cannot be mapped); a BOM is dropped, and a line too long to search is said (None)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcptui.io import byte_search, read_ahead
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


@pytest.mark.parametrize("name", [name for name in CASES if CASES[name]])
def test_the_two_core_search_finds_the_same_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
):
    path = layout(tmp_path, CASES[name])
    with path.open("rb") as file:
        one_core = list(lines_holding(file, NEEDLES))
    monkeypatch.setattr(read_ahead, "SEARCHED_ON_TWO_CORES", 0)
    with path.open("rb") as file:
        assert byte_search.hits(file.fileno(), NEEDLES, 0) is not None  # searched by memmem
        two_cores = list(lines_holding(file, NEEDLES))
    assert two_cores == one_core


def test_a_line_cut_by_the_halves_is_found_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The file's middle (where the second half's search begins) falls inside a line between
    two hits of the needle: each half finds the line, the caller takes it once."""
    line = b'{"request": 1, "pad": "' + b"y" * 100 + b'", "again": {"request": 2}}\n'
    first_hit, second_hit = line.index(b'"request"'), line.rindex(b'"request"')
    before = b'{"a": 1}\n' * 40
    total = 2 * (len(before) + (first_hit + second_hit) // 2)  # the middle between the hits
    text = before + line + b" " * (total - len(before) - len(line))
    path = layout(tmp_path, text)
    with path.open("rb") as file:
        found = byte_search.hits(file.fileno(), (b'"request"',), 0)
    assert found is not None
    assert list(found[0]) == [len(before) + first_hit, len(before) + second_hit]
    monkeypatch.setattr(read_ahead, "SEARCHED_ON_TWO_CORES", 0)
    with path.open("rb") as file:
        assert list(lines_holding(file, (b'"request"',))) == [line.rstrip(b"\n")]
