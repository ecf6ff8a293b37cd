"""Server-sent events parsing: whole texts (`curl -N` dumps) and live byte streams.

Follows the SSE spec where it matters for real dumps: CR, LF and CRLF line ends, `event:`,
`data:` (several lines joined with newlines), `id:`, `retry:`, comments, a single optional
space after the colon, and a message dispatched on a blank line. The JSON `type` inside `data`
is what counts; the `event:` name is advisory (protocol.md §1).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(slots=True)
class SSEMessage:
    data: str
    event: str | None = None
    id: str | None = None
    line: int = 0
    """The line of the dump where the message's first field stood (1-based)."""


class SSEDecoder:
    """Incremental decoder: feed it bytes as they arrive, get complete messages back."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._line_no = 0
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._start = 0
        self._last_was_cr = False

    def feed(self, chunk: bytes | str) -> list[SSEMessage]:
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return []
        if self._last_was_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across two chunks
        self._last_was_cr = text.endswith("\r")
        text = self._pending + text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        self._pending = lines.pop()
        out: list[SSEMessage] = []
        for line in lines:
            message = self._line(line)
            if message is not None:
                out.append(message)
        return out

    def finish(self) -> list[SSEMessage]:
        """End of stream: a message with no blank line after it still counts."""
        tail = self._decoder.decode(b"", final=True)
        out = self.feed(tail) if tail else []
        if self._pending:
            message = self._line(self._pending)
            self._pending = ""
            if message is not None:
                out.append(message)
        message = self._line("")
        if message is not None:
            out.append(message)
        return out

    def _line(self, line: str) -> SSEMessage | None:
        self._line_no += 1
        if not line:
            if not self._data:
                self._event = self._id = None
                return None
            message = SSEMessage("\n".join(self._data), self._event, self._id, self._start)
            self._data = []
            self._event = None
            self._id = None
            return message
        if line[0] == ":":
            return None
        if not self._data and self._event is None and self._id is None:
            self._start = self._line_no
        if line.startswith("data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(" ") else value)
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None


def parse_sse(text: str) -> list[SSEMessage]:
    """All messages of a complete SSE text."""
    decoder = SSEDecoder()
    return decoder.feed(text) + decoder.finish()
