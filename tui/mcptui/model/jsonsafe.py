"""JSON parsing with a nesting bound, for everything read from a file, a stream or a flag.

Hostile (or broken) input nests arrays 10 000 deep. The json module parses up to about 990
levels and then raises RecursionError; what parses is still a trap for every recursive step
after it (redaction, pretty-printing, Rich). So nothing deeper than `MAX_DEPTH` is parsed: it
is refused like any invalid JSON (`TooDeep` is a `JSONDecodeError`), and the reader keeps the
line as a problem. The check costs one `str.count` unless a text has that many brackets.

A lone UTF-16 surrogate (`"\\ud800"` in JSON, `'\\ud800'` in a Python literal) is valid to
the json module but cannot be encoded as UTF-8: every terminal, file and clipboard write would
raise UnicodeEncodeError. What is read here keeps it as the visible text `\\ud800` instead
(`without_surrogates`), once, so nothing downstream meets one.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

MAX_DEPTH = 100
"""Deepest nesting accepted: real events nest about 10 levels, tool arguments a few more."""

_TOKENS = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?|[\[\]{}]')
"""A string (possessive: the regex engine keeps no state per character, where `(?:a|b)*` kept
about 120 bytes per character of a long string) or a bracket."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAY_HOLD_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
"""A surrogate, or the JSON (or Python) escape of one: only then is a value walked."""


class TooDeep(json.JSONDecodeError):
    """JSON nested deeper than `MAX_DEPTH`: refused as invalid, never parsed."""

    def __init__(self, doc: str, pos: int) -> None:
        super().__init__(f"nested more than {MAX_DEPTH} levels deep", doc, pos)


def too_deep_at(text: str, start: int = 0, end: int | None = None) -> int | None:
    """Where `text[start:end]` first nests deeper than `MAX_DEPTH`, or None."""
    end = len(text) if end is None else end
    if text.count("{", start, end) + text.count("[", start, end) <= MAX_DEPTH:
        return None
    depth = 0
    for match in _TOKENS.finditer(text, start, end):
        token = text[match.start()]  # not the whole string token: no copy of a long string
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None


def loads(text: str | bytes) -> Any:
    """`json.loads`, refusing (with `TooDeep`) what nests deeper than `MAX_DEPTH`.

    orjson parses (about 3x faster: every event of every stream comes through here); what it
    refuses and json accepts (NaN, integers over 64 bits, lone surrogates) and every error
    message come from json, so what is read and what a problem says do not change. Bytes
    (UTF-8, as a stream or file holds them) are read as their text would be."""
    if type(text) is bytes:
        brackets = text.count(b"{") + text.count(b"[")
    else:
        brackets = text.count("{") + text.count("[")  # type: ignore[arg-type]
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    else:
        # Many brackets (a final response holds every item): measure the depth of what was
        # built, which costs its containers, not a scan of every string.
        if brackets <= MAX_DEPTH or depth_within(value, MAX_DEPTH):
            return value
    if type(text) is bytes:
        text = text.decode("utf-8", "replace")
    if brackets > MAX_DEPTH and (position := too_deep_at(text)) is not None:  # type: ignore[arg-type]
        raise TooDeep(text, position)  # type: ignore[arg-type]
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(text, 0) from None  # type: ignore[arg-type]
    return without_surrogates(value) if _MAY_HOLD_SURROGATE.search(text) else value  # type: ignore[arg-type]


def loads_request(body: str | bytes) -> Any:
    """A request body as a server takes it (the emulator, the demo MCP server): strict JSON.

    What `loads` tolerates in a file to show it is refused here, as the real API refuses it,
    with a `ValueError` whose message says why: nesting deeper than `MAX_DEPTH` (the json module
    would raise RecursionError past ~1000 levels, a 500), `NaN` and `Infinity` (not JSON), and
    a number too large for a float (`1e999999` is infinity): an answer echoing either could not
    be written as JSON at all. Invalid UTF-8 is refused too; lone surrogates are made visible
    text (`without_surrogates`) so an answer echoing one can be encoded."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    if (position := too_deep_at(text)) is not None:
        raise TooDeep(text, position)
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # unreachable below MAX_DEPTH; kept as the bound's last guard
        raise TooDeep(text, 0) from None
    return without_surrogates(value) if _MAY_HOLD_SURROGATE.search(text) else value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        raise ValueError(f"number out of range: {literal[:40]}")
    return number


def loads_shallow(text: bytes) -> Any:
    """`loads` for a text already known to nest no deeper than `MAX_DEPTH` (an event the fast
    reader took, tui/mcptui/model/fast_read.py): the bracket count is skipped."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads(text)


def depth_within(value: Any, limit: int) -> bool:
    """Whether `value` nests no deeper than `limit` containers (walked without recursion)."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > limit:
            return False
        children = node.values() if type(node) is dict else node if type(node) is list else ()
        for child in children:
            if type(child) is dict or type(child) is list:
                push((child, depth + 1))
    return True


def dumps(value: Any) -> str:
    """Compact JSON text, non-ASCII kept as is (`json.dumps(value, ensure_ascii=False,
    separators=(",", ":"), default=str)`), with orjson where it can (about 10x faster).

    The text always encodes as UTF-8: a lone surrogate in a value (from a parser other than
    `loads`: an SDK, a header, a Python object) is written as its JSON escape `\\ud800`, which
    reads back as the same string. Every writer of a recording line goes through here."""
    try:
        return orjson.dumps(value, default=str).decode()
    except (orjson.JSONEncodeError, TypeError):  # integers over 64 bits, surrogates, NaN...
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        return text_without_surrogates(text)


_INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def dumps_indented(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2, default=str)`, with orjson where it
    can: the stdlib indents in Python (its C encoder is compact only), 0.2 s of `inspect
    --json` on a 200k-event stream. (Floats may read `1e16` for `1e+16`; NaN is `null`, as
    JSON has no NaN.)"""
    try:
        return orjson.dumps(value, default=str, option=_INDENTED).decode()
    except (orjson.JSONEncodeError, TypeError):  # integers over 64 bits, surrogates...
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def raw_decode(decoder: json.JSONDecoder, text: str, start: int) -> tuple[Any, int]:
    """`decoder.raw_decode` with the same bound, for objects pasted one after another."""
    try:
        obj, end = decoder.raw_decode(text, start)
    except RecursionError:
        raise TooDeep(text, start) from None
    position = too_deep_at(text, start, end)
    if position is not None:
        raise TooDeep(text, position)
    if _MAY_HOLD_SURROGATE.search(text, start, end):
        obj = without_surrogates(obj)
    return obj, end


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def text_without_surrogates(text: str) -> str:
    """`text` with each surrogate pair joined into its character and each lone surrogate
    written as the visible escape `\\udXXX`: text that always encodes as UTF-8."""
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:  # a lone one: no character to join it into
        return _SURROGATE.sub(_escape_surrogate, text)


def without_surrogates(value: Any) -> Any:
    """`value` (parsed JSON or a Python literal, nested at most `MAX_DEPTH` deep) with every
    string, key included, passed through `text_without_surrogates`."""
    if isinstance(value, str):
        return text_without_surrogates(value)
    if isinstance(value, dict):
        return {without_surrogates(key): without_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    return value
