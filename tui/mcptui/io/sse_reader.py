"""An SSE dump (`curl -N` saved to a file) read a piece at a time, so the app shows its start at
once and reads the rest between frames, as it does a recording (tui/mcptui/io/indexed.py).

Read whole, a 200k-event SSE text took seconds before the first screen. Here the file is fed
to the same incremental decoder a live stream uses (`SSEDecoder`), a piece at a time, and each
message becomes what tui/mcptui/io/formats.py's whole-text reading makes of it (`_read_sse`):
the same events, lines and problems, a run of identical events with no type folded into its
first.

While the file is as the API sends it (`event: X` / `data: {...}` blocks, LF line ends), each
piece's whole blocks are split on bytes and each event is kept as its `data:` payload's bytes,
read by mcptui/model/fast_read.py as a live stream's are (`_fast_blocks`): not a dict an event.
Made into dicts (the reference decoder's way), a 200k-event dump took 3.7x `json.loads`'s CPU
and 1.5 KB an event. A payload with anything to hide, or that the fast reader does not take,
and every block of another shape, goes the reference way.

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
from mcptui.model.fast_read import (
    LITE_FAILURES,
    TEXT_DELTA,
    classified,
    decode_delta,
    decode_lite,
    decoded,
    plain_delta,
)
from mcptui.model.ingest import collector_paused, regular_blocks
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import (
    merge_secrets,
    redact_event,
    response_echo_secrets,
    written_needs_redaction,
)
from mcptui.model.sse import SSEDecoder, SSEMessage

ECHOED = b'"server_url"'
ECHO_LINE = 256 << 20
"""The longest line searched for echoes (else the whole reader takes the file): a 1M-event
stream's `response.completed` holds all its text, 30 MB on one `data:` line, which the
16 MB bound of other searches sent, and the whole file with it, to the whole reader (first
screen 16.7 s; decoding that one line: a few tenths of a second)."""


class Unsure(Exception):
    """The file holds an echo of a server URL that is not a `data:` line of JSON."""


def echoed_secrets(file: BinaryIO) -> list[str]:
    """The secrets of the server URLs every Response object of the stream echoes, found before
    any event is read (formats.py's `_known_secrets` of an SSE text). Raises `Unsure` when a
    line that names one cannot be read alone."""
    found: set[str] = set()
    for line in lines_holding(file, (ECHOED,), ECHO_LINE):
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
        self._fast_line: int | None = 1
        """The line the next block starts on while blocks are read fast (None: the decoder
        reads, with a block open)."""
        self._tail = b""
        """The start of a block the last piece cut, read fast with the next piece."""
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
            out = self._entries(piece, at_end)
        for index, event in enumerate(out, self.emitted):
            event.index = index
        self.emitted += len(out)
        self.others = out
        if self.collect:
            self.loaded.events.extend(out)
        if at_end:
            self.done = True
        return out

    def _entries(self, piece: bytes, at_end: bool) -> list[Event]:
        line = self._fast_line
        if line is not None:  # no block open: this piece's whole blocks may be read fast
            piece, self._tail = self._tail + piece, b""
            end = piece.rfind(b"\n\n") + 2
            blocks = piece[:end].split(b"\n")
            count = len(blocks) // 3
            if (
                count
                and len(blocks) == 3 * count + 1
                and b"\r" not in piece
                and max(map(len, blocks)) <= self._decoder.max_block
                and regular_blocks(blocks, count)
            ):
                self._fast_blocks(blocks[1::3], line)
                line += 3 * count
                self._fast_line, piece = line, piece[end:]
                if not at_end:  # a block the piece's end cut: read with the next piece
                    piece, self._tail = b"", piece
            if piece or at_end:
                self._decoder.set_line(line)
        if piece:  # any other shape: the reference decoder's way, until a block ends
            self._messages(self._decoder.feed(piece))
            self._fast_line = self._decoder.next_line()
        if at_end:
            self._messages(self._decoder.finish())
            self._keeper.close()
        sink = self._sink
        out, sink.events = sink.events, []
        self._redacted(out, at_end)
        return out

    def _messages(self, messages: list[SSEMessage]) -> None:
        keeper, problems = self._keeper, self._sink.problems
        for line, obj, problem in message_entries(messages):
            if obj is not None:
                keeper.add(obj, line)  # says NO_TYPE itself
            elif problem is not None:
                problems.append(Problem(line, problem))

    def _fast_blocks(self, data_lines: list[bytes], line: int) -> None:
        """Blocks `event: X` / `data: {...}` from line `line`, each kept as its payload's bytes
        when the fast reader takes it and nothing in it is to hide; else read as the decoder
        reads it (`_messages`)."""
        known = self.loaded.secrets
        keeper = self._keeper
        events = self._sink.events
        same = ""
        for data in data_lines:
            payload = data[6:]
            try:
                delta = decode_delta(payload)
            except LITE_FAILURES:
                pass  # not a text delta (or an odd one): read as a `Lite` below
            else:
                if plain_delta(delta, payload, known):
                    if delta.item_id == same:
                        delta.item_id = same  # one string for a run's id, not one a delta
                    else:
                        same = delta.item_id
                    keeper.close()
                    events.append(
                        Event(None, 0, None, line, False, None, payload, TEXT_DELTA, delta)
                    )
                    line += 3
                    continue
            lite = decoded(decode_lite, payload)
            read = None if lite is None else classified(lite, payload, known)
            if read is not None and not written_needs_redaction(payload, known):
                keeper.close()
                events.append(Event(None, 0, None, line, False, None, payload, *read))
            else:
                message = SSEMessage(payload.decode("utf-8", "replace"), line=line)
                self._messages([message])
            line += 3

    def _redacted(self, out: list[Event], at_end: bool) -> None:
        """Each item's deltas redacted on their joined text, and every event read as a dict
        redacted (one kept as its payload was found to have nothing to hide)."""
        known = self.loaded.secrets
        ready = self._scrubber.push_all(out, known)
        if at_end:
            ready += self._scrubber.release(known)
        for event in ready:
            if event.payload is None:
                event.raw = redact_event(event.raw, known)

    def close(self) -> None:
        """Nothing to stop (the interface of `RecordingReader`)."""

    def read_all(self) -> Loaded:
        while not self.done:
            self.read()
        return self.loaded
