"""Read events out of text as people paste it: a forum post, a Markdown fence, an app's log.

What counts is found wherever it sits: JSON objects between prose and fences and after log
prefixes (timestamps, levels); Python dict literals (`{'type': ..., 'x': None}`, read with
`ast.literal_eval`); the openai SDK's own `repr` of an event as `print(event)` or a logger shows
it (`ResponseCreatedEvent(response=Response(id='resp_…', …), type='response.created')`), parsed
with `ast` and turned into objects by keyword, never evaluated; and the JSON body of a `curl`
command, taken as the request. Everything else is skipped and counted, so the user learns what
was left out ("12 lines of prose skipped").
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcptui.io.envelopes import AgentsEvents
from mcptui.io.node_inspect import NotInspected, read_inspected
from mcptui.io.sniff import is_response_object
from mcptui.model.jsonsafe import MAX_DEPTH, raw_decode, text_without_surrogates

SDK_REPR = re.compile(r"\b(?:[A-Z][A-Za-z0-9]*Event|Response)\(")
"""Where an SDK event's repr starts (`ResponseCreatedEvent(`, the Agents SDK's
`RawResponsesStreamEvent(`), or a Response's, as `print(client.responses.create(...))` shows it."""
LOG_TIME = re.compile(
    r"(?:(\d{4})-(\d{2})-(\d{2})[T ])?(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2})?(?!\d)"
)
"""A log line's timestamp: `2026-11-27 12:00:01,234`, `2026-11-27T12:00:01.234Z`, `12:00:01.234`."""
NODE_KEY = re.compile(r"\{\s*(?:<ref \*\d+>\s*)?[A-Za-z_$][\w$]*\s*:")
"""Where Node's `console.log` of an object starts: `{` and an unquoted key."""
CURL_DATA = re.compile(r"(?:^|\s)(?:-d|--data|--data-raw|--data-binary)\s+(['\"])", re.MULTILINE)
SCAN_BUDGET = 200
"""Characters failed decodes may cost, per character of the text: a bound on text full of
`{"` that open nothing (json's error counts the lines up to where it failed, each time)."""
NODE_COST = 50
"""What reading a character of Node's output costs against `SCAN_BUDGET` (`_node_object`)."""
MAX_REPR = 1_000_000
"""The longest SDK repr (or Node object) tried (a repr spans lines when a logger wraps it)."""


@dataclass
class Found:
    """What a paste held, in the order it appears."""

    objects: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(line, object) for every event, Response object or error body found."""
    request: dict[str, Any] | None = None
    """A `curl` command's JSON body."""
    request_span: tuple[int, int] = (0, 0)
    skipped_lines: int = 0
    partial: set[int] = field(default_factory=set)
    """Which of `objects` are not the wire's events in full: Node's `console.log` cut values
    out of them, or they were built from an output item quoted alone."""
    python_blocks: int = 0
    """SDK reprs or dict literals that could not be parsed."""
    other_json: int = 0
    """JSON objects that are no event (arguments, fragments, a tool's definition)."""
    agents: AgentsEvents = field(default_factory=AgentsEvents)
    """The Agents SDK's envelopes, events and run items (tui/mcptui/io/envelopes.py)."""
    node_cuts: int = 0
    """Values Node's `console.log` cut short (tui/mcptui/io/node_inspect.py)."""
    times: list[float | None] = field(default_factory=list)
    """Each object's time from its log line's timestamp (seconds of the day, or since the
    epoch when the line names its date), None when its line has none."""

    def summary(self) -> str | None:
        """What was skipped, in one line ("12 lines of prose, 1 Python block skipped")."""
        parts = [
            f"{n} {one if n == 1 else many}"
            for n, one, many in (
                (self.skipped_lines, "line of prose", "lines of prose"),
                (self.python_blocks, "Python block", "Python blocks"),
                (self.other_json, "JSON object that is no event", "JSON objects that are no event"),
            )
            if n
        ]
        said = ", ".join(parts) + " skipped" if parts else None
        if self.node_cuts:
            cut = (
                f"{self.node_cuts} values Node's console.log cut short "
                "([Object], ... more items) left out"
            )
            said = f"{said}; {cut}" if said else cut
        return said


def find_in_paste(text: str) -> Found:
    """Every event-like object in `text`, in order, and the count of what was skipped."""
    found = Found()
    used = [False] * (text.count("\n") + 1)
    decoder = json.JSONDecoder()
    budget = SCAN_BUDGET * max(len(text), 1000)
    lines = _LineCounter(text)
    _find_curl(text, found, used)
    reprs = [m.start() for m in SDK_REPR.finditer(text)]
    next_repr = 0
    position, end = 0, len(text)
    while position < end and budget > 0:
        while next_repr < len(reprs) and reprs[next_repr] < position:
            next_repr += 1
        repr_at = reprs[next_repr] if next_repr < len(reprs) else -1
        brace = text.find("{", position, repr_at if repr_at >= 0 else end)
        if brace < 0 and repr_at < 0:
            break
        start = brace if brace >= 0 else repr_at
        if found.request_span[0] <= start < found.request_span[1]:
            position = found.request_span[1]  # the curl body: the request, not an event
            continue
        cuts_before = found.node_cuts
        if start == repr_at:
            value, stop = _sdk_repr(text, start)
            budget -= 10 * (stop - start)  # its bracket scan runs in Python
            if value is None:
                found.python_blocks += 1
                position = start + 1
                continue
        else:
            value, stop, cost = _object_at(decoder, text, start, found)
            budget -= cost
            if value is None:
                position = start + 1
                continue
        first = lines.at(start)
        if _keep(found, first + 1, value):
            found.times.append(_log_time(text, start))
            if found.node_cuts > cuts_before:
                found.partial.add(len(found.objects) - 1)
        for number in range(first, lines.at(max(start, stop - 1)) + 1):
            used[number] = True
        position = stop
    found.skipped_lines = sum(
        1 for number, line in enumerate(text.split("\n")) if not used[number] and _is_prose(line)
    )
    return found


class _LineCounter:
    """0-based line numbers of positions asked for in increasing order, counted once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.line = 0

    def at(self, position: int) -> int:
        if position < self.position:  # rare: count afresh
            return self.text.count("\n", 0, position)
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line


def _keep(found: Found, line: int, value: dict[str, Any]) -> bool:
    """Keep `value` when it is an event, a Response or an error body, taken out of an Agents
    SDK envelope (an output item alone, as the event that ends it); count it as skipped
    otherwise. An object whose `type` is no stream event's
    (`{"type": "mcp", "server_label": …}`, `{"type": "http_error", …}` as prose quotes them)
    is not an event: a stream's types are `response.*` and `error`."""
    inner = found.agents.take(value, line)
    if inner is None:
        return False
    kind = inner.get("type")
    if kind in OUTPUT_ITEM_TYPES and isinstance(inner.get("id"), str):
        inner = {"type": "response.output_item.done", "item": inner}  # an item pasted alone
        kind = inner["type"]
        found.partial.add(len(found.objects))
    if (
        (isinstance(kind, str) and is_stream_event_type(kind))
        or is_response_object(inner)
        or is_error_body(inner)
    ):
        found.objects.append((line, inner))
        return True
    found.other_json += 1
    return False


OUTPUT_ITEM_TYPES = frozenset(
    {
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "message",
        "reasoning",
        "function_call",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "custom_tool_call",
    }
)
"""A Response's output items, which a post may quote alone (the failed `mcp_call` out of
`response.output`): each read as the event that ends it. Only with its `id`: a tool's
definition in a request (`{"type": "mcp", …}`) is none."""


def is_stream_event_type(kind: str) -> bool:
    """A type a Responses stream's event may have, known or drifted: `response.…` or `error`."""
    return kind.startswith("response.") or kind == "error"


def _log_time(text: str, start: int) -> float | None:
    """The time a log line gives the object at `start`: a timestamp before it on its line,
    or leading the line above when that line holds nothing after its prefix but a label
    (`2026-11-27 12:00:01 INFO event:`, then the object)."""
    line_start = text.rfind("\n", 0, start) + 1
    match = LOG_TIME.search(text, line_start, start)
    if match is None and line_start > 0:
        above = text.rfind("\n", 0, line_start - 1) + 1
        label = text[above : line_start - 1]
        match = LOG_TIME.match(label.lstrip())
        if match is not None and ("{" in label or "(" in label):
            match = None  # the line above held an object of its own
    return None if match is None else _seconds(match)


def _seconds(match: re.Match[str]) -> float | None:
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    clock = int(hour) * 3600 + int(minute) * 60 + int(second) + float(f"0.{fraction or 0}")
    if not year:
        return clock
    try:
        midnight = datetime(int(year), int(month), int(day), tzinfo=UTC)
    except ValueError:
        return None
    offset = 0
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[-2:]) * 60)
    return midnight.timestamp() + clock - offset


def is_error_body(obj: dict[str, Any]) -> bool:
    """What a refused request answers: `{"error": {"message", ...}}`."""
    error = obj.get("error")
    return "type" not in obj and isinstance(error, dict) and "message" in error


def _object_at(
    decoder: json.JSONDecoder, text: str, start: int, found: Found
) -> tuple[dict[str, Any] | None, int, int]:
    """A JSON object (or a Python dict literal) at `start`: (value, end, cost of trying).

    Only a `{` followed by a quote (or `}`) is tried: `{{`, `{x` and prose braces cost nothing.
    """
    opener = text[start + 1 : start + 200].lstrip()[:1]
    if opener not in ('"', "'", "}"):
        if NODE_KEY.match(text, start) is None:
            return None, start + 1, 1
        return _node_object(text, start, 0, found)
    try:
        value, stop = raw_decode(decoder, text, start)
    except ValueError as exc:
        cost = max(1, getattr(exc, "pos", start + 1))  # its error counted lines from 0 to pos
        if opener != "'":
            return None, start + 1, cost
        literal, scanned, closed = _dict_literal(text, start)
        # Scanning for the closing brace runs in Python: charge it tenfold.
        cost += 10 * scanned
        if literal is None and closed:  # Node quotes a key that is no name: `{ 'x-id': 'a' }`
            return _node_object(text, start, cost, found)
        return (None, start + 1, cost) if literal is None else (literal[0], literal[1], cost)
    return (value if isinstance(value, dict) else None), stop, stop - start


def _node_object(
    text: str, start: int, cost: int, found: Found
) -> tuple[dict[str, Any] | None, int, int]:
    """What Node's `console.log` printed at `start`, as data (tui/mcptui/io/node_inspect.py),
    its cuts counted in `found`. Its reading runs in Python, a value at a time: charged
    `NODE_COST` a character (a text of 30,000 unclosed `{ a: ` took 37 s at 10, 0.67 s at 50:
    bench/paste_braces.py), which a log of objects alone still fits in `SCAN_BUDGET`."""
    try:
        read = read_inspected(text, start, start + MAX_REPR)
        value = as_json_data(read.value)
    except NotInspected as exc:
        return None, start + 1, cost + NODE_COST * exc.scanned
    except (ValueError, RecursionError):
        return None, start + 1, cost + NODE_COST * MAX_REPR
    found.node_cuts += read.cuts
    return value, read.end, cost + NODE_COST * (read.end - start)


def _dict_literal(text: str, start: int) -> tuple[tuple[dict[str, Any], int] | None, int, bool]:
    """A Python dict literal at `start` (read by `ast.literal_eval`), how far was scanned,
    and whether its braces closed (an object that never closes is no Node object either)."""
    stop = _balanced(text, start, "{", "}")
    if stop is None:
        return None, min(len(text), start + MAX_REPR) - start, False
    try:
        value = as_json_data(ast.literal_eval(text[start:stop]))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None, stop - start, True
    return ((value, stop) if isinstance(value, dict) else None), stop - start, True


def _sdk_repr(text: str, start: int) -> tuple[dict[str, Any] | None, int]:
    """An SDK object's repr at `start`, as the dict its keywords make (never evaluated), and
    where it ends; when it is none, (None, how far the scan for its end went)."""
    opening = text.index("(", start)
    stop = _balanced(text, opening, "(", ")", limit=MAX_REPR)
    if stop is None:
        return None, min(len(text), opening + MAX_REPR)
    try:
        tree = ast.parse(text[start:stop], mode="eval")
        value = as_json_data(_from_node(tree.body))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None, stop
    return (value if isinstance(value, dict) else None), stop


def _from_node(node: ast.AST) -> Any:
    """A literal's value; a call (`Response(id=…)`) becomes a dict of its keywords."""
    if isinstance(node, ast.Call):
        if node.keywords:
            return {kw.arg: _from_node(kw.value) for kw in node.keywords if kw.arg}
        return _from_node(node.args[0]) if len(node.args) == 1 else None
    if isinstance(node, ast.List | ast.Tuple):
        return [_from_node(n) for n in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _json_key(_from_node(k)): _from_node(v)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.Name | ast.Attribute):
        return None  # a name the repr refers to (an enum member, a constant): not data
    return ast.literal_eval(node)


def as_json_data(value: Any, depth: int = 1) -> Any:
    """A Python literal's value as the JSON data an event is made of: keys are strings (a
    bytes key its text, any other its JSON spelling or its repr: `(1, 2)`), bytes are text,
    tuples and sets are lists, what JSON has no word for (`1j`, `...`) is its repr, lone
    surrogates are visible escapes. Deeper than `MAX_DEPTH` is refused (ValueError), as JSON
    is (tui/mcptui/model/jsonsafe.py)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return text_without_surrogates(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {_json_key(key): as_json_data(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [as_json_data(item, depth + 1) for item in value]
    return repr(value)


def _json_key(key: Any) -> str:
    """A dict key as a JSON object's key: what json.dumps would write, else the key's text."""
    if isinstance(key, str):
        return text_without_surrogates(key)
    if isinstance(key, bytes):
        return key.decode("utf-8", "backslashreplace")
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    return text_without_surrogates(repr(key))


def _balanced(
    text: str, start: int, opening: str, closing: str, limit: int = MAX_REPR
) -> int | None:
    """The end (exclusive) of the bracketed span opening at `start`, quotes respected."""
    depth, quote, index = 0, "", start
    end = min(len(text), start + limit)
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _find_curl(text: str, found: Found, used: list[bool]) -> None:
    """A `curl … -d '{…}'` body: the request the post sent."""
    for match in CURL_DATA.finditer(text):
        quote = match.group(1)
        start = match.end()
        stop = text.find(quote, start)
        if stop < 0:
            continue
        try:
            body = json.loads(text[start:stop])
        except ValueError:
            continue
        if isinstance(body, dict) and ("model" in body or "input" in body):
            found.request, found.request_span = body, (start, stop)
            first = text.rfind("curl", 0, match.start())
            for number in range(text.count("\n", 0, max(first, 0)), text.count("\n", 0, stop) + 1):
                used[number] = True
            return


def _is_prose(line: str) -> bool:
    """A line worth counting as skipped: not blank, not only a fence or brackets."""
    stripped = line.strip()
    return (
        bool(stripped)
        and not stripped.startswith("```")
        and stripped not in ("[", "]", "],", "{", "}", "},", ")", "(")
    )


def not_one_stream(objects: list[dict[str, Any]]) -> str | None:
    """Why the events found in a text cannot be one stream (or streams one after another),
    None when they can: prose that quotes example events is no run. In one stream, sequence
    numbers rise (a new `response.created` starts the count again) and an output item ends
    once; examples quoted apart repeat numbers and items."""
    last: int | None = None
    ended: set[str] = set()
    for obj in objects:
        kind = obj.get("type")
        if kind == "response.created":
            last, ended = None, set()
        number = obj.get("sequence_number")
        if isinstance(number, int) and not isinstance(number, bool):
            if last is not None and number <= last:
                return f"sequence number {number} comes after {last} with no new response"
            last = number
        item = obj.get("item")
        if kind == "response.output_item.done" and isinstance(item, dict):
            item_id = item.get("id")
            if isinstance(item_id, str):
                if item_id in ended:
                    return f"output item {item_id} ends twice"
                ended.add(item_id)
    return None
