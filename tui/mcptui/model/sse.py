"""Server-sent events parsing: whole texts (`curl -N` dumps) and live byte streams.

Follows the SSE spec where it matters for real dumps: CR, LF and CRLF line ends, `event:`,
`data:` (several lines joined with newlines), `id:`, `retry:`, comments, a single optional
space after the colon, and a message dispatched on a blank line. The JSON `type` inside `data`
is what counts; the `event:` name is advisory (protocol.md §1).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(slots=True)
class SSEMessage:
    data: str
    event: str | None = None
    id: str | None = None
    line: int = 0
    """The line of the dump where the message's first field stood (1-based)."""
    error: str | None = None
    """Set instead of data for a block that could not be kept (larger than the limit)."""


MAX_BLOCK = 64 << 20
"""Largest message kept (64 MiB of text): a stream with no blank line must not grow forever."""


class SSEDecoder:
    """Incremental decoder: feed it bytes as they arrive, get complete messages back.

    Works on whole blocks (text up to a blank line): the common block `event: X\ndata: {...}`
    takes a fast path, anything else goes through the general field parser.
    """

    def __init__(self, max_block: int = MAX_BLOCK) -> None:
        self.max_block = max_block
        self._open_size = 0
        self._skipping = False
        """Inside a block already dropped for its size: discard until it ends."""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._parts: list[str] = []
        """Chunks of a block still open, kept apart: joining them on every chunk made a
        40 MB data line cost 18 s (quadratic); they are joined once, when the block ends."""
        self._pending_ends_lf = False
        self._line_no = 1
        """The line number of the block still open's first line."""
        self._last_was_cr = False

    def feed(self, chunk: bytes | str) -> list[SSEMessage]:
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return []
        if self._last_was_cr and text[0] == "\n":
            text = text[1:]  # the LF of a CRLF split across two chunks
        self._last_was_cr = text.endswith("\r")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text:
            return []
        if "\n\n" not in text and not (self._pending_ends_lf and text[0] == "\n"):
            self._pending_ends_lf = text.endswith("\n")
            if self._skipping:  # keep a final LF: with the next chunk's it ends the block
                self._parts = ["\n"] if text.endswith("\n") else []
                return []
            self._parts.append(text)  # still inside a block: no join, no rescan
            self._open_size += len(text)
            if self._open_size > self.max_block:
                return [self._drop()]
            return []
        dropped = self._skipping
        self._skipping = False
        self._open_size = 0
        text = "".join(self._parts) + text
        self._parts.clear()
        blocks = text.split("\n\n")
        last = blocks.pop()
        self._parts.append(last)
        self._open_size = len(last)
        self._pending_ends_lf = last.endswith("\n")
        out: list[SSEMessage] = []
        if dropped and blocks:  # the rest of a block too large to keep
            self._line_no += blocks.pop(0).count("\n") + 2
        line_no = self._line_no
        for block in blocks:
            if block.startswith("event:"):
                newline = block.find("\n")
                if (
                    newline > 0
                    and block.startswith("data:", newline + 1)
                    and block.find("\n", newline + 1) < 0
                ):
                    event = block[6:newline]
                    data = block[newline + 6 :]
                    out.append(
                        SSEMessage(
                            data[1:] if data[:1] == " " else data,
                            event[1:] if event[:1] == " " else event,
                            None,
                            line_no,
                        )
                    )
                    line_no += 3
                    continue
            message = _parse_block(block, line_no)
            if message is not None:
                out.append(message)
            line_no += block.count("\n") + 2
        self._line_no = line_no
        return out

    def next_line(self) -> int | None:
        """The line the next block starts on when all that was fed made whole blocks (a
        reader may read what follows itself, then `set_line`); None while one is open."""
        if self._skipping or self._last_was_cr or any(self._parts) or self._decoder.getstate()[0]:
            return None
        return self._line_no

    def set_line(self, line: int) -> None:
        """Number the next block's first line `line` (a reader that parsed the start)."""
        self._line_no = line

    def _drop(self) -> SSEMessage:
        """The open block passed `max_block`: let it go, say so, skip to its end."""
        ends_lf = bool(self._parts) and self._parts[-1].endswith("\n")
        self._parts = ["\n"] if ends_lf else []
        size, self._open_size = self._open_size, 0
        self._skipping = True
        return SSEMessage(
            "",
            line=self._line_no,
            error=(
                f"a message larger than {self.max_block:,} characters ({size:,} so far) was dropped"
            ),
        )

    def finish(self) -> list[SSEMessage]:
        """End of stream: a message with no blank line after it still counts."""
        tail = self._decoder.decode(b"", final=True)
        out = self.feed(tail) if tail else []
        pending = "".join(self._parts)
        self._parts.clear()
        if pending:
            message = _parse_block(pending.rstrip("\n"), self._line_no)
            if message is not None:
                out.append(message)
        return out


def _parse_block(block: str, first_line: int) -> SSEMessage | None:
    """The general case: any mix of fields, comments and multi-line data in one block."""
    data: list[str] = []
    event: str | None = None
    event_id: str | None = None
    start = 0
    for offset, line in enumerate(block.split("\n")):
        if not line or line[0] == ":":
            continue
        if not start:
            start = first_line + offset
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            event_id = value
    if not data:
        return None
    return SSEMessage("\n".join(data), event, event_id, start)


def iter_sse(text: str, piece: int = 1 << 20) -> Iterator[SSEMessage]:
    """The messages of a complete SSE text, read a piece at a time: `parse_sse` held every
    message of a 30 MB text of 3M `data: {}` at once (gigabytes) before the first was used."""
    decoder = SSEDecoder()
    for start in range(0, len(text), piece):
        yield from decoder.feed(text[start : start + piece])
    yield from decoder.finish()


def parse_sse(text: str, first_line: int = 1) -> list[SSEMessage]:
    """All messages of a complete SSE text (its first line numbered `first_line`)."""
    decoder = SSEDecoder()
    decoder.set_line(first_line)
    return decoder.feed(text) + decoder.finish()
