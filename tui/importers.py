"""Read a stream dump in whatever shape people have it, chosen by sniffing the content.

Accepted: mcptui recordings (JSONL); one event per line (the upstream `*.chunks.txt`); raw SSE
as `curl -N` saves it; a JSON array of events; events pasted one after another separated by
commas and whitespace (forum posts); a single Response object as `GET /v1/responses/{id}`
returns it; the error body a refused request answers with. Nothing raises on bad input:
problems are collected with line numbers and every good event is kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui.io.paste import find_in_paste, is_error_body, is_response_object
from tui.io.reading import MAX_BYTES, InputError, read_source
from tui.io.recording import (
    Loaded,
    Problem,
    Problems,
    is_header,
    is_record,
    json_error_reason,
    read_recording,
)
from tui.io.redact import redact, redact_event, request_secrets
from tui.model.errors import describe_error
from tui.model.events import Event
from tui.model.ingest import collector_paused
from tui.model.jsonsafe import TooDeep, loads, raw_decode
from tui.model.reducer import ERROR_NOTE_LEVEL
from tui.model.sse import parse_sse

ACCEPTED_FORMATS = (
    "mcptui recording (.jsonl)",
    "one JSON event per line",
    "raw SSE text (curl -N)",
    "a JSON array of events",
    "events pasted one after another, separated by commas",
    "a Response object (GET /v1/responses/{id})",
    "an API error body ({\"error\": {...}}, what a refused request answers)",
    "text with events in it: a forum post, Markdown fences, a log with JSON or the SDK's "
    "event reprs, a curl command's body",
)

_SSE_FIELD = re.compile(r"^(data|event|id|retry):", re.MULTILINE)
_SNIFF_LINES = 50


def load_path(path: str, max_bytes: int = MAX_BYTES) -> Loaded:
    """Load a file (or `-` for standard input), at most `max_bytes` of it; never raises for
    bad paths, content, special files or sizes."""
    source = "<stdin>" if path == "-" else path
    try:
        data = read_source(path, max_bytes)
    except InputError as exc:
        return _failed(source, str(exc))
    return load_bytes(data, source=source)


def load_bytes(data: bytes, source: str = "") -> Loaded:
    if b"\x00" in data[:4096] and not data.lstrip().startswith((b"{", b"[")):
        return _failed(source, "binary data, not a text stream dump; " + _accepted())
    return load_text(data.decode("utf-8", errors="replace"), source=source)


def load_text(text: str, source: str = "") -> Loaded:
    """Sniff the format of `text` and parse it; credentials in it are redacted on the way in,
    so the screen, a copy, a save and a screenshot show them as a recording would."""
    with collector_paused():
        loaded = _load_text(text, source)
        known = request_secrets((loaded.header or {}).get("request"))
        for event in loaded.events:
            event.raw = redact_event(event.raw, known)
    loaded.snapshots = [redact(snapshot) for snapshot in loaded.snapshots]
    if loaded.header is not None:
        loaded.header = redact(loaded.header)
    return loaded


def _load_text(text: str, source: str) -> Loaded:
    text = text.removeprefix("\ufeff")
    stripped = text.strip()
    if not stripped:
        return _failed(source, "the file is empty")

    lines = text.split("\n")
    sample = [(n, line) for n, line in enumerate(lines[:_SNIFF_LINES * 4], 1) if line.strip()]
    sample = sample[:_SNIFF_LINES]
    sniffed = [(n, _try_json(line)) for n, line in sample]

    if any(is_header(obj) or is_record(obj) for _, obj in sniffed):
        return read_recording(enumerate(lines, 1), source)
    if _SSE_FIELD.search(text[:65536]):
        return _read_sse(text, source)
    if stripped.startswith("["):
        array = _try_json(stripped)
        if isinstance(array, list):
            return _read_array(array, source)
        # A cut-off array: read the complete objects it holds.
        loaded = _read_pasted(text, text.index("[") + 1, source)
        loaded.format = "JSON array (incomplete)"
        return loaded
    if stripped.startswith("{"):
        whole = _try_json(stripped)
        if isinstance(whole, dict):
            if is_response_object(whole):
                return Loaded(snapshots=[whole], format="Response object", source=source)
            if is_error_body(whole):
                return Loaded(events=[_error_note(whole, 1)], format="API error body",
                              source=source)
            return _read_objects([(1, whole)], "single event", source)
        if all(isinstance(obj, dict) for _, obj in sniffed):
            return _read_json_lines(lines, source)
        # Some lines are not objects on their own: a paste with pretty-printed events, or
        # JSON lines with broken lines. Read it both ways and keep the reading that kept more.
        as_lines = _read_json_lines(lines, source)
        as_paste = _read_pasted(text, text.index("{"), source)
        return max(as_lines, as_paste, key=lambda r: (len(r.events), -len(r.problems)))
    return _read_text_paste(text, source)


def _read_text_paste(text: str, source: str) -> Loaded:
    """Events found anywhere in prose, fences, logs and SDK reprs (tui/io/paste.py)."""
    found = find_in_paste(text)
    if not found.objects and found.request is None:
        return _failed(source, "unrecognised content: no events, JSON objects or SDK event "
                               "reprs in it; " + _accepted())
    loaded = Loaded(format="text with events", source=source)
    if found.request is not None:
        loaded.header = {"request": found.request}
    for line, obj in found.objects:
        if is_response_object(obj) and "type" not in obj:
            loaded.snapshots.append(obj)
        elif is_error_body(obj):
            loaded.events.append(_error_note(obj, line))
        else:
            loaded.events.append(Event(obj, line=line))
    if (summary := found.summary()) is not None:
        loaded.problems.append(Problem(None, summary))
    return loaded


def _accepted() -> str:
    return "accepted formats: " + "; ".join(ACCEPTED_FORMATS)


def _failed(source: str, message: str) -> Loaded:
    return Loaded(problems=Problems([Problem(None, message)]), source=source)


def _try_json(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return None


def _error_note(body: dict[str, Any], line: int) -> Event:
    """The API's answer to a refused request, read as the note a live run records for it,
    so a pasted 424 or 429 body is diagnosed like the recording it came from."""
    message = describe_error(body) or "the API refused the request"
    note = {"kind": "http_error", "message": f"the API answered with an error: {message}",
            "level": ERROR_NOTE_LEVEL, "body": body}
    return Event(note, line=line, is_note=True)


def _event_from(obj: Any, line: int, loaded: Loaded) -> None:
    if not isinstance(obj, dict):
        loaded.problems.append(Problem(line, f"expected a JSON object, got {type(obj).__name__}"))
        return
    if "type" not in obj:
        loaded.problems.append(Problem(line, "event has no type (kept)"))
    loaded.events.append(Event(obj, line=line))


def _read_objects(objects: list[tuple[int, Any]], kind: str, source: str) -> Loaded:
    loaded = Loaded(format=kind, source=source)
    for line, obj in objects:
        _event_from(obj, line, loaded)
    return loaded


def _read_json_lines(lines: list[str], source: str) -> Loaded:
    loaded = Loaded(format="JSON lines", source=source)
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=0)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except ValueError as exc:
            what = ("truncated last line" if number == last and not isinstance(exc, TooDeep)
                    else "invalid JSON")
            loaded.problems.append(Problem(number, f"{what} ({json_error_reason(exc)})"))
            continue
        _event_from(obj, number, loaded)
    return loaded


def _read_sse(text: str, source: str) -> Loaded:
    loaded = Loaded(format="SSE", source=source)
    for message in parse_sse(text):
        if message.error is not None:
            loaded.problems.append(Problem(message.line, message.error))
            continue
        if message.data.startswith("[DONE]"):
            continue
        try:
            obj = loads(message.data)
        except ValueError as exc:
            reason = json_error_reason(exc)
            loaded.problems.append(Problem(message.line, f"data is not JSON ({reason})"))
            continue
        _event_from(obj, message.line, loaded)
    return loaded


def _read_array(array: list[Any], source: str) -> Loaded:
    loaded = Loaded(format="JSON array", source=source)
    for position, obj in enumerate(array):
        if isinstance(obj, dict) and is_response_object(obj) and "type" not in obj:
            loaded.snapshots.append(obj)
            continue
        if isinstance(obj, dict):
            loaded.events.append(Event(obj))
        else:
            loaded.problems.append(Problem(None, f"array element {position} is not an object"))
    return loaded


def _read_pasted(text: str, start: int, source: str) -> Loaded:
    """Objects one after another, separated by commas/whitespace, as pasted into forum posts."""
    loaded = Loaded(format="pasted events", source=source)
    decoder = json.JSONDecoder()
    position = start
    end = len(text)
    while position < end:
        while position < end and text[position] in " \t\r\n,;]":
            position += 1
        if position >= end:
            break
        line = text.count("\n", 0, position) + 1
        try:
            obj, next_position = raw_decode(decoder, text, position)
        except ValueError as exc:
            resume = text.find("\n{", position + 1)
            loaded.problems.append(Problem(line, f"invalid JSON ({json_error_reason(exc)})"))
            if resume < 0:
                break
            position = resume + 1
            continue
        _event_from(obj, line, loaded)
        position = next_position
    return loaded
