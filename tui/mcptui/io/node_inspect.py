"""Read what Node's `console.log(obj)` prints (`util.inspect`) back into the data it shows.

Node prints an event as a JavaScript literal, not JSON: keys unquoted (`type: 'response.created'`),
strings in single quotes (double quotes or backticks when the text holds a quote), `null`,
`undefined`. And it cuts: below depth 2 an object is `[Object]` and an array `[Array]`, an array
past 100 items ends `... 12 more items`, a string past 10,000 characters ends
`... 9000 more characters`. What was cut is not in the text, so it is not made up: a value
Node cut is left out of its object (`tools: [ [Object] ]` gives no `tools`, and the stream's
other events say what it held), a cut string keeps what was shown, and each cut is counted so
the user learns the paste is partial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_NESTING = 200
"""Deeper than this is refused, as JSON is (tui/mcptui/model/jsonsafe.py)."""

_SPACE = re.compile(r"\s*")
_KEY = re.compile(r"[A-Za-z_$][\w$]*")
_END = r"(?=\s*[,\]}]|\s*$)"
"""What follows a whole value: a `,`, a closing bracket, or the end."""
_NUMBER = re.compile(r"-?(?:\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|Infinity|NaN)n?" + _END)
_WORD = re.compile(r"(null|undefined|true|false)" + _END)
_BARE = re.compile(r"[^,\s\]}]+")
"""A value Node prints bare that is no literal: a Date (`2025-08-26T14:50:42.000Z`)."""
_MARKER = re.compile(
    r"\[(?:Object|Array|Function[^\]]*|Circular \*\d+|Getter[^\]]*|class [^\]]*)\]"
)
_MORE_ITEMS = re.compile(r"\.\.\. \d+ more (?:items?|properties|property)")
_MORE_CHARS = re.compile(r"\.\.\. \d+ more characters?")
_REF = re.compile(r"<ref \*\d+>\s*")
_PREFIX = re.compile(r"(?:[A-Z][\w$]*(?:\(\d+\))?|\[[\w$ :]+\])\s*(?=[{\[])")
"""A class name Node shows before an object (`Foo {`, `Map(2) {`, `[Object: null prototype] {`)."""
_WORDS = {"null": None, "undefined": None, "true": True, "false": False}
_STRINGS = {
    quote: re.compile(quote + r"((?:[^" + quote + r"\\]|\\.)*)" + quote, re.DOTALL)
    for quote in "'\"`"
}
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class NotInspected(ValueError):
    """The text is no `util.inspect` output."""

    def __init__(self, reason: str, scanned: int = 0) -> None:
        super().__init__(reason)
        self.scanned = scanned
        """How far the reading went before it failed: what trying cost."""


@dataclass
class Inspected:
    value: dict[str, Any]
    end: int
    cuts: int
    """Values Node cut short ([Object], [Array], `... more items`, `... more characters`)."""


class _Cut:
    """A value Node did not print."""


CUT = _Cut()


def read_inspected(text: str, start: int, limit: int) -> Inspected:
    """The object Node printed at `start` (a `{`), read no further than `limit`. Raises
    NotInspected when the text there is none."""
    parser = _Parser(text, min(len(text), limit))
    try:
        value = parser.value(start, 0)
    except (ValueError, IndexError) as exc:  # a bad escape's hex too
        raise NotInspected(str(exc), scanned=max(1, parser.position - start)) from None
    if not isinstance(value, dict):
        raise NotInspected("not an object", scanned=parser.position - start)
    return Inspected(value, parser.position, parser.cuts)


class _Parser:
    def __init__(self, text: str, end: int) -> None:
        self.text = text
        self.end = end
        self.position = 0
        self.cuts = 0

    def value(self, at: int, depth: int) -> Any:
        if depth > MAX_NESTING:
            raise NotInspected("nested too deep")
        text = self.text
        at = self.position = self._skip(at)  # how far it got, should it fail below
        if (ref := _REF.match(text, at)) is not None:
            at = ref.end()
        if (prefix := _PREFIX.match(text, at)) is not None:
            at = prefix.end()
        if at >= self.end:
            raise NotInspected("cut off")
        char = text[at]
        if char == "{":
            return self._object(at + 1, depth)
        if char == "[":
            if (marker := _MARKER.match(text, at)) is not None:
                self.position = marker.end()
                self.cuts += 1
                return CUT
            return self._array(at + 1, depth)
        if char in "'\"`":
            return self._string(at)
        if (word := _WORD.match(text, at)) is not None:
            self.position = word.end()
            return _WORDS[word.group()]
        if (number := _NUMBER.match(text, at)) is not None:
            self.position = number.end()
            return _number(number.group())
        if (bare := _BARE.match(text, at)) is not None:
            self.position = bare.end()
            return bare.group()
        raise NotInspected(f"no value at {at}")

    def _object(self, at: int, depth: int) -> dict[str, Any]:
        text, result = self.text, dict[str, Any]()
        while True:
            at = self._skip(at)
            if at >= self.end:
                raise NotInspected("cut off")
            if text[at] == "}":
                self.position = at + 1
                return result
            if (more := _MORE_ITEMS.match(text, at)) is not None:
                self.cuts += 1
                at = self._after_item(more.end())
                continue
            if text[at] in "'\"`":
                key = self._string(at)
                at = self.position
            elif text[at] == "[":  # a symbol key: `[Symbol(x)]: 1`
                close = text.find("]", at, self.end)
                if close < 0:
                    raise NotInspected("cut off")
                key, at = text[at : close + 1], close + 1
            elif (name := _KEY.match(text, at)) is not None:
                key, at = name.group(), name.end()
            else:
                raise NotInspected(f"no key at {at}")
            at = self._skip(at)
            if at >= self.end or text[at] != ":":
                raise NotInspected(f"no ':' at {at}")
            value = self.value(at + 1, depth + 1)
            if value is not CUT:  # (an array holding a cut is a cut itself: `_array`)
                result[key] = value
            at = self._after_item(self.position)

    def _array(self, at: int, depth: int) -> list[Any] | _Cut:
        text, items, cut = self.text, list[Any](), False
        while True:
            at = self._skip(at)
            if at >= self.end:
                raise NotInspected("cut off")
            if text[at] == "]":
                self.position = at + 1
                return CUT if cut else items
            if (more := _MORE_ITEMS.match(text, at)) is not None:
                self.cuts += 1
                cut = True
                at = self._after_item(more.end())
                continue
            value = self.value(at, depth + 1)
            cut = cut or value is CUT
            items.append(value)
            at = self._after_item(self.position)

    def _after_item(self, at: int) -> int:
        at = self._skip(at)
        if at < self.end and self.text[at] == ",":
            return at + 1
        if at < self.end and self.text[at] in "}]":
            return at
        raise NotInspected(f"no ',' at {at}")

    def _string(self, at: int) -> str:
        """A quoted string, with the pieces Node joins by `+` across lines (a text with line
        breaks), and what a `... N more characters` cut left. Found by a pattern, not a
        character at a time: a third of the time of reading a log of events."""
        text, parts = self.text, []
        while True:
            found = _STRINGS[text[at]].match(text, at, self.end)
            if found is None:
                raise NotInspected("cut off")
            body = found.group(1)
            parts.append(_ESCAPE.sub(_unescape, body) if "\\" in body else body)
            at = found.end()
            if (more := _MORE_CHARS.match(text, at)) is not None:
                self.cuts += 1
                at = more.end()
            follow = self._skip(at)
            if follow < self.end and text[follow] == "+":
                joined = self._skip(follow + 1)
                if joined < self.end and text[joined] in "'\"`":
                    at = joined
                    continue
            self.position = at
            return "".join(parts)

    def _skip(self, at: int) -> int:
        return _SPACE.match(self.text, at).end()  # type: ignore[union-attr]


def _number(spelled: str) -> int | float | str:
    spelled = spelled.removesuffix("n").replace("_", "")
    if spelled in ("NaN", "Infinity", "-Infinity"):
        return spelled  # JSON has no word for these: their spelling
    try:
        return int(spelled)
    except ValueError:
        return float(spelled)


def _unescape(found: re.Match[str]) -> str:
    escaped = found.group(1)
    if len(escaped) > 1:  # \xHH, \uHHHH
        return chr(int(escaped[1:], 16))
    return _ESCAPES.get(escaped, escaped)
