"""A JSON array of events cut into its elements a piece at a time: each element's byte span and
line, for a reader that keeps the spans and reads an element back when it is shown
(tui/mcptui/io/indexed.py's `ArrayReader`).

Two readings, as tui/mcptui/io/formats.py has them. `strict`: the array whole, what
`loads` of all of the text takes (JSON as the json module reads it, each element nested at
most `MAX_DEPTH - 1` deep: the array is one level more). Else the pasted reading of a text that
is not one (cut off while written, broken inside: `_read_pasted`): values one after another,
whitespace, commas, semicolons and `]` skipped between them, a value that does not parse a
problem, read on from the next line that opens with `{`. Up to where a strict scan meets what
the whole reader refuses, both readings hold the same values: the scan says where
(`Batch.flip`) and goes on as the pasted reading from there.

Where an element ends, measured on 1 MB of bench/dumps.py's 200k-event array (one event a
line, 309 bytes an event; CPU per element on this 2-core machine under load, by
bench/array_elements.py): `json.JSONDecoder().raw_decode` on the decoded text, 2.8 µs (it
builds every value); a regex over strings and brackets with the depth kept in Python, 20 µs
(a match object for each of ~25 strings an event); msgspec reading `Raw` from the element's
start to the piece's end (it stops after the value and says where: "trailing characters
(byte N)"), 2.2 µs; msgspec reading the element's own line as `Raw`, 0.46 µs. A value that
parses whole from its start is that element (JSON is read left to right: no shorter or
longer text from that start is one value too). So the element's line is tried first
(without a comma after it), `Raw` to the piece's end where the element does not end its line
(a compact array is one line; an element of a pretty-printed one, many), and the json module
decides what msgspec refuses (NaN, a lone surrogate escape: fuzzed, msgspec takes nothing the
json module refuses). With the scan's own work (whitespace, commas, lines, depth), 4.0 µs an
element; a run of lines of one element each checked at once (`_line_run`), 1.8 µs.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add

import msgspec

from mcptui.io.read_ahead import BOM, PIECE, Pieces
from mcptui.io.recording import json_error_reason
from mcptui.io.sniff import is_response_object
from mcptui.model.jsonsafe import MAX_DEPTH, loads, raw_decode, too_deep_at
from mcptui.model.redaction import request_secrets, response_echo_secrets

WHITESPACE = b" \t\r\n"
"""JSON's whitespace: what may stand between an array's elements."""
_JSON_SPACE = re.compile(rb"[ \t\r\n]*")
_PASTE_SPACE = re.compile(rb"[ \t\r\n,;\]]*")
"""What the pasted reading skips between values."""
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abAB]")
"""msgspec says a lone surrogate's escape is "truncated" input: the json module decides."""
_TRAILING = "JSON is malformed: trailing characters (byte "
_DIGITS = b"0123456789"
COMMA, CLOSE, NEWLINE = 0x2C, 0x5D, 0x0A
NEED = -1
"""A value runs on past the text at hand: read more."""
BAD = -2
"""Not a value the whole reader takes there."""
TAIL = 16
"""Characters at a text's end in which the json module's error may come from the cut there (a
literal, a number, an escape): read more before calling it a problem."""
WINDOW = 64 << 10
"""Bytes decoded at first when the json module decides (more while it cannot tell)."""

FIRST, ELEMENT, AFTER, CLOSED, PASTED, SKIPPING, ENDED = range(7)
"""Where a scan is: after `[` (a value or `]`), after a comma (a value), after a value (a comma
or `]`), after the array (nothing but whitespace), reading values as pasted, looking for the
next line that opens with `{` after a value that did not parse, at the end."""

_skip_value = msgspec.json.Decoder(msgspec.Raw).decode
_read_values = msgspec.json.Decoder(list[msgspec.Raw]).decode


@dataclass(slots=True)
class Batch:
    """What one piece held: its complete elements, and the problems between them."""

    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    """Each element's bytes are the file's `starts[i]:ends[i]`."""
    lines: list[int] = field(default_factory=list)
    """The line each element starts on."""
    failures: list[tuple[int, int, str]] = field(default_factory=list)
    """(how many of the batch's elements come before it, line, message) of each value the
    pasted reading refuses."""
    flip: int | None = None
    """How many of the batch's elements come before the point where the text stopped being
    the array the strict reading takes (they and the others are the pasted reading's too)."""
    cut: int = 0
    """Bytes of the text scanned: the next piece starts there."""


class ArrayScan:
    """Cuts a file's pieces into elements (`scan`), from just after the array's `[`."""

    def __init__(
        self, read: Callable[[int, int], bytes], size: int, start: int, *, strict: bool
    ) -> None:
        """`read(offset, count)`: the file's bytes (`size` of them); `start`: where the
        array's first element may begin (after its `[`)."""
        self.strict = strict
        self.state = FIRST if strict else PASTED
        self.size = size
        self.read = read
        self.start = start
        before = read(0, start)
        self._line = before.count(b"\n") + 1
        """The line `_counted` is on."""
        self._counted = start
        self._line_start = before.rfind(b"\n") + 1
        """Where that line starts (after a BOM, on the first: the whole reader drops it)."""
        if not self._line_start and before.startswith(BOM):
            self._line_start = len(BOM)
        self._columns = (self._line_start, self._line_start, 0)
        """(a line's start, an offset on it, the characters between), counted last."""
        self._decoder = json.JSONDecoder()
        self._newline = -1

    def copy(self) -> ArrayScan:
        """A scan that goes on from here on its own (a look ahead: `batches`)."""
        return copy.copy(self)

    def scan(self, text: bytes, base: int, at_end: bool) -> Batch:
        """The elements of `text`, the file's bytes from `base` (where the last scan's `cut`
        left off); `at_end`: the text runs to the end of the file."""
        batch = Batch()
        view = memoryview(text)
        size = len(text)
        self._newline = -1
        pos = 0
        run = True
        while True:
            state = self.state
            if state == ENDED:
                pos = size
                break
            if state == CLOSED:
                pos = self._closed(text, base, pos, at_end, batch)
                continue
            if state == SKIPPING:
                found = text.find(b"\n{", pos)
                if found < 0:
                    if at_end:
                        self.state, pos = ENDED, size
                    else:
                        pos = max(pos, size - 1)  # a newline at the end may open the line
                    break
                self.state = state = PASTED
                pos = found + 1
            space = _PASTE_SPACE if state == PASTED else _JSON_SPACE
            pos = space.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= size:
                if at_end:
                    if self.strict:
                        self._flip(batch)  # the array is not closed
                    self.state = ENDED
                break
            byte = text[pos]
            if state == AFTER:
                if byte == COMMA:
                    self.state, pos = ELEMENT, pos + 1
                elif byte == CLOSE:
                    self.state, pos = CLOSED, pos + 1
                else:
                    self._flip(batch)
                continue
            if byte == CLOSE and state != PASTED:
                if state == FIRST:
                    self.state, pos = CLOSED, pos + 1
                else:
                    self._flip(batch)  # `[1,]`
                continue
            if self.strict and run and (not pos or text[pos - 1] == NEWLINE):
                run = False  # once a piece: most of it, or none
                after = self._line_run(text, base, pos, batch)
                if after > pos:
                    self.state, pos = ELEMENT, after
                    continue
            end = self._value_end(text, view, pos, at_end)
            if end >= 0 and self._too_deep(text, pos, end):
                end = BAD if self.strict else self._decided(text, pos, at_end, "surrogateescape")
            if end == NEED:
                break
            if end == BAD:
                if self.strict:
                    self._flip(batch)
                    continue
                failure = self._failure(text, base, pos, at_end)
                if failure is None:
                    break  # the json module needs more to say why
                batch.failures.append((len(batch.starts), *failure))
                self.state, pos = SKIPPING, pos + 1
                continue
            batch.starts.append(base + pos)
            batch.ends.append(base + end)
            batch.lines.append(self._line_at(text, base, pos))
            self.state = AFTER if self.strict else PASTED
            pos = end
        self._line_at(text, base, pos)
        batch.cut = pos
        return batch

    def _line_run(self, text: bytes, base: int, pos: int, batch: Batch) -> int:
        """The elements of a whole array written one a line (`[\\n{…},\\n{…}\\n]`) from `pos`,
        a line's start, up to the last line that ends with a comma, checked in C: those lines
        read by msgspec as one array of `Raw` values, each as long as its line (so each is
        its line), none nesting too deep. Where the run ends (after its last comma), or `pos`
        when the lines are not so (the loop reads them one by one): 1.8 µs an element of
        bench/dumps.py's 200k-event array where one at a time took 4.0 µs."""
        end = text.rfind(b",\n", pos)
        if end < 0:
            return pos
        chunk = text[pos:end]
        rows = chunk.split(b",\n")
        try:
            values = _read_values(b"[" + chunk + b"]")
        except msgspec.DecodeError:
            return pos
        lengths = list(map(len, rows))
        if list(map(len, values)) != lengths:
            return pos
        braces = map(bytes.count, rows, repeat(b"{"))
        brackets = map(bytes.count, rows, repeat(b"["))
        if max(map(add, braces, brackets)) > MAX_DEPTH - 1:
            return pos
        first = self._line_at(text, base, pos)
        starts = list(accumulate(map(add, lengths, repeat(2)), initial=base + pos))
        del starts[-1]
        batch.starts += starts
        batch.ends += map(add, starts, lengths)
        batch.lines += range(first, first + len(rows))
        return end + 1

    def to_pasted(self) -> None:
        """Read on as pasted values: the array turned out not whole further on."""
        if self.strict:
            self.strict = False
            if self.state in (FIRST, ELEMENT, AFTER):
                self.state = PASTED

    def _flip(self, batch: Batch) -> None:
        """The text is not the array the strict reading takes: read it as pasted from here."""
        if batch.flip is None:
            batch.flip = len(batch.starts)
        self.strict = False
        self.state = PASTED

    def _closed(self, text: bytes, base: int, pos: int, at_end: bool, batch: Batch) -> int:
        """After the array's `]`: the rest of the file is whitespace (as `str.strip` has it),
        or the text is not one array."""
        rest = text[pos:]
        if not at_end:
            rest += self.read(base + len(text), self.size - base - len(text))
        if rest.strip(WHITESPACE) and rest.decode("utf-8", "replace").strip():
            self._flip(batch)
            return pos
        self.state = ENDED
        return len(text)

    def _line_at(self, text: bytes, base: int, pos: int) -> int:
        """The line of `text[pos]` (each asked for after the one before)."""
        counted = self._counted - base
        if pos > counted:
            newlines = text.count(b"\n", counted, pos)
            if newlines:
                self._line += newlines
                self._line_start = base + text.rfind(b"\n", counted, pos) + 1
            self._counted = base + pos
        return self._line

    def _too_deep(self, text: bytes, start: int, end: int) -> bool:
        """Whether the element nests deeper than the reading takes: `MAX_DEPTH - 1` in a
        whole array; a pasted value deeper than `MAX_DEPTH` goes to the json module, which
        says so (`TooDeep`)."""
        limit = MAX_DEPTH - 1 if self.strict else MAX_DEPTH
        if text.count(b"{", start, end) + text.count(b"[", start, end) <= limit:
            return False
        if not self.strict:
            return True
        element = text[start:end].decode("utf-8", "surrogateescape")
        return too_deep_at("[" + element) is not None

    def _value_end(self, text: bytes, view: memoryview, pos: int, at_end: bool) -> int:
        """Where the JSON value at `pos` ends, or NEED, or BAD."""
        size = len(text)
        newline = self._newline
        if newline < pos:
            newline = text.find(b"\n", pos)
            self._newline = newline = size if newline < 0 else newline
        if newline < size or at_end:  # the value's line, without a comma after it
            end = newline
            while end > pos and text[end - 1] in WHITESPACE:
                end -= 1
            if end > pos and text[end - 1] == COMMA:
                end -= 1
                while end > pos and text[end - 1] in WHITESPACE:
                    end -= 1
            if end > pos:
                found = _value_in(text, view, pos, end)
                if found >= 0:
                    return found
                if found == BAD:
                    return self._decided(text, pos, at_end, "surrogateescape")
        found = _value_in(text, view, pos, size)  # it goes on past its line
        if found >= 0:
            if at_end or text[found - 1] not in _DIGITS:
                return found
            return NEED  # a number may go on in the next piece
        if found == NEED and not at_end and not _SURROGATE_ESCAPE.search(text, pos):
            return NEED
        return self._decided(text, pos, at_end, "surrogateescape")

    def _decided(self, text: bytes, pos: int, at_end: bool, errors: str) -> int:
        """Where the value at `pos` ends as the json module reads it (`jsonsafe.raw_decode`,
        what the pasted reading calls), or NEED, or BAD: a window of the text at a time."""
        found = self._json_value(text, pos, at_end, errors)
        return BAD if isinstance(found, ValueError) else found

    def _json_value(self, text: bytes, pos: int, at_end: bool, errors: str) -> int | ValueError:
        size = len(text)
        window = WINDOW
        while True:
            stop = min(size, pos + window)
            doc = text[pos:stop].decode("utf-8", errors)
            final = at_end and stop == size
            try:
                _, end = raw_decode(self._decoder, doc, 0)
            except json.JSONDecodeError as exc:
                if final or (exc.pos < len(doc) - TAIL and not exc.msg.startswith("Unterminated")):
                    return exc
            except ValueError as exc:  # an integer of more digits than Python converts
                return exc
            else:
                if end < len(doc) or final:
                    return pos + len(doc[:end].encode("utf-8", errors))
            if stop == size:
                return NEED
            window *= 4

    def _failure(self, text: bytes, base: int, pos: int, at_end: bool) -> tuple[int, str] | None:
        """The line and problem of a value the pasted reading refuses, as the whole reader
        words it (its column counted on the whole line); None when more must be read."""
        found = self._json_value(text, pos, at_end, "replace")
        if not isinstance(found, ValueError):
            return None  # the same window that refused it read with surrogateescape
        line = self._line_at(text, base, pos)
        if isinstance(found, json.JSONDecodeError) and "\n" not in found.doc[: found.pos]:
            found.colno = self._column(text, base, pos) + found.pos + 1
        return line, f"invalid JSON ({json_error_reason(found)})"

    def _column(self, text: bytes, base: int, pos: int) -> int:
        """Characters from the start of the line to `text[pos]` (a compact array's one line
        may start long before the piece): counted on from the last count on the same line."""
        at = base + pos
        start, seen, counted = self._columns
        if start != self._line_start or seen > at:
            start = seen = self._line_start
            counted = 0
        chunk = text[seen - base : pos] if seen >= base else self.read(seen, at - seen)
        counted += len(chunk.decode("utf-8", "replace"))
        self._columns = (start, at, counted)
        return counted


def _value_in(text: bytes, view: memoryview, start: int, stop: int) -> int:
    """Where the JSON value at `start` ends in `view[start:stop]` (read by msgspec as `Raw`:
    checked, nothing built): its end, NEED (it runs on past `stop`), or BAD (msgspec refuses
    it; the json module may not)."""
    try:
        _skip_value(view[start:stop])
    except msgspec.DecodeError as exc:
        message = str(exc)
        if message.startswith(_TRAILING):
            stop = start + int(message[len(_TRAILING) : -1]) - 1
        else:
            return NEED if "truncated" in message else BAD
    while text[stop - 1] in WHITESPACE:
        stop -= 1
    return stop


def batches(scan: ArrayScan, fd: int, size: int, start: int) -> Iterator[Batch]:
    """`scan`'s batches of a file's pieces from `start` (where its last batch was cut) to the
    end: a scan of its own (`ArrayScan.copy`) looking ahead of a reader. The first pieces are
    small (what is looked for is often near: a stream's first events echo its tools)."""
    pieces = Pieces(fd, size, start)
    piece = FIRST_LOOK
    at_end = start >= size
    while not at_end:
        base, text, at_end = pieces.take(max(piece, pieces.held))
        batch = scan.scan(text, base, at_end)
        pieces.leave(text, batch.cut)
        piece = min(PIECE, piece * 2)
        yield batch


FIRST_LOOK = 64 << 10
"""Bytes a look ahead reads first (twice more each time, up to a reader's piece)."""
TAIL_BYTES = 4096


def closing_bracket(read: Callable[[int, int], bytes], size: int) -> int | None:
    """Where the `]` is that the file's text ends with (whitespace after it, as `str.strip`
    has it), -1 when it ends with something else (a whole array does not), None when its
    last `TAIL_BYTES` are all whitespace (too odd to read lazily)."""
    tail = read(max(0, size - TAIL_BYTES), TAIL_BYTES)
    text = tail.decode("utf-8", "replace")
    kept = text.rstrip()
    if not kept:
        return None if size > len(tail) else -1
    if not kept.endswith("]"):
        return -1
    return size - len(text[len(kept) :].encode("utf-8")) - 1


KEYS = (b'"response"', b'"server_url"')
"""Where the secrets `element_secrets` takes are (an event's `response`, a Response object's
`tools`), as keys: a delta that is the word `"response"` is no hit."""


def key_hits(text: bytes, keys: tuple[bytes, ...] = KEYS) -> list[int]:
    """Where each of `keys` is a key in `text` (a colon after it, whitespace between): a byte
    search, so that only the elements that hold one are decoded."""
    found: list[int] = []
    for key in keys:
        at = text.find(key)
        while at >= 0:
            after = at + len(key)
            if text[after : after + 16].lstrip(WHITESPACE).startswith(b":"):
                found.append(at)
            at = text.find(key, after)
    return sorted(found)


def element_secrets(element: bytes, *, strict: bool) -> tuple[list[str], bool]:
    """The secrets the whole reader takes from an element (formats.py's `_known_secrets`):
    those of the request a Response object names, when a whole array holds one (a snapshot),
    else those of the Response an event echoes. Second: whether it is such a snapshot."""
    try:
        obj = loads(element)
    except ValueError:
        return [], False
    if not isinstance(obj, dict):
        return [], False
    if strict and "type" not in obj and is_response_object(obj):
        return request_secrets(obj), True
    return response_echo_secrets(obj), False
