"""What a file's opening says it is: the few rules both readers of a dump share.

tui/mcptui/io/formats.py reads a whole text and decides by its first lines; the lazy reader
(tui/mcptui/io/indexed.py) must take a file only where that whole-text reading would read it
the same way, having looked at no more than the file's first bytes. Both use these rules, so
the two cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mcptui.io.envelopes import ENVELOPE_TYPE
from mcptui.io.recording import is_header, is_record
from mcptui.model.jsonsafe import loads

SSE_FIELD = re.compile(r"^(data|event|id|retry):", re.MULTILINE)
SSE_SNIFF = 65536
"""Characters of a text searched for an SSE field at a line's start."""
SNIFF_LINES = 50
"""Non-blank lines looked at, of the first `4 * SNIFF_LINES`."""
HEAD_BYTES = 4 * SSE_SNIFF
"""Bytes that hold at least `SSE_SNIFF` characters of UTF-8."""
JSON_ARCHIVE = re.compile(r'\{\s*"(log|Entries|interactions)"\s*:\s*[\[{]')
"""A JSON archive's opening: HAR's only key, the test proxy's first, vcrpy's JSON first."""
_VCR_YAML = re.compile(r"^interactions:[ \t]*$", re.MULTILINE)
ARCHIVE_SNIFF = 65536
"""Characters of a text's opening that say whether it may be an archive."""


def may_be_archive(text: str) -> bool:
    """Whether `read_archive` (tui/mcptui/io/archives.py) looks further at a text that opens
    with `text` (its first `ARCHIVE_SNIFF` characters or more): a reader that never calls it
    must leave such a text alone. Here, not beside it, so that the lazy reader does not import
    the archive readers (~4 ms of a small recording's first screen, bench/cold_start.py)."""
    head = text[:ARCHIVE_SNIFF].lstrip()
    if head.startswith("{"):
        return JSON_ARCHIVE.match(head) is not None
    return bool(_VCR_YAML.search(head)) and "request:" in head and "response:" in head


def first_lines(text: str, count: int) -> list[str]:
    """The first `count` lines of `text`, without splitting all of it: the lines of a 30 MB
    SSE text of 3M `data: {}` cost 300 MB only to look at its first 200."""
    lines: list[str] = []
    start = 0
    while len(lines) < count and start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        lines.append(text[start:end])
        start = end + 1
    return lines


def sample_of(text: str) -> list[tuple[int, str]]:
    """The lines a text's format is sniffed by: (number, line), the first `SNIFF_LINES` that
    are not blank among the first `4 * SNIFF_LINES`."""
    numbered = enumerate(first_lines(text, SNIFF_LINES * 4), 1)
    return [(n, line) for n, line in numbered if line.strip()][:SNIFF_LINES]


def try_json(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return None


def is_json_lines_head(head: bytes, *, whole: bool) -> bool:
    """Whether a file that opens with `head` (at least its first `HEAD_BYTES`; all of it when
    `whole`) is one JSON event per line as tui/mcptui/io/formats.py reads it: not an archive,
    a recording or SSE, every sniffed line a JSON object on its own, and more than one of
    them (one object alone is a "single event", or the first line of a pretty-printed one).
    False whenever the head cannot tell (a sniffed line runs past it): the whole-text reader
    decides those."""
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not text.lstrip().startswith("{") or may_be_archive(text):
        return False
    if (not whole and len(text) <= SSE_SNIFF) or SSE_FIELD.search(text[:SSE_SNIFF]):
        return False  # SSE, or a head that holds fewer characters than the search needs
    sample = _sample_within(text, whole)
    if sample is None or len(sample) < 2:
        return False
    for _, line in sample:
        obj = try_json(line)
        if not isinstance(obj, dict) or is_header(obj) or is_record(obj):
            return False
    return ENVELOPE_TYPE.search(text) is None  # the whole-text reader takes envelopes off


def is_sse_head(head: bytes, *, whole: bool) -> bool:
    """Whether a file that opens with `head` (at least its first `HEAD_BYTES`; all of it when
    `whole`) is read by tui/mcptui/io/formats.py as an SSE text: not binary, not empty, not an
    archive or a recording, with an SSE field at a line's start in its first `SSE_SNIFF`
    characters. False whenever the head cannot tell."""
    if b"\x00" in head[:4096] and not head.lstrip().startswith((b"{", b"[")):
        return False  # refused as binary
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not whole and len(text) <= SSE_SNIFF:
        return False  # the searches need more than the head holds
    if not text.strip() or may_be_archive(text) or not SSE_FIELD.search(text[:SSE_SNIFF]):
        return False
    sample = _sample_within(text, whole)
    if sample is None:
        return False
    for _, line in sample:
        obj = try_json(line)
        if is_header(obj) or is_record(obj):
            return False
    return True


def _sample_within(text: str, whole: bool) -> list[tuple[int, str]] | None:
    """`sample_of` the text a file opens with (all of it when `whole`), or None when the
    sample would run on past it (its last line may be cut)."""
    if whole:
        return sample_of(text)
    text = text[: text.rfind("\n") + 1]  # complete lines only
    sample = sample_of(text)
    short = len(first_lines(text, SNIFF_LINES * 4 + 1)) <= SNIFF_LINES * 4
    return None if short and len(sample) < SNIFF_LINES else sample


def is_array_head(head: bytes, *, whole: bool) -> bool:
    """Whether a file that opens with `head` (at least its first `HEAD_BYTES`; all of it when
    `whole`) is read by tui/mcptui/io/formats.py as a JSON array (whole, or the values of one
    cut off): not binary, not an archive or SSE, opening with `[`. False whenever the head
    cannot tell. Whether a line it is sniffed by is a recording's is asked apart
    (`sample_holds_record`): the first line of a compact array is all of it."""
    if b"\x00" in head[:4096]:
        return False  # what is refused as binary, and JSON holds no NUL
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not whole and len(text) <= SSE_SNIFF:
        return False
    if not text.lstrip().startswith("[") or may_be_archive(text):
        return False
    return not SSE_FIELD.search(text[:SSE_SNIFF]) and ENVELOPE_TYPE.search(text) is None


SAMPLE_BYTES = 1 << 20
"""Bytes of a file looked through for the lines its format is sniffed by, at most."""


def sample_holds_record(read: Callable[[int, int], bytes], size: int) -> bool | None:
    """Whether a line formats.py sniffs a text's format by (`sample_of`) is a recording's
    header or record (a text that opens with `[` is then read as a recording): True, False,
    or None when a sniffed line that may be one (it opens with `{`) runs past the first
    `SAMPLE_BYTES`. Lines past those are not looked at: a compact array's one line runs on
    past them (it opens with `[`: not a recording's line)."""
    data = read(0, min(size, HEAD_BYTES))
    while True:
        whole = len(data) >= size
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        sample = _sample_within(text, whole)
        if sample is None and len(data) >= SAMPLE_BYTES:
            complete = text[: text.rfind("\n") + 1]
            sample = sample_of(complete)
            sniffed = len(sample) < SNIFF_LINES and complete.count("\n") < SNIFF_LINES * 4
            if sniffed and text[len(complete) :].lstrip().startswith("{"):
                return None  # the line that is cut off is sniffed, and may be an object
        if sample is not None:
            sniffed_objects = [try_json(line) for _, line in sample]
            return any(is_header(obj) or is_record(obj) for obj in sniffed_objects)
        more = read(len(data), min(size, SAMPLE_BYTES) - len(data))
        if not more:
            return None  # cut short since it was measured
        data += more


def is_response_object(obj: dict[str, Any]) -> bool:
    """A Response object (GET /v1/responses/{id}), not an event that carries one."""
    return obj.get("object") == "response" or ("output" in obj and "type" not in obj)
