"""mcptui recordings: versioned JSONL, written incrementally, read tolerantly.

Line 1 is a header: `{"mcptui": "recording", "format": 1, "mcptui_version", "created",
"source": {"kind", ...}, "request", "endpoint", "http": {"status", "headers"}}`. Then one line
per timeline entry: `{"t": seconds, "event": {...}}` for an event, `{"t": seconds, "note":
{"kind", "message", "level"?, ...}}` for a transport fact (HTTP error, disconnect, retry,
resume, a second request). `t` is null when the source had no timing.

The writer appends and flushes each line, so a crash or Ctrl+C leaves a valid prefix; every
line passes through `redact` first. The reader keeps every good line and reports each bad one.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcptui import __version__
from mcptui.model.events import Event
from mcptui.model.jsonsafe import TooDeep, dumps, loads
from mcptui.model.redaction import (
    hide_known,
    merge_secrets,
    needs_redaction,
    redact,
    redact_entry,
    redact_headers,
    redact_text,
    redacted_json,
    request_secrets,
    utf8_needs_redaction,
)

FORMAT_NAME = "recording"
FORMAT_VERSION = 1


@dataclass(slots=True)
class Problem:
    """A line that could not be used, and why."""

    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class Problems(list[Problem]):
    """Problems as they are found: each distinct message kept `KEEP_EACH` times, the rest only
    counted (a million lines of `{}` made a million identical problems)."""

    KEEP_EACH = 200

    def __init__(self, problems: Iterable[Problem] = ()) -> None:
        super().__init__()
        self.seen: dict[str, int] = {}
        """How many times each message was found, kept or not."""
        for problem in problems:
            self.append(problem)

    def append(self, problem: Problem) -> None:
        count = self.seen[problem.message] = self.seen.get(problem.message, 0) + 1
        if count <= self.KEEP_EACH:
            super().append(problem)

    @property
    def total(self) -> int:
        return sum(self.seen.values())


@dataclass(slots=True)
class Loaded:
    """What a file yielded: its timeline, any Response snapshots, header and problems."""

    events: list[Event] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    header: dict[str, Any] | None = None
    problems: Problems = field(default_factory=Problems)
    format: str = "unknown"
    source: str = ""
    secrets: list[str] = field(default_factory=list, repr=False)
    """Secrets the source named that its redacted header no longer shows (an archive's
    request, its API key): hidden wherever its events echo them."""

    @property
    def usable(self) -> bool:
        return bool(self.events or self.snapshots)


def make_header(
    source_kind: str,
    *,
    request: dict[str, Any] | None = None,
    endpoint: str | None = None,
    http_status: int | None = None,
    http_headers: dict[str, str] | None = None,
    secrets: Sequence[str] = (),
    provider: str | None = None,
    **source: Any,
) -> dict[str, Any]:
    """A recording's first line, with the request and headers redacted, and every secret
    the request names (and `secrets`: an API key, a proxied client's credentials) hidden
    wherever else in it they appear: a token of a server URL echoed in the `input`."""
    header: dict[str, Any] = {
        "mcptui": FORMAT_NAME,
        "format": FORMAT_VERSION,
        "mcptui_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": redact({"kind": source_kind, **source}),
    }
    if request is not None:
        header["request"] = redact(request)
    if endpoint is not None:
        header["endpoint"] = redact_text(endpoint)
    if http_status is not None or http_headers:
        header["http"] = {"status": http_status, "headers": redact_headers(http_headers or {})}
    known = merge_secrets(secrets, request_secrets(request))
    header = hide_known(header, known) if known else header
    if provider is not None:  # who answered (model/providers.py): a name of ours, never a
        header["provider"] = provider  # secret, even where the key is that word (`ollama`)
    return header


def event_line(event: Event) -> str:
    """One recording line for a timeline entry, redacted when it could hold a credential."""
    payload = event.payload
    body = payload.decode("utf-8", "replace") if payload is not None else dumps(event.raw)
    if needs_redaction(body):
        body = dumps(redact(event.raw))
    return _line(event, body)


def redacted_line(event: Event, known: Sequence[str] = ()) -> str:
    """`redact_entry(event, known)`, then `event_line(event)`: an entry built here (a tap's
    note: no payload read) is serialised once, checked once, and that text is its line. The
    two steps apart serialised and checked it twice: 15% of the tap's recorder's CPU."""
    if event.payload is not None:
        redact_entry(event, known)
        return event_line(event)
    event.raw, body = redacted_json(event.raw, known)
    return _line(event, body)


def _line(event: Event, body: str) -> str:
    key = "note" if event.is_note else "event"
    t = "null" if event.t is None else repr(round(event.t, 6))
    return f'{{"t":{t},"{key}":{body}}}'


def event_lines(events: Sequence[Event]) -> bytes:
    """The recording lines of `events` (each ending in a newline), as `event_line` writes
    them, byte for byte, but asked about credentials once for the whole batch.

    A live stream's events are mostly text deltas read fast, whose JSON is written as it came:
    here their payloads are joined and checked at once (valid UTF-8, nothing `needs_redaction`
    finds: `utf8_needs_redaction`) and each line is built from bytes, with one `t` spelled per
    chunk read. Any other entry, or a batch where that check finds something, takes
    `event_line`. On bench/live.py's 200k deltas (a loaded 2-core machine): 2.3 µs a line,
    against 3.9 for `event_line` line by line (11 before `needs_redaction` searched its keys
    in lower-cased text)."""
    payloads = [event.payload for event in events]
    present = [payload for payload in payloads if payload is not None]
    plain = False
    if present:
        joined = b"\n".join(present)
        try:
            joined.decode("utf-8")  # `event_line` decodes with "replace": the same bytes
        except UnicodeDecodeError:
            pass
        else:
            plain = not utf8_needs_redaction(joined)
    out: list[bytes] = []
    add = out.append
    t: object = out  # no event's time: the first event spells its own
    stamp = b""
    for event, payload in zip(events, payloads, strict=True):
        if not plain or payload is None or event.is_note:
            add((event_line(event) + "\n").encode("utf-8", "backslashreplace"))
            continue
        if event.t != t:  # events of a chunk share its arrival time: spelled once
            t = event.t
            time = "null" if t is None else repr(round(t, 6))
            stamp = f'{{"t":{time},"event":'.encode()
        add(stamp)
        add(payload)
        add(b"}\n")
    return b"".join(out)


DEFAULT_RECORD_DIR = Path("mcptui-recordings")
"""Where live runs record and Save offers to write, relative to the working directory."""


def recording_name(response_id: str | None, when: datetime) -> str:
    """`<time>-<response id>.jsonl`: the one name pattern of automatic recordings and Save."""
    name = (response_id or "pending").replace("/", "_").replace(os.sep, "_")
    return f"{when.strftime('%Y%m%d-%H%M%S')}-{name}.jsonl"


def numbered(path: Path, number: int) -> Path:
    """`name.jsonl`, then `name-2.jsonl`, `name-3.jsonl`…"""
    return path if number < 2 else path.with_name(f"{path.stem}-{number}{path.suffix}")


def unused_path(path: Path) -> Path:
    """`path`, or the first numbered variant of it that does not exist yet."""
    number = 1
    while numbered(path, number).exists():
        number += 1
    return numbered(path, number)


def is_device(path: Path) -> bool:
    """A character device (`/dev/null`, `/dev/stdout` on a terminal): a place to write to,
    not a file to keep."""
    try:
        return stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


class RecordingFailed(OSError):
    """The recording could not be written (a full disk, a file size limit, a device that
    takes nothing): the file was cut back to its last whole line and is closed. The message
    names the file and the cause."""


class RecordingWriter:
    """Appends a recording line by line; each line is flushed as soon as it is written.

    An existing file is never overwritten: it is an error, or with `unique` the next free
    numbered name is taken (two runs in the same second, a --record path used twice).

    Only whole lines ever stay in the file: the bytes go out with `os.write` (no hidden
    buffer to flush later), and when a write fails (ENOSPC, EFBIG under `ulimit -f`) the file
    is truncated back to the end of the last line written whole and `RecordingFailed` is
    raised; the writer is closed from then on. So the file stays a valid recording of
    everything before the failure."""

    def __init__(
        self, path: str | os.PathLike[str], header: dict[str, Any], *, unique: bool = False
    ) -> None:
        wanted = Path(path)
        self._fd: int | None = None
        self._pending: list[bytes] = []
        self._good = 0
        """Bytes of the file that are whole lines: where a failed write is cut back to."""
        if is_device(wanted):  # /dev/null: written to as it is, never "/dev/null-2"
            self.path = wanted
            self._fd = os.open(wanted, os.O_WRONLY)
        else:
            wanted.parent.mkdir(parents=True, exist_ok=True)
            number = 1
            while True:
                self.path = numbered(wanted, number)
                try:  # O_EXCL: a name taken meanwhile by another run is skipped too
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                    break
                except FileExistsError:
                    if not unique:
                        raise
                    number += 1
        self.write_line(dumps(redact(header)))

    def write(self, event: Event, *, flush: bool = True) -> None:
        """Append one entry; `flush=False` for all but the last of a batch that arrived
        together (the proxy writes a chunk's events, then flushes once)."""
        self.write_line(event_line(event), flush=flush)

    def write_many(self, events: Sequence[Event], *, flush: bool = True) -> None:
        """Append entries that arrived together (`event_lines`: checked for credentials at
        once); `flush=False`: the caller flushes after the batch."""
        if self._fd is None:
            raise ValueError(f"recording {self.path} is closed")
        if events:
            self._pending.append(event_lines(events))
        if flush:
            self.flush()

    def flush(self) -> None:
        """Write what is pending; on failure cut the file back to its last whole line."""
        if self._fd is None or not self._pending:
            return
        data = b"".join(self._pending)
        self._pending = []
        view, written = memoryview(data), 0
        try:
            while written < len(data):
                written += os.write(self._fd, view[written:])
        except OSError as exc:
            whole = data.rfind(b"\n", 0, written) + 1  # the lines that went out whole
            self._fail(self._good + whole, exc)
        self._good += written

    def write_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.write(event)

    def write_line(self, line: str, *, flush: bool = True) -> None:
        """Append one line as it is (`redacted_line`'s, say)."""
        if self._fd is None:
            raise ValueError(f"recording {self.path} is closed")
        self._pending.append((line + "\n").encode("utf-8", "backslashreplace"))
        if flush:
            self.flush()

    def _fail(self, keep: int, exc: OSError) -> None:
        fd, self._fd = self._fd, None
        try:
            if fd is not None and not is_device(self.path):
                os.ftruncate(fd, keep)
        except OSError:
            pass  # nothing more can be done; the reader skips a cut last line
        finally:
            if fd is not None:
                os.close(fd)
        kept = "" if is_device(self.path) else "; it holds every whole line before this"
        failed = RecordingFailed(
            f"could not write the recording {self.path}: {exc.strerror or exc}{kept}"
        )
        failed.errno = exc.errno
        raise failed from exc

    def close(self) -> None:
        if self._fd is not None:
            try:
                self.flush()
            finally:
                if self._fd is not None:
                    os.close(self._fd)
                    self._fd = None

    def reopen(self) -> None:
        """Append again after `close`: a proxy keeps a response's file open only while an
        exchange of it flows (a proxy left running all day would run out of descriptors)."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            self._good = os.fstat(self._fd).st_size

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def save_recording(
    path: str | os.PathLike[str],
    header: dict[str, Any],
    events: Iterable[Event],
    *,
    overwrite: bool = False,
) -> Path:
    """Write a whole session at once (the app's Save). An existing file is refused unless
    `overwrite`; then the new recording is written beside it and swapped in whole, so a
    failed save never leaves the old file half-written."""
    target = Path(path)
    if not overwrite:
        with RecordingWriter(target, header) as writer:
            writer.write_all(events)
            return writer.path
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with RecordingWriter(partial, header) as writer:
            writer.write_all(events)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("mcptui") == FORMAT_NAME


def is_record(obj: Any) -> bool:
    return isinstance(obj, dict) and "t" in obj and ("event" in obj or "note" in obj)


def read_recording(lines: Iterable[tuple[int, str]], source: str = "") -> Loaded:
    """Parse recording lines (numbered from 1); bad lines become problems, good ones stay."""
    loaded = Loaded(format="mcptui recording", source=source)
    for number, line in lines:
        event = read_record(number, line, loaded)
        if event is not None:
            loaded.events.append(event)
    return loaded


def read_record(number: int, line: str | bytes, loaded: Loaded) -> Event | None:
    """One recording line: its entry, or None (the header, kept in `loaded`; a blank line; a
    bad line, kept as a problem)."""
    if not line.strip():
        return None
    try:
        obj = loads(line)
    except ValueError as exc:
        loaded.problems.append(Problem(number, f"invalid JSON ({json_error_reason(exc)})"))
        return None
    if is_header(obj):
        if loaded.header is None:
            loaded.header = obj
            version = obj.get("format")
            if isinstance(version, int) and version > FORMAT_VERSION:
                loaded.problems.append(
                    Problem(
                        number,
                        (
                            f"recording format {version} is newer than this mcptui reads "
                            f"({FORMAT_VERSION}); reading what it can"
                        ),
                    )
                )
        return None
    if not is_record(obj):
        loaded.problems.append(Problem(number, "not a recording line (expected t and event)"))
        return None
    t = arrival_time(obj.get("t"))
    body = obj.get("event", obj.get("note"))
    if not isinstance(body, dict):
        loaded.problems.append(Problem(number, "event is not a JSON object"))
        return None
    return Event(body, t=t, line=number, is_note="note" in obj)


def arrival_time(value: Any) -> float | None:
    """A record's `t` as seconds, or None: not a number, NaN, infinite or out of float range
    (JSON allows `NaN`, and an integer of 400 digits) would break every duration after it."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def unreadable_line(number: int, exc: ValueError, *, last: bool) -> Problem:
    """The problem of a line of JSON lines that does not parse: "truncated last line" for the
    file's last line that is not blank (a dump cut off while written), unless it nests too
    deep (whole, and refused)."""
    what = "truncated last line" if last and not isinstance(exc, TooDeep) else "invalid JSON"
    return Problem(number, f"{what} ({json_error_reason(exc)})")


def json_error_reason(exc: ValueError) -> str:
    """Why a JSON text failed to parse, with the column: for problem messages."""
    message = (getattr(exc, "msg", None) or str(exc)).removesuffix(" at")  # json's own "…at"
    column = getattr(exc, "colno", None)
    return f"{message} at column {column}" if column else message
