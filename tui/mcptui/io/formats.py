"""Read a stream dump in whatever shape people have it, chosen by sniffing the content.

Accepted: mcptui recordings (JSONL); one event per line (the upstream `*.chunks.txt`); raw SSE
as `curl -N` saves it; a JSON array of events; events pasted one after another separated by
commas and whitespace (forum posts); a single Response object as `GET /v1/responses/{id}`
returns it; the error body a refused request answers with; HTTP archives of an app's
traffic (HAR, VCR cassettes, test-proxy records: tui/mcptui/io/archives.py). Nothing raises on bad
input: problems are collected with line numbers and every good event is kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mcptui.io.answers import TypelessKeeper, http_error_note, stream_entries
from mcptui.io.archives import ARCHIVE_FORMATS, read_archive
from mcptui.io.indexed import recording_reader
from mcptui.io.paste import find_in_paste, is_error_body, not_one_stream
from mcptui.io.reading import MAX_BYTES, InputError, read_source
from mcptui.io.recording import (
    Loaded,
    Problem,
    Problems,
    is_header,
    is_record,
    json_error_reason,
    read_recording,
    unreadable_line,
)
from mcptui.io.scrub import scrub_events
from mcptui.io.sniff import SSE_FIELD, SSE_SNIFF, is_response_object, sample_of, try_json
from mcptui.model.events import Event
from mcptui.model.ingest import collector_paused
from mcptui.model.jsonsafe import loads, raw_decode
from mcptui.model.redaction import (
    hide_known,
    merge_secrets,
    redact,
    redact_event,
    request_secrets,
    response_echo_secrets,
)

ACCEPTED_FORMATS = (
    "mcptui recording (.jsonl)",
    "one JSON event per line",
    "raw SSE text (curl -N)",
    "a JSON array of events",
    "events pasted one after another, separated by commas",
    "a Response object (GET /v1/responses/{id})",
    'an API error body ({"error": {...}}, what a refused request answers)',
    "text with events in it: a forum post, Markdown fences, a log with JSON (its timestamps "
    "the events' times), the openai SDK's reprs (print(event), print(response)) and "
    "model_dump() dicts, the Agents SDK's stream events (reprs or JSON), Node's console.log "
    "of events, a curl command's body",
    *ARCHIVE_FORMATS,
)


def load_path(path: str, max_bytes: int = MAX_BYTES) -> Loaded:
    """Load a file (or `-` for standard input), at most `max_bytes` of it; never raises for
    bad paths, content, special files or sizes."""
    source = "<stdin>" if path == "-" else path
    reader = recording_reader(path, max_bytes) if path != "-" else None
    if reader is not None:
        return reader.read_all()
    try:
        data = read_source(path, max_bytes)
    except InputError as exc:
        return _failed(source, str(exc))
    return load_bytes(data, source=source, max_bytes=max_bytes)


def load_bytes(data: bytes, source: str = "", max_bytes: int = MAX_BYTES) -> Loaded:
    if b"\x00" in data[:4096] and not data.lstrip().startswith((b"{", b"[")):
        return _failed(source, "binary data, not a text stream dump; " + _accepted())
    return load_text(data.decode("utf-8", errors="replace"), source=source, max_bytes=max_bytes)


def load_text(text: str, source: str = "", max_bytes: int = MAX_BYTES) -> Loaded:
    """Sniff the format of `text` and parse it; credentials in it are redacted on the way in,
    so the screen, a copy, a save and a screenshot show them as a recording would. What an
    archive's compressed bodies decompress to is bounded by `max_bytes` too."""
    with collector_paused():
        loaded = _load_text(text, source, max_bytes)
        known = loaded.secrets = _known_secrets(loaded)
        scrub_events(loaded.events, known)
        for event in loaded.events:
            event.raw = redact_event(event.raw, known)
    loaded.snapshots = [hide_known(redact(snapshot), known) for snapshot in loaded.snapshots]
    if loaded.header is not None:
        loaded.header = hide_known(redact(loaded.header), known)
    return loaded


def _known_secrets(loaded: Loaded) -> list[str]:
    """The secret parts of the server URLs of every request the file holds: the header's and
    those of later requests' notes (an archive or a live run with several requests), and of
    the `tools` every Response object echoes (a dump with no request still names its MCP
    servers' URLs in `response.created`)."""
    requests = [(loaded.header or {}).get("request")]
    requests += [
        event.raw.get("request")
        for event in loaded.events
        if event.is_note and "request" in event.raw
    ]
    requests += loaded.snapshots
    echoed = [response_echo_secrets(event.raw) for event in loaded.events if event.lite is None]
    return merge_secrets(
        loaded.secrets, *echoed, *(request_secrets(request) for request in requests)
    )


def _load_text(text: str, source: str, max_bytes: int) -> Loaded:
    text = text.removeprefix("\ufeff")
    stripped = text.strip()
    if not stripped:
        return _failed(source, "the file is empty")
    archive = read_archive(text, source, max_bytes)
    if archive is not None:
        return archive

    sniffed = [(n, try_json(line)) for n, line in sample_of(text)]

    if any(is_header(obj) or is_record(obj) for _, obj in sniffed):
        return read_recording(enumerate(text.split("\n"), 1), source)
    if SSE_FIELD.search(text[:SSE_SNIFF]):
        return _read_sse(text, source)
    if stripped.startswith("["):
        array = try_json(stripped)
        if isinstance(array, list):
            return _read_array(array, source)
        # A cut-off array: read the complete objects it holds.
        loaded = _read_pasted(text, text.index("[") + 1, source)
        loaded.format = "JSON array (incomplete)"
        return loaded
    if stripped.startswith("{"):
        # A first line that is a whole object, with more after it: the text is not one
        # object (parsing 66 MB of JSON lines to learn that was a third of reading them).
        whole = None if len(sniffed) > 1 and isinstance(sniffed[0][1], dict) else try_json(stripped)
        if isinstance(whole, dict):
            if is_response_object(whole):
                return Loaded(snapshots=[whole], format="Response object", source=source)
            if is_error_body(whole):
                return Loaded(
                    events=[http_error_note(whole, line=1)], format="API error body", source=source
                )
            return _read_objects([(1, whole)], "single event", source)
        if all(isinstance(obj, dict) for _, obj in sniffed):
            return _read_json_lines(text, source)
        # Some lines are not objects on their own: a paste with pretty-printed events, or
        # JSON lines with broken lines. Read it both ways and keep the reading that kept more.
        as_lines = _read_json_lines(text, source)
        as_paste = _read_pasted(text, text.index("{"), source)
        if not as_lines.events and not as_paste.events:  # Python dicts as print() shows them?
            as_text = _read_text_paste(text, source)
            if as_text.events or as_text.snapshots:
                return as_text
        return max(as_lines, as_paste, key=lambda r: (len(r.events), -len(r.problems)))
    return _read_text_paste(text, source)


def _read_text_paste(text: str, source: str) -> Loaded:
    """Events found anywhere in prose, fences, logs and SDK reprs (tui/mcptui/io/paste.py)."""
    found = find_in_paste(text)
    skipped = found.summary()
    if not found.objects and not found.agents.run_items and found.request is None:
        return _failed(
            source,
            "unrecognised content: no events, Response objects or SDK event reprs in it"
            + (f" ({skipped})" if skipped else "")
            + "; "
            + _accepted(),
        )
    events = [obj for _, obj in found.objects if isinstance(obj.get("type"), str)]
    if found.skipped_lines and (reason := not_one_stream(events)) is not None:
        return _failed(
            source,
            f"not a stream: prose quoting {len(events)} example events ({reason}); "
            "a paste is read as a run when its events are one stream's",
        )
    loaded = Loaded(format="text with events", source=source)
    if found.request is not None:
        loaded.header = {"request": found.request}
    times = _event_times(found.times)
    for index, (line, obj) in enumerate(found.objects):
        if is_response_object(obj) and "type" not in obj:
            loaded.snapshots.append(obj)
        elif is_error_body(obj):
            loaded.events.append(http_error_note(obj, line=line))
        else:
            loaded.events.append(
                Event(obj, line=line, t=times[index], partial=index in found.partial)
            )
    run_items = [Event(done, line=line, partial=True) for line, done in found.agents.finish()]
    if run_items:  # in the text's order among the rest (a log of run items has no other)
        loaded.events = sorted(loaded.events + run_items, key=lambda event: event.line or 0)
    if skipped is not None:
        loaded.problems.append(Problem(None, skipped))
    for said in found.agents.problems():
        loaded.problems.append(Problem(None, said))  # counted: `Problems.append`
    return loaded


SAME_MOMENT = 0.05
"""Seconds within which a log's stamps all fall when it was written after the stream: a real
stream with a tool call spans more (the demo request against the emulator: 0.99 s for 119 events;
the API: seconds)."""


def _event_times(stamps: list[float | None]) -> list[float | None]:
    """Seconds from the first timestamp a log gave its events, when it gave every event one
    and they never go back (a clock-only stamp that passes midnight counts on); else None
    for all: a timeline with holes or jumps back would show wrong durations. A log that
    wrote them all at one moment (`SAME_MOMENT`: after the stream, from a list) says nothing
    of when they came: a call "failed 0 ms after its arguments" would rule out a timeout."""
    known = [stamp for stamp in stamps if stamp is not None]
    if len(stamps) < 2 or len(known) < len(stamps) or max(known) - min(known) < SAME_MOMENT:
        return [None] * len(stamps)
    times: list[float | None] = []
    day = 0.0
    previous = first = known[0]
    for stamp in known:
        if stamp + day < previous:
            if previous - (stamp + day) < 43_200:
                return [None] * len(stamps)  # back in time: not a clock we can trust
            day += 86_400  # a clock-only stamp past midnight
        previous = stamp + day
        times.append(previous - first)
    return times


def _accepted() -> str:
    return "accepted formats: " + "; ".join(ACCEPTED_FORMATS)


def _failed(source: str, message: str) -> Loaded:
    return Loaded(problems=Problems([Problem(None, message)]), source=source)


def _event_from(obj: Any, line: int, keeper: TypelessKeeper) -> None:
    if not isinstance(obj, dict):
        keeper.loaded.problems.append(
            Problem(line, f"expected a JSON object, got {type(obj).__name__}")
        )
        return
    keeper.add(obj, line)


def _read_objects(objects: list[tuple[int, Any]], kind: str, source: str) -> Loaded:
    loaded = Loaded(format=kind, source=source)
    keeper = TypelessKeeper(loaded)
    for line, obj in objects:
        _event_from(obj, line, keeper)
    keeper.close()
    return loaded


def _numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """`enumerate(text.split("\n"), 1)` without the list: 3M short lines cost 200 MB as one."""
    start, number = 0, 1
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield number, text[start:]
            return
        yield number, text[start:end]
        start, number = end + 1, number + 1


def _read_json_lines(text: str, source: str) -> Loaded:
    loaded = Loaded(format="JSON lines", source=source)
    keeper = TypelessKeeper(loaded)
    last = text.rstrip().count("\n") + 1  # the last line that is not blank
    for number, line in _numbered_lines(text):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except ValueError as exc:
            loaded.problems.append(unreadable_line(number, exc, last=number == last))
            continue
        _event_from(obj, number, keeper)
    keeper.close()
    return loaded


def _read_sse(text: str, source: str) -> Loaded:
    loaded = Loaded(format="SSE", source=source)
    keeper = TypelessKeeper(loaded)
    for line, obj, problem in stream_entries(text):
        if obj is not None:
            keeper.add(obj, line)  # says NO_TYPE itself
        elif problem is not None:
            loaded.problems.append(Problem(line, problem))
    keeper.close()
    return loaded


def _read_array(array: list[Any], source: str) -> Loaded:
    loaded = Loaded(format="JSON array", source=source)
    keeper = TypelessKeeper(loaded)
    for position, obj in enumerate(array):
        if isinstance(obj, dict) and is_response_object(obj) and "type" not in obj:
            loaded.snapshots.append(obj)
            continue
        if isinstance(obj, dict):
            keeper.add(obj, None)
        else:
            loaded.problems.append(Problem(None, f"array element {position} is not an object"))
    keeper.close()
    return loaded


def _read_pasted(text: str, start: int, source: str) -> Loaded:
    """Objects one after another, separated by commas/whitespace, as pasted into forum posts."""
    loaded = Loaded(format="pasted events", source=source)
    keeper = TypelessKeeper(loaded)
    decoder = json.JSONDecoder()
    position = start
    end = len(text)
    line, counted = 1, 0  # lines counted up to `counted` (counted from 0 each time: n²)
    while position < end:
        while position < end and text[position] in " \t\r\n,;]":
            position += 1
        if position >= end:
            break
        line += text.count("\n", counted, position)
        counted = position
        try:
            obj, next_position = raw_decode(decoder, text, position)
        except ValueError as exc:
            resume = text.find("\n{", position + 1)
            loaded.problems.append(Problem(line, f"invalid JSON ({json_error_reason(exc)})"))
            if resume < 0:
                break
            position = resume + 1
            continue
        _event_from(obj, line, keeper)
        position = next_position
    keeper.close()
    return loaded
