"""An SSE dump (`curl -N` saved to a file) read a piece at a time, so the app shows its start at
once and reads the rest between frames, as it does a recording (tui/mcptui/io/indexed.py).

Read whole, a 200k-event SSE text took seconds before the first screen. Here the file is fed
to the same incremental decoder a live stream uses (`SSEDecoder`), a piece at a time, and each
message becomes what tui/mcptui/io/formats.py's whole-text reading makes of it (`_read_sse`):
the same events, lines and problems, a run of identical events with no type folded into its
first. Its events are dicts, as the whole reader's are (an SSE event's JSON is not one line to
read back by offset).

Secrets: the whole reader hides the tokens of the MCP server URLs that the stream's Response
objects echo (`response.created`'s tools) in every event. Here they must be known before the
first event: `echoed_secrets` finds them first with a byte search for `"server_url"`. A file
where such an echo is not one `data:` line of JSON is left to the whole reader.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from mcptui.io.answers import TypelessKeeper, message_entries
from mcptui.io.read_ahead import BOM, PIECE, lines_holding
from mcptui.io.recording import Loaded, Problem
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event
from mcptui.model.ingest import collector_paused
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import merge_secrets, redact_event, response_echo_secrets
from mcptui.model.sse import SSEDecoder, SSEMessage

ECHOED = b'"server_url"'


class Unsure(Exception):
    """The file holds an echo of a server URL that is not a `data:` line of JSON."""


def echoed_secrets(file: BinaryIO) -> list[str]:
    """The secrets of the server URLs every Response object of the stream echoes, found before
    any event is read (formats.py's `_known_secrets` of an SSE text). Raises `Unsure` when a
    line that names one cannot be read alone."""
    found: set[str] = set()
    for line in lines_holding(file, (ECHOED,)):
        if line is None:
            raise Unsure  # a line too long to search: the whole reader takes the file
        found.update(_secrets_in(line.rstrip(b"\r")))
    return merge_secrets(sorted(found))


def _secrets_in(line: bytes) -> list[str]:
    if not line.startswith(b"data:"):
        return []  # a comment or another field: no event of the stream
    try:
        obj = loads(line[5:])
    except ValueError:
        raise Unsure from None  # one line of a JSON text spread over several `data:` lines
    return response_echo_secrets(obj) if isinstance(obj, dict) else []


class SSEReader:
    """Reads an SSE dump a piece at a time into `loaded` (the interface of
    `indexed.RecordingReader` that a session and `inspect` use)."""

    def __init__(self, source: str, file: BinaryIO, secrets: list[str]) -> None:
        self.file = file
        self.size = os.fstat(file.fileno()).st_size
        self.loaded = Loaded(format="SSE", source=source, secrets=secrets)
        self.collect = True
        """Keep the events in `loaded.events` too (`Session.reading` turns this off)."""
        self.done = False
        self.others: list[Event] = []
        """The entries of the last `read` (all of them: none is a text delta read fast)."""
        self.emitted = 0
        self.waiting = False
        """Never: no helper reads ahead."""
        self.relearned = False
        """Never: no event is read twice (the interface of `indexed.ArrayReader`)."""
        self._offset = 0
        self._decoder = SSEDecoder()
        self._sink = Loaded(problems=self.loaded.problems)
        self._keeper = TypelessKeeper(self._sink)
        self._scrubber = DeltaScrubber()

    @property
    def fraction(self) -> float:
        return 1.0 if self.done or not self.size else min(1.0, self._offset / self.size)

    def read(self, size: int = PIECE, *, wait: bool = True) -> list[Event]:
        """The entries of the next `size` bytes (all that is left at the end of the file)."""
        del wait  # nothing reads ahead: a piece is always at hand
        self.others = []
        if self.done:
            return []
        piece = os.pread(self.file.fileno(), size, self._offset)
        first = not self._offset
        self._offset += len(piece)
        at_end = len(piece) < size or self._offset >= self.size
        if first:
            piece = piece.removeprefix(BOM)  # formats.py drops it from the text
        with collector_paused():
            messages = self._decoder.feed(piece)
            if at_end:
                messages += self._decoder.finish()
            out = self._entries(messages, at_end)
        for index, event in enumerate(out, self.emitted):
            event.index = index
        self.emitted += len(out)
        self.others = out
        if self.collect:
            self.loaded.events.extend(out)
        if at_end:
            self.done = True
        return out

    def _entries(self, messages: list[SSEMessage], at_end: bool) -> list[Event]:
        keeper, sink = self._keeper, self._sink
        for line, obj, problem in message_entries(messages):
            if obj is not None:
                keeper.add(obj, line)  # says NO_TYPE itself
            elif problem is not None:
                sink.problems.append(Problem(line, problem))
        if at_end:
            keeper.close()
        out, sink.events = sink.events, []
        known = self.loaded.secrets
        push = self._scrubber.push
        for event in out:
            for ready in push(event, known):
                ready.raw = redact_event(ready.raw, known)
        if at_end:
            for ready in self._scrubber.release(known):
                ready.raw = redact_event(ready.raw, known)
        return out

    def close(self) -> None:
        """Nothing to stop (the interface of `RecordingReader`)."""

    def read_all(self) -> Loaded:
        while not self.done:
            self.read()
        return self.loaded
