"""What the Responses API's HTTP answers become in a timeline, whoever read them.

A live run, a pasted error body and an HTTP archive all hold the same answers: a stream of
SSE events, or an error body with a status. Reading them one way everywhere means a 424 from
an archive is diagnosed like the 424 of a live run: the same note kind, level and fields.
Pure: no Textual, no network.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from mcptui.io.envelopes import AgentsEvents
from mcptui.io.recording import Loaded, Problem, json_error_reason
from mcptui.model.errors import describe_error
from mcptui.model.events import Event, note
from mcptui.model.jsonsafe import loads
from mcptui.model.redaction import redact_url
from mcptui.model.reducer import ERROR_NOTE_LEVEL
from mcptui.model.sse import SSEMessage, iter_sse
from mcptui.model.urlsafe import split_url

USEFUL_HEADERS = (
    "x-request-id",
    "openai-processing-ms",
    "openai-version",
    "openai-model",
    "openai-organization",
    "content-type",
    "retry-after",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens",
)
"""Response headers worth keeping in a recording (the rest is transport noise)."""


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The `USEFUL_HEADERS` of a response; `headers` must look names up as the answer spells
    them (httpx2's headers ignore case; a plain dict needs lower-case names)."""
    return {name: headers[name] for name in USEFUL_HEADERS if name in headers}


def http_error_note(
    body: Any,
    *,
    what: str | None = None,
    status: int | None = None,
    request_id: str | None = None,
    t: float | None = None,
    line: int | None = None,
) -> Event:
    """The note for a refused request, as a live run records it: `POST /v1/responses: HTTP
    424: …` with the status and body, at the error level, so it counts as a failure. Without
    `what` and `status` (a pasted body) it says the API answered with an error."""
    message = describe_error(body) or "the API refused the request"
    prefix = (
        f"{what}: HTTP {status}"
        if what and status is not None
        else "the API answered with an error"
    )
    details: dict[str, Any] = {"level": ERROR_NOTE_LEVEL}
    if status is not None:
        details["status"] = status
    details["body"] = body
    if request_id is not None:
        details["request_id"] = request_id
    event = note("http_error", f"{prefix}: {message}", t, **details)
    event.line = line
    return event


NO_TYPE = "event has no type (kept)"
"""The problem of a stream event with no `type`."""


def folded_typeless(count: int) -> str:
    """The problem that counts a run of identical events with no type, kept as its first."""
    return f"{count} more identical events with no type after it, folded into it"


class TypelessKeeper:
    """Appends a file's events to `loaded`. A run of identical events with no `type` (a
    keep-alive `data: {}` sent three million times) is kept as its first, with one problem
    that counts the rest: as three million events, each with its own problem and findings,
    that 30 MB took 44 s and 1.7 GB."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.typeless: dict[str, Any] | None = None
        self.line: int | None = None
        self.repeats = 0
        self.agents = AgentsEvents()
        """The Agents SDK's envelopes and events of its own (tui/mcptui/io/envelopes.py)."""

    def add(self, obj: dict[str, Any], line: int | None) -> None:
        if "type" in obj:
            inner = self.agents.take(obj, line)
            if inner is None:
                return
            obj = inner
            self._end_run()
        elif obj == self.typeless:
            self.repeats += 1
            return
        else:
            self._end_run()
            self.typeless, self.line = obj, line
            self.loaded.problems.append(Problem(line, NO_TYPE))
        self.loaded.events.append(Event(obj, line=line))

    def close(self) -> None:
        """The file is read: count what was folded and skipped."""
        self._end_run()
        for line, done in self.agents.finish():
            self.loaded.events.append(Event(done, line=line, partial=True))
        for said in self.agents.problems():
            self.loaded.problems.append(Problem(None, said))
        self.agents = AgentsEvents()

    def _end_run(self) -> None:
        """The run of identical typeless events is over: count what was folded."""
        if self.repeats:
            self.loaded.problems.append(Problem(self.line, folded_typeless(self.repeats)))
        self.typeless, self.repeats = None, 0


def stream_entries(text: str) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Each message of an SSE text as `(line, event, problem)`, in order.

    An event without a `type` is kept, with a problem saying so; data that is not a JSON
    object gives no event and a problem that says why; `[DONE]` is skipped.
    """
    return message_entries(iter_sse(text))


def message_entries(
    messages: Iterable[SSEMessage],
) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """`stream_entries` of messages decoded already (a file read a piece at a time)."""
    for message in messages:
        if message.error is not None:
            yield message.line, None, message.error
            continue
        if message.data.startswith("[DONE]"):
            continue
        try:
            obj = loads(message.data)
        except ValueError as exc:
            yield message.line, None, f"data is not JSON ({json_error_reason(exc)})"
            continue
        if not isinstance(obj, dict):
            yield message.line, None, f"expected a JSON object, got {type(obj).__name__}"
            continue
        yield message.line, obj, None if "type" in obj else NO_TYPE


@dataclass(frozen=True, slots=True)
class Call:
    """A Responses API exchange, named as its notes name it."""

    what: str
    """`POST /v1/responses`, `GET /v1/responses/resp_1?stream=true&starting_after=7`."""
    endpoint: str
    """The URL up to `/responses`: what the recording header calls the endpoint."""
    response_id: str | None
    """The id in the path (retrieve, resume, cancel)."""
    creates: bool
    cancels: bool
    resumes: bool
    """A `GET …?stream=true`: the stream of a response created earlier."""


_CREATE = re.compile(r"/responses/?$")
_BY_ID = re.compile(r"/responses/([^/]+)/?$")
_CANCEL = re.compile(r"/responses/([^/]+)/cancel/?$")


def responses_call(method: str, url: str) -> Call | None:
    """The Responses API call an exchange is (create, retrieve or resume, cancel), or None:
    `/v1/models`, chat completions, `…/responses/input_tokens`, an MCP server's own traffic."""
    method = method.upper()
    path = split_url(url).path
    response_id: str | None = None
    if method == "POST" and (found := _CREATE.search(path)):
        kind = "create"
    elif method == "GET" and (found := _BY_ID.search(path)):
        kind, response_id = "retrieve", found.group(1)
    elif method == "POST" and (found := _CANCEL.search(path)):
        kind, response_id = "cancel", found.group(1)
    else:
        return None
    shown = split_url(redact_url(url))
    what = f"{method} {shown.path}" + (f"?{shown.query}" if shown.query else "")
    streamed = parse_qs(shown.query).get("stream", [""])[-1].lower() in ("true", "1")
    return Call(
        what,
        _endpoint(url, found.start()),
        response_id,
        creates=kind == "create",
        cancels=kind == "cancel",
        resumes=kind == "retrieve" and streamed,
    )


def _endpoint(url: str, at: int) -> str:
    """The URL up to and with `/responses` (`at`: where `/responses` starts in the path)."""
    parts = split_url(url)
    path = parts.path[:at] + "/responses"
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.scheme else path
