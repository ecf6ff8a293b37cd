"""Recordings read fast and a piece at a time: an index of line offsets, not a dict an event.

A recording of a million events is 340 MB of JSON lines. Reading it whole into dicts took 7 s
and 4 KB an event before the first screen. Here each line is read by mcptui/model/fast_read.py (its
type, time and, for a text delta, what the fold needs), its offset goes into an array, and the
event's JSON is read back from the file by that offset when something shows or checks it
(`FileLines.event_at`). `RecordingReader.read` takes the file a few megabytes at a time, so the
app paints its first screen after the first piece and folds in the rest while the user looks.

Anything unusual on a line (the header, a note, invalid JSON, an odd field) goes through the
tolerant reader (`read_record`), so what is accepted, refused and reported is unchanged.
Past the first piece of a big file, a helper process reads ahead and decodes the text deltas
(mcptui/io/read_ahead.py): the app builds their events from its lists and reads the other lines
here. Credentials are hidden as the whole-file reader hides them: on the way out of `event_at`, with
the secrets the header and the request notes name.
"""

from __future__ import annotations

import copy
import os
import stat
from array import array
from bisect import bisect_right
from collections.abc import Callable
from functools import partial
from itertools import pairwise, repeat
from typing import Any, BinaryIO

from mcptui.io.answers import NO_TYPE, folded_typeless
from mcptui.io.json_array import (
    ArrayScan,
    Batch,
    batches,
    closing_bracket,
    element_secrets,
    key_hits,
)
from mcptui.io.read_ahead import (
    AHEAD_AFTER,
    AHEAD_PIECE,
    BOM,
    PIECE,
    Ahead,
    Pieces,
    PieceScan,
    lines_holding,
    lines_of,
    may_start_helper,
    starts_of,
)
from mcptui.io.recording import (
    Loaded,
    Problem,
    Problems,
    is_header,
    json_error_reason,
    read_record,
    unreadable_line,
)
from mcptui.io.scrub import DeltaScrubber
from mcptui.io.sniff import (
    HEAD_BYTES,
    is_array_head,
    is_json_lines_head,
    is_response_object,
    is_sse_head,
    sample_holds_record,
)
from mcptui.io.sse_reader import SSEReader, Unsure, echoed_secrets
from mcptui.model.events import Event
from mcptui.model.fast_read import (
    LITE_FAILURES,
    SHALLOW_DELTA,
    TEXT_DELTA,
    Delta,
    classified,
    decode_delta,
    decode_delta_record,
    decode_lite,
    decode_record,
    decoded,
)
from mcptui.model.ingest import collector_paused
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import (
    SharedTexts,
    hide_known,
    redact,
    redact_event,
    request_secrets,
    response_echo_secrets,
)

SNIFF = 64 << 10
BLOCK = 256 << 10
"""Bytes read at a time to read events back (`FileLines.text_of`): about 700 events."""
KEPT_FOR_AGAIN = 1024
"""Events read back and kept for one more read, at most (`FileLines.event_at`)."""


def recording_reader(path: str, max_bytes: int) -> PieceReader | None:
    """A reader for `path` when it is a regular file, within `max_bytes`, that opens with a
    recording's header or is one JSON event per line (a dump: `bare`), or an SSE text
    (tui/mcptui/io/sse_reader.py); None for anything else (the whole-file readers take it)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # never opened: opening a FIFO blocks until a writer comes, and
            # closing it again loses what its writer sent (the whole-file reader takes it)
        # Not blocking: replaced by a FIFO since? Opened by name (`file.name` is the path the
        # reading helper opens again; `os.fdopen` named it by its descriptor, and the helper
        # never started). Kept open by the reader, or closed here.
        file = open(path, "rb", opener=_without_blocking)  # noqa: SIM115
    except OSError:
        return None
    try:
        info = os.fstat(file.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size <= max_bytes:
            if is_recording_start(os.pread(file.fileno(), SNIFF, 0)):
                return RecordingReader(path, file)
            head = os.pread(file.fileno(), HEAD_BYTES, 0)
            whole = len(head) >= info.st_size
            if is_json_lines_head(head, whole=whole):
                return RecordingReader(path, file, bare=True)
            if is_array_head(head, whole=whole):
                reader = array_reader(path, file)
                if reader is not None:
                    return reader
            elif is_sse_head(head, whole=whole):
                try:
                    return SSEReader(path, file, echoed_secrets(file))
                except Unsure:
                    pass
    except OSError:
        pass
    file.close()
    return None


def _without_blocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)


NOTED = b'"request"'
"""What the header and a `request` note hold their request under (in an event's text a
quote is escaped: `\\"request\\"`)."""
ECHOED = b'"server_url"'
"""What a Response object's `tools` name their MCP servers' URLs under: a recording with no
request still holds them (`response.created`), and their tokens are hidden from the start."""


def noted_secrets(file: BinaryIO, *, bare: bool = False) -> list[str]:
    """The secrets of every request a recording holds (its header's and its `request`
    notes'), found before any event is read: a delta that echoes a token before the note
    that names it is hidden too. One pass of a byte search over the file; only the lines
    holding a request are decoded."""
    found: list[str] = []
    for line in lines_holding(file, (NOTED, ECHOED)):
        if line is not None:  # a line too long to search is read (and redacted) the usual way
            found += _request_secrets_in(line, bare)
    return found


def _request_secrets_in(line: bytes, bare: bool = False) -> list[str]:
    try:
        record = loads(line)
    except ValueError:
        return []
    if not isinstance(record, dict):
        return []
    if bare:  # an event of a dump: a Response it echoes (formats.py's `_known_secrets`)
        return response_echo_secrets(record)
    body = record.get("note") if isinstance(record.get("note"), dict) else record
    if not isinstance(body, dict):
        return []
    event = body.get("event")
    echoed = event.get("response") if isinstance(event, dict) else None
    return request_secrets(body.get("request")) + request_secrets(echoed)


def is_recording_start(head: bytes) -> bool:
    """Whether a file opening with `head` is an mcptui recording (its first line a header)."""
    head = head.removeprefix(BOM).lstrip()
    first = head.split(b"\n", 1)[0]
    try:
        return is_header(loads(first))
    except ValueError:
        return False


class FileLines:
    """Where the events of a recording are: each line's offset, read back on demand."""

    unit = "line"
    """What an event is read back from, as a message names it."""

    def __init__(self, file: BinaryIO, source: str, *, bare: bool = False) -> None:
        self.file = file
        self.source = source
        self.bare = bare
        """Each line is an event itself (a dump), not a recording's `{"t", "event"}`."""
        self.starts = array("q")
        """Byte offset of each line (line N starts at starts[N - 1]); one more at the end."""
        self.known: list[str] = []
        """Secrets the request names (request_secrets), hidden wherever they appear."""
        self.limit = 0
        """Where the lines read so far end (the last one's end while reading)."""
        self._shared = SharedTexts()
        """Verdicts on the long texts that an item's `.done` events each repeat."""
        self._plain = bytearray()
        """1 at a line read back before with nothing to hide: each check, the fold and the
        report read every event that is not a text delta back (20 MB of them on a 200k-event
        dump, four times over), and its search for secrets is done once (`_read_back`)."""
        self._again: dict[int, dict[str, Any]] = {}
        """Events read back lately, each kept for one more read: an instant replay's fold
        reads an `output_item.done` right after the failure scan of its piece did (10 KB
        of JSON to decode and search for secrets each time)."""
        self._block: tuple[int, bytes] = (0, b"")
        """Bytes of the file held to read lines back from (their offset and the bytes): the
        piece just read (`hold`: the failure scan and an instant replay's fold read its events
        back next), else the last block read back (lines read in order, as the checks read an
        item's events, come from one read a block; a read costs about 9 µs here, as much as
        decoding a line). One tuple, swapped whole: a thread reading it meanwhile sees an old
        block or the new."""

    def learn(self, secrets: set[str]) -> None:
        """Hide these secrets too from here on (none read back before is kept)."""
        self.known[:] = sorted({*self.known, *secrets}, key=len, reverse=True)
        self._again.clear()
        self._plain = bytearray()

    def event_at(self, line: int) -> dict[str, Any]:
        body = self._again.pop(line, None)
        if body is None:
            body = self._read_back(line)
            if len(self._again) >= KEPT_FOR_AGAIN:
                self._again.clear()  # nobody read them again: a bound, not a cache policy
            self._again[line] = body
        return body

    def hold(self, offset: int, text: bytes) -> None:
        """Read lines back from `text`, the file's bytes from `offset`, while they last."""
        self._block = (offset, text)

    def span(self, line: int) -> tuple[int, int]:
        """Where line `line` starts and ends in the file (its newline included)."""
        starts = self.starts
        return starts[line - 1], starts[line] if line < len(starts) else self.limit

    def ended(self, offset: int) -> None:
        """All is read, up to `offset`: the last line ends there."""
        self.starts.append(offset)

    def text_of(self, line: int) -> bytes:
        """Line `line` as written (with its newline, but the file's last)."""
        return self._bytes(*self.span(line))

    def span_of(self, first: int, last: int) -> bytes | None:
        """Lines `first` to `last` as written, in one piece (None where they are not one
        piece of the file: `ArrayElements`)."""
        return self._bytes(self.span(first)[0], self.span(last)[1])

    def _bytes(self, start: int, end: int) -> bytes:
        """The file's bytes from `start` to `end`: from the block held when it holds them,
        else from a block read from `start` and held (lines read in order come from it)."""
        offset, block = self._block
        if offset <= start and end <= offset + len(block):
            return block[start - offset : end - offset]
        if end - start >= BLOCK:  # as big as a block: read alone, the block kept
            return os.pread(self.file.fileno(), end - start, start)
        block = os.pread(self.file.fileno(), BLOCK, start)
        self.hold(start, block)
        return block[: end - start]

    def _read_back(self, line: int) -> dict[str, Any]:
        try:
            text = self.text_of(line)
            record = loads(text)
            body = record if self.bare else record.get("event", record.get("note"))
        except (OSError, ValueError, AttributeError):
            body = None
        if not isinstance(body, dict):
            return {
                "type": "mcptui.unreadable",
                "message": f"{self.unit} {line} of {self.source} changed since it was read",
            }
        plain = self._plain
        if line < len(plain) and plain[line]:
            return body
        if not self._shared.needs_redaction(text, self.known):
            if line >= len(plain):
                plain.extend(bytes(max(line + 1, len(self.starts)) - len(plain)))
            plain[line] = 1
            return body  # nothing to hide: not serialised again to find out
        return redact_event(body, self.known)


class RecordingReader:
    """Reads a recording a piece at a time into `loaded` (events appended as they are read).

    `bare`: a dump of one JSON event per line (the `*.chunks.txt` of other SDKs, a log of
    events) read the same way, each line an event with no time, with what
    tui/mcptui/io/formats.py's whole-text reading says of its lines (the same problems, a run
    of identical events with no type folded into its first): a 200k-event dump read whole
    took 3.8 KB an event and several seconds before the first screen."""

    def __init__(
        self,
        source: str,
        file: BinaryIO,
        *,
        bare: bool = False,
        lines: FileLines | None = None,
        secrets: list[str] | None = None,
    ) -> None:
        """Read `file`, a regular file kept open: events are read back by offset (`inspect`
        of 200k events peaks at 3.9x the file, against 5.0x holding it in memory too).
        `lines` and `secrets`: where the events are and the secrets to hide, when a reader
        of another layout knows them (`ArrayReader`)."""
        self.size = os.fstat(file.fileno()).st_size
        self.bare = bare
        self.lines = FileLines(file, source, bare=bare) if lines is None else lines
        self._header_read = False
        self.collect = True
        """Keep the events in `loaded.events` too (a session keeps them in its timeline
        instead: `Session.reading` turns this off)."""
        self.relearned = False
        """The events read so far were read again (`ArrayReader._redo`): a state folded from
        them is stale (`Session.load_more` folds it again)."""
        self.loaded = Loaded(format="JSON lines" if bare else "mcptui recording", source=source)
        self._typeless: dict[str, Any] | None = None
        """A dump's run of identical events with no type: its first (`_bare_line`)."""
        self._typeless_line = 0
        self._repeats = 0
        self._unparsed: tuple[int, ValueError] | None = None
        """A dump's last line that did not parse, held until a later line that is not blank
        says it was not the last (the last is "truncated", not "invalid")."""
        self._bom = os.pread(file.fileno(), len(BOM), 0) == BOM
        self.done = False
        self._pieces = Pieces(file.fileno(), self.size)
        self._number = 0
        self.emitted = 0
        """Events read so far: the next one's index in a timeline that holds them all."""
        self.others: list[Event] = []
        """The entries of the last `read` that are not text deltas read fast (in order)."""
        self._ahead: Ahead | None = None
        """The helper decoding text deltas a piece ahead (mcptui/io/read_ahead.py), once started."""
        self.helper_after = AHEAD_AFTER
        """Bytes left to read at which the helper is started (after the first piece)."""
        self._helper_tried = False
        self.helper_piece = AHEAD_PIECE
        """Bytes the helper reads at a time."""
        self.helped = 0
        """Pieces the helper has read."""
        self._scrubber = DeltaScrubber()
        self.lines.learn(set(noted_secrets(file, bare=bare) if secrets is None else secrets))
        self.loaded.secrets = self.lines.known  # the same list: `learn` adds to it in place
        self._eager: list[tuple[Event, int]] = []
        """Entries read whole (notes, odd lines), each with how many secrets were known when
        it was redacted: redacted again at the end when more are known by then (a final
        response of a million-event stream is 24 MB of JSON: 0.2 s a pass)."""

    @property
    def lines_read(self) -> int:
        """Lines read so far, a last one with no newline yet included."""
        return self._number

    @property
    def fraction(self) -> float:
        """How much of the file is read (0..1)."""
        offset = self._pieces.offset
        return 1.0 if self.done or not self.size else min(1.0, offset / self.size)

    @property
    def waiting(self) -> bool:
        """Whether the helper's next piece is still to come (`read(wait=False)` reads none)."""
        return self._ahead is not None and not self._ahead.ready()

    def read(self, size: int = PIECE, *, wait: bool = True) -> list[Event]:
        """The entries of the next `size` bytes (all of them at the end of the file); a
        helper's next piece instead, once one is reading ahead (none while it is `waiting`,
        unless `wait`). Each item's deltas are redacted on their joined text (a secret split
        across them; tui/mcptui/io/scrub.py): a delta's tail held back is put back in it with the
        next delta, before anything shows it."""
        out = self._read(size, wait=wait)
        known = self.lines.known
        self._scrubber.push_all(out, known)
        if self.done:
            self._scrubber.release(known)
        return out

    def _read(self, size: int, *, wait: bool) -> list[Event]:
        self.others = []
        if self.done or (not wait and self.waiting):
            return []
        if self._ahead is not None:
            scan = self._ahead.next()
            if scan is not None:
                self.helped += 1
                return self._take(scan)
            self._ahead = None  # it failed: read on here, from the first piece it did not send
        base, text, cut, at_end = self._pieces.next(size)
        self.lines.hold(base, text)
        if (
            not at_end
            and not self._helper_tried
            and self.size - (base + cut) >= self.helper_after
            and may_start_helper()
        ):
            self._start_helper(base + cut)
        out = self._entries(text, cut, base)
        self.lines.limit = base + cut
        if at_end:
            self._finish()
        return out

    def _start_helper(self, start: int) -> None:
        self._helper_tried = True  # once: a helper that failed to start is not tried again
        try:
            self._ahead = Ahead(
                self.lines.file.name, start, self.size, self.helper_piece, bare=self.bare
            )
        except (OSError, ValueError, RuntimeError):
            return  # no process to be had: read here

    def close(self) -> None:
        """Stop the helper, if one is reading (the file stays open for reading events back)."""
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None

    def read_all(self) -> Loaded:
        """The whole file, read here: a helper reading ahead lets the app paint while the
        rest is read, but a command that waits for all of it (`inspect`, `report`) mostly
        pays it twice: `inspect --json` of a 200k-event dump took 2.75-2.86 s of CPU and
        2.38-2.48 s of wall with one, 2.47-2.58 s of both without (2 idle cores)."""
        self._helper_tried = True
        while not self.done:
            self.read(AHEAD_PIECE)
        return self.loaded

    def _entries(self, text: bytes, cut: int, base: int) -> list[Event]:
        with collector_paused():  # all of it lives as long as the session: nothing to collect
            out = self._scan(text, cut, base)
        if self.collect:
            self.loaded.events.extend(out)
        return out

    def _scan(self, text: bytes, cut: int, base: int) -> list[Event]:
        rows = lines_of(text, cut)
        self.lines.starts.extend(starts_of(rows, base))
        out: list[Event] = []
        self._rows(rows, out)
        return out

    def _rows(self, rows: list[bytes], out: list[Event]) -> None:
        """Read each of `rows`, the lines that follow those read so far, into `out`. A dump's
        line (`bare`) is the event itself, with no time; its first line (it may hold a BOM)
        and every line while an odd one is open (`_open`) go through `_bare_line`."""
        append, other = out.append, self.others.append
        lines = self.lines
        known = lines.known
        bare = self.bare
        number, index = self._number, self.emitted
        same = ""
        odd = bare and (number == 0 or self._open)
        t: float | None = None
        for line in rows:
            number += 1
            if not odd:
                try:
                    if bare:
                        read = decode_delta(line)
                    else:
                        delta = decode_delta_record(line)
                        read, t = delta.event, delta.t
                except LITE_FAILURES:
                    pass  # not a text delta (or an odd one): read as a `Lite` below
                else:
                    text = read.delta  # `plain_delta`, inlined: most lines of every dump
                    if (
                        not ("sk-" in text or "://" in text or "earer" in text or "Basic" in text)
                        and not (known and any(secret in text for secret in known))
                        and len(line) - len(text) - len(read.item_id) <= SHALLOW_DELTA
                    ):
                        if read.item_id == same:
                            read.item_id = same  # one string for a run's id, not one a delta
                        else:
                            same = read.item_id
                        append(Event(None, index, t, number, False, None, lines, TEXT_DELTA, read))
                        index += 1
                        continue
                if bare:
                    lite = decoded(decode_lite, line)
                else:
                    record = decoded(decode_record, line)
                    lite, t = (None, None) if record is None else (record.event, record.t)
                kinded = None if lite is None else classified(lite, line, known)
                if kinded is not None:
                    kept = Event(None, index, t, number, False, None, lines, *kinded)
                    append(kept)
                    other(kept)
                    index += 1
                    continue
            event: Event | None
            if bare:
                event = self._bare_line(number, line)
                odd = self._open
            else:
                event = self._tolerant(number, line)
            if event is None:
                continue
            event.index = index
            append(event)
            other(event)
            index += 1
        self._number, self.emitted = number, index

    @property
    def _open(self) -> bool:
        return self._typeless is not None or self._unparsed is not None

    def _bare_line(self, number: int, line: bytes) -> Event | None:
        """A dump's line as formats.py's `_read_json_lines` reads it: a blank line is
        skipped, a line that is not JSON or not an object is a problem, an event with no type
        is kept with a problem (the same one again is folded into it)."""
        text = line.decode("utf-8", errors="replace")
        if number == 1 and self._bom:  # blanked by `Pieces`, or as the file has it
            text = text[1:] if text.startswith("\ufeff") else text[len(BOM) :]
        if not text.strip():
            return None
        try:
            obj = loads(text)
        except ValueError as exc:
            self._end_open(typeless=False)
            self._unparsed = (number, exc)
            return None
        if not isinstance(obj, dict):  # a run of events with no type goes on past it
            self._end_open(typeless=False)
            self._problem(number, f"expected a JSON object, got {type(obj).__name__}")
            return None
        return self._kept(obj, number)

    def _kept(self, obj: dict[str, Any], number: int) -> Event | None:
        """Event `number` of a dump, read whole: kept (redacted), unless it is one more of a
        run of identical events with no type, which is folded into the first."""
        if "type" not in obj and obj == self._typeless:
            self._end_open(typeless=False)
            self._repeats += 1
            return None
        self._end_open()
        if "type" not in obj:
            self._typeless, self._typeless_line = obj, number
            self._problem(number, NO_TYPE)
        known = self.lines.known
        event = Event(redact_event(obj, known), line=self._shown(number), _at=number)
        self._eager.append((event, len(known)))
        return event

    def _shown(self, number: int) -> int | None:
        """The line an event of entry `number` names (`Event.line`)."""
        return number

    def _problem(self, number: int, message: str) -> None:
        """A problem of entry `number` (one the whole reader has too)."""
        self.loaded.problems.append(Problem(self._shown(number), message))

    def _end_open(self, *, typeless: bool = True, last: bool = False) -> None:
        """A line that is not blank came (or the file ended: `last`): the line before that
        did not parse is a problem now, and with `typeless`, a run of events with no type is
        over (the problem that counts what was folded)."""
        problems = self.loaded.problems
        if self._unparsed is not None:
            number, exc = self._unparsed
            problems.append(unreadable_line(number, exc, last=last))
            self._unparsed = None
        if typeless and self._typeless is not None:
            if self._repeats:
                self._problem(self._typeless_line, folded_typeless(self._repeats))
            self._typeless, self._repeats = None, 0

    def _take(self, scan: PieceScan) -> list[Event]:
        """The entries of a piece the helper scanned: its deltas built from its lists, every
        other line read here, in the file's order."""
        base, cut = scan.base, scan.cut
        text = os.pread(self.lines.file.fileno(), cut, base)
        lines = self.lines
        lines.hold(base, text)
        first = len(lines.starts)
        lines.starts.frombytes(scan.starts)
        count = len(lines.starts) - first
        # Where the piece's last line ends, as if a newline ended the file's last line too.
        end = base + cut if text.endswith(b"\n") else base + cut + 1

        def rows(start: int, stop: int) -> list[bytes]:
            """Lines `start .. stop` of the piece, as written, without their newlines."""
            edges = lines.starts[first + start : first + stop + 1].tolist()
            if stop == count:
                edges.append(end)
            return [text[a - base : b - base - 1] for a, b in pairwise(edges)]

        out: list[Event] = []
        with collector_paused():
            at = taken = 0
            for other, kind, t in zip(scan.others, scan.other_kinds, scan.other_times, strict=True):
                taken = self._deltas(scan, taken, other - at, out, partial(rows, at, other))
                if kind is None:
                    self._rows(rows(other, other + 1), out)
                else:
                    self._read_later(kind, t, out)
                at = other + 1
            self._deltas(scan, taken, count - at, out, partial(rows, at, count))
        if self.collect:
            self.loaded.events.extend(out)
        lines.limit = base + cut
        self._pieces.seek(base + cut)
        if scan.at_end:
            self._finish()
        return out

    def _deltas(
        self,
        scan: PieceScan,
        taken: int,
        count: int,
        out: list[Event],
        rows: Callable[[], list[bytes]],
    ) -> int:
        """`count` text deltas the helper took, from its `taken`th (how many are taken after
        them is returned); read here (`_rows`) when one holds a secret the request names,
        which the helper does not know."""
        end = taken + count
        if not count:
            return end
        if self.bare and self._open:
            self._end_open()
        deltas = scan.deltas[taken:end]
        known = self.lines.known
        if known:
            texts = "\n".join(deltas)
            if any(secret in texts for secret in known):
                self._rows(rows(), out)
                return end
        index, number = self.emitted, self._number
        out.extend(
            map(
                Event,
                repeat(None),
                range(index, index + count),
                scan.times[taken:end],
                range(number + 1, number + count + 1),
                repeat(False),
                repeat(None),
                repeat(self.lines),
                repeat(TEXT_DELTA),
                map(Delta, scan.sequence_numbers[taken:end], scan.item_ids[taken:end], deltas),
            )
        )
        self.emitted, self._number = index + count, number + count
        return end

    def _read_later(self, kind: str, t: float | None, out: list[Event]) -> None:
        """The next line, an event of type `kind` read back when needed, as `_rows` keeps it
        (the helper found it so)."""
        if self.bare and self._open:
            self._end_open()
        self._number += 1
        event = Event(None, self.emitted, t, self._number, False, None, self.lines, kind)
        out.append(event)
        self.others.append(event)
        self.emitted += 1

    def _tolerant(self, number: int, line: bytes) -> Event | None:
        """A line the fast path does not take: the header, a note, anything odd."""
        loaded = self.loaded
        event = read_record(number, line, loaded)
        if event is None:
            if loaded.header is not None and not self._header_read:
                self._header_read = True  # its secrets first, then it is redacted
                self._learn(loaded.header.get("request"))
                loaded.header = hide_known(redact(loaded.header), self.lines.known)
            return None
        if event.is_note:
            self._learn(event.raw.get("request"))
        known = self.lines.known
        event.raw = redact_event(event.raw, known)
        self._eager.append((event, len(known)))
        return event

    def _learn(self, request: Any) -> None:
        """Hide the secrets a request names from here on."""
        found = set(request_secrets(request)) - set(self.lines.known)
        if found:
            self.lines.learn(found)

    def _finish(self) -> None:
        if self.bare:
            self._end_open(last=True)
        self.done = True
        self.close()
        self.lines.ended(self._pieces.offset)
        known = self.lines.known
        for event, known_then in self._eager:
            if len(known) > known_then:  # secrets are only ever added
                event.raw = redact_event(event.raw, known)
        self._eager.clear()


class ArrayElements(FileLines):
    """Where the elements of a JSON array are: each one's span, read back on demand (one
    line of a compact array holds them all, and one of a pretty-printed one spans many)."""

    unit = "element"

    def __init__(self, file: BinaryIO, source: str) -> None:
        super().__init__(file, source, bare=True)
        self.ends = array("q")
        """Where each element ends (`starts` says where it starts)."""

    def span(self, line: int) -> tuple[int, int]:
        return self.starts[line - 1], self.ends[line - 1]

    def ended(self, offset: int) -> None:
        """Nothing to add: each element's end is known."""

    def text_of(self, line: int) -> bytes:
        """Element `line`'s JSON, as a line (a check reads a run of text deltas in one go,
        `conformance._delta_run_shapes`)."""
        return super().text_of(line) + b"\n"

    def span_of(self, first: int, last: int) -> None:
        """None: what lies between two elements (`,` and blanks) is no line's."""
        return None


class ArrayReader(RecordingReader):
    """A JSON array of events (`json.dump(events, file)`, compact on one line, pretty-printed,
    or one element a line) read a piece at a time as a dump of one event a line is: an
    element's span instead of a line's offset (tui/mcptui/io/json_array.py finds them), its
    events read fast or whole by the same rules, and what tui/mcptui/io/formats.py's whole
    reading makes of the array: a whole array's events have no line, a Response object in
    it is a snapshot, an element that is not an object a problem; an array cut off (a crash
    while it was written) or broken inside is read as pasted values (`_read_pasted`), with
    lines, and each value that does not parse a problem.

    Whether an array is whole is known at its end. Before, it is read as one (unless it does
    not end with `]`), and where it turns out not to be (`Batch.flip`) what was read is turned
    into the pasted reading: the same elements, now with their lines, and the problems worded
    so (`_to_pasted`). A Response object is a snapshot only in a whole array: met before the
    end, the rest is scanned first to know (`_whole`).

    Secrets: the whole reader hides those that any Response the file holds names, everywhere.
    Searching the whole file for them before the first screen (as a dump of lines is searched)
    made opening a 1M-event array (335 MB) take 1.4 s, near three times what the first screen
    may take. Here each piece's
    elements that hold a Response's key are read before its events (`_learn_echoes`): what a
    stream's first events echo hides all that follows. One that names a secret none before
    did (the second stream of a file, a token in the final Response's text) has the events
    read before it read again with it (`_redo`): the same events, hidden alike. A single
    stream's last event echoes the tools its first did: nothing is read twice. No helper
    reads ahead (an element's end is found here, then its event read as a line's is)."""

    def __init__(self, source: str, file: BinaryIO, scan: ArrayScan) -> None:
        """`scan`: from just after the array's `[`."""
        super().__init__(source, file, bare=True, lines=ArrayElements(file, source), secrets=[])
        self.loaded.format = "JSON array" if scan.strict else "JSON array (incomplete)"
        self._array = scan
        self._pieces = Pieces(file.fileno(), self.size, scan.start)
        self._strict = scan.strict
        self._began_strict = scan.strict
        self._settled = not scan.strict
        """No turn to the pasted reading can come: the problems need no record for one."""
        self._flipped_at: int | None = None
        """How many elements were read as a whole array's before the turn to pasted."""
        self._element_lines = array("q")
        """The line each element starts on."""
        self._events: list[Event] = []
        """Every event read, in order (8 bytes each): what a turn or a new secret changes."""
        self._logged: list[tuple[int, str | None]] = []
        """The element of each problem kept while the array may still turn out not whole,
        and how the pasted reading words it (None: the same)."""
        self._flip_ahead = False
        """The piece being read turns to the pasted reading further on."""
        self._stale = False
        """A secret was learned after events that may hold it were read: read them again."""

    def read(self, size: int = PIECE, *, wait: bool = True) -> list[Event]:
        """`RecordingReader.read`; when a secret was learned after events were read, all read
        so far is read again instead of this piece's events being redacted alone (`_redo`)."""
        out = self._read(size, wait=wait)
        known = self.lines.known
        if self._stale:
            self._stale = False
            self._redo()
        else:
            push = self._scrubber.push
            for event in out:
                push(event, known)
        if self.done:
            self._scrubber.release(known)
        return out

    def _learn_late(self, secrets: list[str], *, after: bool) -> None:
        """Hide these secrets too; `after`: events were read before that may hold them."""
        new = set(secrets) - set(self.lines.known)
        if new:
            self.lines.learn(new)
            self._stale = self._stale or after

    def _read(self, size: int, *, wait: bool) -> list[Event]:
        del wait  # nothing reads ahead: a piece is always at hand
        self.others = []
        if self.done:
            return []
        pieces = self._pieces
        base, text, at_end = pieces.take(max(size, pieces.held))  # a long element: twice more
        batch = self._array.scan(text, base, at_end)
        pieces.leave(text, batch.cut)
        self._flip_ahead = batch.flip is not None
        with collector_paused():
            self._learn_echoes(batch, text, base)
            self.lines.hold(base, text)
            out = self._elements(batch, text, base)
        if self.collect:
            self.loaded.events.extend(out)
        if at_end:
            self._finish()
        return out

    def _learn_echoes(self, batch: Batch, text: bytes, base: int) -> None:
        """Learn the secrets the batch's elements name (`json_array.element_secrets`), before
        any of its events is read; the events read before, read again if one is new."""
        starts, ends = batch.starts, batch.ends
        found: set[str] = set()
        last = -1
        for hit in key_hits(text):
            index = bisect_right(starts, base + hit) - 1
            if index <= last or base + hit >= ends[index]:
                continue  # the element is read, or the key is in no element (yet)
            last = index
            element = text[starts[index] - base : ends[index] - base]
            secrets, snapshot = element_secrets(element, strict=self._strict)
            if snapshot and not self._whole(self._number):
                secrets, _ = element_secrets(element, strict=False)
            found.update(secrets)
        self._learn_late(sorted(found), after=bool(self._events))

    def _elements(self, batch: Batch, text: bytes, base: int) -> list[Event]:
        """The entries of a batch's elements, its problems and its turn to the pasted
        reading each in their place."""
        lines = self.lines
        assert isinstance(lines, ArrayElements)
        lines.starts.extend(batch.starts)
        lines.ends.extend(batch.ends)
        self._element_lines.extend(batch.lines)
        rows = [
            text[start - base : end - base]
            for start, end in zip(batch.starts, batch.ends, strict=True)
        ]
        marks = list(batch.failures)
        if batch.flip is not None:
            marks.insert(0, (batch.flip, 0, ""))  # before a failure at the same place
        out: list[Event] = []
        done = 0
        for index, line, message in marks:
            self._take_rows(rows[done:index], out)
            done = index
            if line:
                self.loaded.problems.append(Problem(line, message))
            else:
                self._flip_ahead = False
                self._to_pasted(self._number)
        self._take_rows(rows[done:], out)
        return out

    def _take_rows(self, rows: list[bytes], out: list[Event]) -> None:
        """`_rows` of these elements, each event then named by its element (`Event._at`) and
        the line the reading gives it."""
        if not rows:
            return
        first = len(out)
        self._rows(rows, out)
        shown = self._shown
        for event in out[first:]:
            if event._at is None:  # read fast: `_rows` named it by its number
                event._at = event.line
            event.line = shown(event._at)  # type: ignore[arg-type]
        self._events += out[first:]

    def _shown(self, number: int) -> int | None:
        return None if self._strict else self._element_lines[number - 1]

    def _problem(self, number: int, message: str, pasted: str | None = None) -> None:
        """A problem of element `number`; `pasted`: its words in the pasted reading."""
        problems = self.loaded.problems
        kept = len(problems)
        problems.append(Problem(self._shown(number), message))
        if not self._settled and len(problems) > kept:
            self._logged.append((number, pasted))

    def _bare_line(self, number: int, line: bytes) -> Event | None:
        """An element read whole, as formats.py's `_read_array` (or `_read_pasted`) reads it."""
        try:
            obj = loads(line)
        except ValueError as exc:  # the scan took it: only an integer Python will not convert
            self._problem(number, f"invalid JSON ({json_error_reason(exc)})")
            return None
        if not isinstance(obj, dict):
            self._end_open(typeless=False)
            kind = f"expected a JSON object, got {type(obj).__name__}"
            if self._strict:
                self._problem(number, f"array element {number - 1} is not an object", kind)
            else:
                self._problem(number, kind)
            return None
        if "type" not in obj and is_response_object(obj) and self._whole(number - 1):
            self._learn_late(request_secrets(obj), after=number > 1)  # one with no tools too
            self.loaded.snapshots.append(hide_known(redact(obj), self.lines.known))
            return None
        return self._kept(obj, number)

    def _whole(self, before: int) -> bool:
        """Whether the array is whole to its end (a Response object in it is a snapshot), as
        element `before + 1` is read: known, or scanned for now (once). If not, the elements
        from that one on are read as pasted values, and those before turned so too."""
        if not self._strict:
            return False
        if not self._settled and not self._flip_ahead:
            scan = self._array
            fd = self.lines.file.fileno()
            ahead = batches(scan.copy(), fd, self.size, self._pieces.cut_at)
            self._settled = all(batch.flip is None for batch in ahead)
            if self._settled:
                self._logged = []
        if not self._settled:
            self._array.to_pasted()
            self._to_pasted(before)
        return self._strict

    def _to_pasted(self, before: int) -> None:
        """The array is not whole: read the elements from `before + 1` on as pasted values,
        and turn what was read into what that reading makes of it (the same elements: each
        event and problem with its line, the problems of elements that are no objects worded
        so)."""
        if not self._strict:
            return
        self._strict = False
        self._settled = True
        self._flipped_at = before
        self.loaded.format = "JSON array (incomplete)"
        lines = self._element_lines
        for event in self._events:
            event.line = lines[event._at - 1]  # type: ignore[operator]
        old = self.loaded.problems
        new = Problems()
        for problem, (number, pasted) in zip(old, self._logged, strict=True):
            new.append(Problem(lines[number - 1], pasted or problem.message))
        for message, count in old.seen.items():
            if message in new.seen:
                new.seen[message] = count  # those past `KEEP_EACH`, counted
        self.loaded.problems = new
        self._logged = []

    def _redo(self) -> None:
        """Read the events read so far again (this piece's too), with the secrets known now:
        each event's fields as a reading that knew them from the start has them (the same
        elements give the same events, in the same order), then redacted on their joined text
        again (`DeltaScrubber`). Read by a copy of this reader, whose problems go nowhere."""
        shadow = copy.copy(self)
        shadow.loaded = Loaded()
        shadow.others, shadow._eager = [], []
        shadow._typeless, shadow._typeless_line, shadow._repeats = None, 0, 0
        shadow._number = shadow.emitted = 0
        shadow._settled = True
        shadow._strict = self._began_strict
        events = self._events
        starts, ends = self.lines.starts, self.lines.ends  # type: ignore[attr-defined]
        fd = self.lines.file.fileno()
        taken = 0
        for first in range(0, len(starts), REDO_ELEMENTS):
            last = min(len(starts), first + REDO_ELEMENTS)
            low = starts[first]
            block = os.pread(fd, ends[last - 1] - low, low)
            spans = zip(starts[first:last], ends[first:last], strict=True)
            rows = [block[start - low : end - low] for start, end in spans]
            turn = self._flipped_at
            parts = [rows]
            if shadow._strict and turn is not None and turn < last:
                parts = [rows[: turn - first], rows[turn - first :]]
            for part in parts:
                out: list[Event] = []
                shadow._rows(part, out)
                for old, read in zip(events[taken : taken + len(out)], out, strict=True):
                    old._raw, old._data, old._kind, old.lite = (
                        read._raw,
                        read._data,
                        read._kind,
                        read.lite,
                    )
                taken += len(out)
                if len(parts) > 1:
                    shadow._strict = False
        known = self.lines.known
        scrubber = self._scrubber = DeltaScrubber()
        for event in events:
            scrubber.push(event, known)
        self.relearned = True

    def _finish(self) -> None:
        self._end_open(last=True)
        self.done = True
        known = self.lines.known
        for event, known_then in self._eager:
            if len(known) > known_then:
                event.raw = redact_event(event.raw, known)
        self._eager.clear()
        self._logged = []
        self._settled = True


REDO_ELEMENTS = 4096
"""Elements read again at a time (`ArrayReader._redo`)."""


def array_reader(source: str, file: BinaryIO) -> ArrayReader | None:
    """A reader for `file` when it is a JSON array formats.py would read as one (or as the
    values of one cut off); None when a line it sniffs the format by is a recording's, or
    the file is too odd to tell (the whole-file reader takes it)."""
    fd = file.fileno()
    size = os.fstat(fd).st_size
    read = partial(_read_at, fd)
    if sample_holds_record(read, size) is not False:
        return None
    close = closing_bracket(read, size)
    if close is None:
        return None
    begin = read(0, HEAD_BYTES).index(b"[") + 1
    return ArrayReader(source, file, ArrayScan(read, size, begin, strict=close >= 0))


def _read_at(fd: int, offset: int, count: int) -> bytes:
    return os.pread(fd, count, offset)


PieceReader = RecordingReader | SSEReader
"""A file read a piece at a time (`Session.loading`, `load_path`)."""
