"""The Responses API emulator as an ASGI app: the endpoints mcptui and the openai SDK use.

`POST /v1/responses` (streaming or not, background or not), `GET /v1/responses/{id}` (also
`?stream=true&starting_after=N`), `POST /v1/responses/{id}/cancel`, and the same under Azure
OpenAI's routes (`/openai/v1/…`, and `/openai/…?api-version=…`), where the key may come in an
`api-key` header. Errors come back with the
real API's body shape `{"error": {"message", "type", "param", "code"}}` so that the SDK raises
its usual exceptions (an unknown URL or a wrong method too). Every answer carries its own
`x-request-id` and the measured `openai-processing-ms`. Faults from `metadata.mcptui_fault` are
applied here (HTTP level and on the first stream of a response) and in the runner (event
level).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcptui.emulator.builder import QUOTA_MESSAGE, ResponseBuilder, is_reasoning_model
from mcptui.emulator.faults import MALFORMED_AFTER, FaultError, Faults, parse_faults
from mcptui.emulator.runner import Run, RunConfig
from mcptui.emulator.script import ScriptError, input_text, planned_calls
from mcptui.emulator.store import KEEP, TERMINAL, Store, StoredResponse
from mcptui.model.jsonsafe import loads_request
from mcptui.model.timing import TOOL_TIMEOUT_METADATA
from mcptui.model.urlsafe import usable_http_url

log = logging.getLogger("mcptui.emulator")

Json = dict[str, Any]
MALFORMED_DATA = b'data: {"type": "response.output_text.delta", "sequence_number": \n\n'
"""A line cut off mid-object, as a broken proxy might pass on."""


class DroppedConnection(Exception):
    """Raised inside a stream body to make uvicorn close the connection mid-response."""


class _HideDrops(logging.Filter):
    """uvicorn logs a traceback for an app error mid-response; a planned drop is not one."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while isinstance(exc, BaseExceptionGroup):
            exc = exc.exceptions[0]
        return not isinstance(exc, DroppedConnection)


logging.getLogger("uvicorn.error").addFilter(_HideDrops())


def error(
    status: int,
    message: str,
    kind: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": param, "code": code}},
        status_code=status,
        headers=headers,
    )


REQUEST_ID = "mcptui.request_id"
"""Where `ApiHeaders` leaves the answer's `x-request-id` in the ASGI scope for the handler."""


class ApiHeaders:
    """ASGI middleware: every answer gets the API's headers, `x-request-id` (one per HTTP
    request, as the API gives) and `openai-processing-ms`, the time from the request's arrival
    to the answer's start as measured (for a stream: until its headers go out)."""

    def __init__(
        self, app: ASGIApp, request_id: Callable[[], str], seen: deque[Seen] | None = None
    ) -> None:
        self.app = app
        self.request_id = request_id
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = scope[REQUEST_ID] = self.request_id()
        if self.seen is not None:
            self.seen.append(Seen.of(scope))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["x-request-id"] = request_id
                headers["openai-version"] = "2020-10-01"
                headers["openai-processing-ms"] = str(round((time.perf_counter() - started) * 1000))
            await send(message)

        await self.app(scope, receive, send_with_headers)


API_PREFIXES = ("/v1", "/openai/v1", "/openai")
"""The OpenAI API's routes, and Azure OpenAI's: the v1 API (`/openai/v1/responses`) and the
dated one (`/openai/responses?api-version=2025-04-01-preview`, which needs the version)."""
AZURE_DATED = "/openai/responses"
SEEN = 100


@dataclass(frozen=True)
class Seen:
    """One request as the emulator received it: no header value is kept (they are keys)."""

    method: str
    target: str
    """Path and query as sent (`/openai/v1/responses?api-version=preview`)."""
    credentials: tuple[str, ...]
    """Which of `authorization` and `api-key` it carried."""

    @classmethod
    def of(cls, scope: Scope) -> Seen:
        query = scope.get("query_string", b"").decode("latin-1")
        names = {name.decode("latin-1").lower() for name, _ in scope.get("headers", [])}
        return cls(
            scope.get("method", ""),
            scope.get("path", "") + (f"?{query}" if query else ""),
            tuple(name for name in ("authorization", "api-key") if name in names),
        )


async def no_route(request: Request, exc: Exception) -> Response:
    """404 for an unknown URL, 405 for a known one asked with the wrong method, in the API's
    words and body shape (Starlette's own answers are plain text)."""
    what = f"{request.method} {request.url.path}"
    if getattr(exc, "status_code", 404) == 405:
        return error(405, f"Invalid method for URL ({what})", headers=getattr(exc, "headers", None))
    return error(404, f"Invalid URL ({what})")


def sse(event: Json) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


class Emulator:
    """State and handlers; `app` is the ASGI application."""

    def __init__(
        self, config: RunConfig | None = None, *, seed: int | None = None, keep: int = KEEP
    ) -> None:
        self.config = config or RunConfig()
        self.store = Store(keep)
        self.rng = random.Random(seed)
        self.seen: deque[Seen] = deque(maxlen=SEEN)
        """The latest requests' method, target and credential headers (names, never values):
        what a test asks of the URLs and signing a client used."""
        self.app = Starlette(
            routes=[
                route
                for prefix in API_PREFIXES
                for route in (
                    Route(f"{prefix}/responses", self.create, methods=["POST"]),
                    Route(f"{prefix}/responses/{{response_id}}", self.retrieve, methods=["GET"]),
                    Route(
                        f"{prefix}/responses/{{response_id}}/input_items",
                        self.input_items,
                        methods=["GET"],
                    ),
                    Route(
                        f"{prefix}/responses/{{response_id}}/cancel", self.cancel, methods=["POST"]
                    ),
                )
            ],
            middleware=[Middleware(ApiHeaders, request_id=self.request_id, seen=self.seen)],
            exception_handlers={404: no_route, 405: no_route},
            lifespan=self._lifespan,
        )

    @asynccontextmanager
    async def _lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        yield
        await self.store.close()

    def request_id(self) -> str:
        return "req_" + "".join(self.rng.choice("0123456789abcdef") for _ in range(32))

    # -- POST /v1/responses ------------------------------------------------------------------

    async def create_body(self, request: Request) -> Any:
        """A create's JSON body, or the 401 / 400 (as the API words it) to answer instead."""
        if (refused := unauthorized(request)) is not None:
            return refused
        try:
            return loads_request(await request.body())
        except ValueError as exc:
            return error(
                400,
                "We could not parse the JSON body of your request. (HINT: This "
                f"likely means you aren't using your HTTP library correctly. "
                f"The OpenAI API expects a JSON payload: {exc})",
            )

    async def create(self, request: Request) -> Response:
        body = await self.create_body(request)
        if isinstance(body, Response):
            return body
        if (invalid := validate_request(body)) is not None:
            return invalid
        metadata = body.get("metadata") or {}
        try:
            faults = parse_faults(metadata.get("mcptui_fault"))
        except FaultError as exc:
            return error(400, str(exc), param="metadata.mcptui_fault")
        request_id = str(request.scope.get(REQUEST_ID, ""))
        if faults.insufficient_quota:
            return error(429, QUOTA_MESSAGE, "insufficient_quota", code="insufficient_quota")
        if faults.http_status == 429:
            return error(
                429,
                "Rate limit reached for requests (emulated: metadata.mcptui_fault=http_429).",
                "requests",
                code="rate_limit_exceeded",
                headers={"retry-after": "1"},
            )
        if faults.http_status == 500:
            return error(
                500,
                "The server had an error while processing your request "
                "(emulated: metadata.mcptui_fault=http_500).",
                "server_error",
            )
        previous = body.get("previous_response_id")
        if previous is not None and self.store.get(str(previous)) is None:
            return error(
                400,
                f"Previous response with id '{previous}' not found.",
                param="previous_response_id",
                code="previous_response_not_found",
            )
        limit = {TOOL_TIMEOUT_METADATA: f"{self.config.tool_timeout:g}"}
        builder = ResponseBuilder(
            body,
            rng=self.rng,
            metadata=limit,
            reasoning_items=is_reasoning_model(str(body["model"])),
        )
        stored = StoredResponse(builder, faults, request_id=request_id)
        stored.builder.on_event = stored.notify
        self.store.add(stored)
        if stored.background:
            stored.builder.start()  # created + queued, before the POST returns
        stored.task = asyncio.create_task(
            Run(stored, self.store, self.config).run(), name=f"response {stored.id}"
        )
        if not stored.background:
            failure = await stored.ready
            if failure is not None:
                self.store.discard(stored)
                status = 424 if failure["error"].get("code") == "http_error" else 500
                return JSONResponse(failure, status_code=status)
        if body.get("stream"):
            return self.stream(stored, after=-1, faults=faults)
        if not stored.background:
            await stored.finished()
        return JSONResponse(stored.builder.response())

    def stored_for(self, request: Request) -> StoredResponse | Response:
        """The response named in the path, or the 401 / 404 to answer instead."""
        if (refused := unauthorized(request)) is not None:
            return refused
        response_id = request.path_params["response_id"]
        return self.store.get(response_id) or not_found(response_id)

    # -- GET /v1/responses/{id} ------------------------------------------------------------

    async def retrieve(self, request: Request) -> Response:
        stored = self.stored_for(request)
        if not isinstance(stored, StoredResponse):
            return stored
        if not stored.kept:
            return not_found(stored.id)
        if request.query_params.get("stream") in ("true", "True", "1"):
            if not stored.background:
                return error(
                    404,
                    "This response cannot be streamed: only responses created "
                    "with background=true can be streamed again.",
                    param="stream",
                )
            try:
                after = int(request.query_params.get("starting_after", "-1"))
            except ValueError:
                return error(400, "starting_after must be an integer.", param="starting_after")
            obfuscate = request.query_params.get("include_obfuscation") not in (
                "false",
                "False",
                "0",
            )
            return self.stream(stored, after=after, faults=Faults(), obfuscate=obfuscate)
        return JSONResponse(stored.builder.response())

    # -- GET /v1/responses/{id}/input_items -------------------------------------------------

    async def input_items(self, request: Request) -> Response:
        """The request's input as items, newest first unless `order=asc`, `limit` (1-100,
        default 20) a page, `after` an item id: the API's cursor page."""
        stored = self.stored_for(request)
        if not isinstance(stored, StoredResponse):
            return stored
        if not stored.kept:
            return not_found(stored.id)
        params = request.query_params
        order = params.get("order", "desc")
        if order not in ("asc", "desc"):
            return error(400, "Invalid 'order': expected 'asc' or 'desc'.", param="order")
        try:
            limit = int(params.get("limit", "20"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 100:
            return error(400, "Invalid 'limit': expected an integer from 1 to 100.", param="limit")
        items = stored.builder.input_items()
        if order == "desc":
            items = items[::-1]
        after = params.get("after")
        if after:
            ids = [item["id"] for item in items]
            items = items[ids.index(after) + 1 :] if after in ids else []
        page = items[:limit]
        return JSONResponse(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": len(items) > limit,
            }
        )

    # -- POST /v1/responses/{id}/cancel ------------------------------------------------------

    async def cancel(self, request: Request) -> Response:
        stored = self.stored_for(request)
        if not isinstance(stored, StoredResponse):
            return stored
        if not stored.background:
            return error(
                400,
                "Only responses created with background=true can be cancelled.",
                param="response_id",
            )
        if stored.builder.status not in TERMINAL:
            if stored.task is not None:
                stored.task.cancel()
                await asyncio.gather(stored.task, return_exceptions=True)
            stored.builder.status = "cancelled"
            stored.end()
        return JSONResponse(stored.builder.response())

    # -- streaming ---------------------------------------------------------------------------

    def stream(
        self, stored: StoredResponse, *, after: int, faults: Faults, obfuscate: bool = True
    ) -> Response:
        return StreamingResponse(
            tail(stored, after, faults, obfuscate=obfuscate),
            media_type="text/event-stream; charset=utf-8",
            headers={"cache-control": "no-cache"},
        )


async def tail(
    stored: StoredResponse, after: int, faults: Faults, *, obfuscate: bool = True
) -> AsyncIterator[bytes]:
    """The response's events after sequence number `after`, as they happen, until it ends.
    `obfuscate=False` (a resume asked `include_obfuscation=false`) sends deltas without their
    `obfuscation` padding."""
    position = max(after + 1, 0)
    sent = 0
    if faults.drop_after == 0:
        raise DroppedConnection("dropped before any event (mcptui_fault)")
    wire = stored.builder.wire
    per_event = bool(
        faults.malformed_line
        or faults.stall_seconds
        or faults.drop_after is not None
        or not obfuscate
    )
    while True:
        changed = stored.changed()
        events = stored.builder.events
        while position < len(events):
            block = wire.get(position)
            if block is not None and not per_event:  # a flood: sent as serialised, at once
                end, data = block
                sent += end - position
                position = end
                yield data
                continue
            event = events[position]
            if not obfuscate and "obfuscation" in event:
                event = {key: value for key, value in event.items() if key != "obfuscation"}
            yield sse(event)
            position += 1
            sent += 1
            if faults.malformed_line and sent == MALFORMED_AFTER:
                yield MALFORMED_DATA
            if faults.stall_seconds and sent == faults.stall_after:
                await asyncio.sleep(faults.stall_seconds)
            if faults.drop_after is not None and sent >= faults.drop_after:
                raise DroppedConnection(f"dropped after {sent} events (mcptui_fault)")
        if stored.ended:
            return
        await changed.wait()


def unauthorized(request: Request) -> Response | None:
    """A 401 for a request without a key (a bearer token, or Azure's `api-key` header), or
    Azure's answer to its dated route without `?api-version=`; None when it may go on."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    signed = scheme.lower() == "bearer" and token.strip()
    if request.url.path.startswith("/openai/"):
        if not (signed or request.headers.get("api-key", "").strip()):
            return error(
                401,
                "Access denied due to missing subscription key. Make sure to include the key "
                "in the api-key header (emulated Azure OpenAI: any key works).",
                code="401",
            )
        if request.url.path.startswith(AZURE_DATED) and not request.query_params.get("api-version"):
            return error(
                404,
                "Resource not found (emulated Azure OpenAI: the /openai/responses route needs "
                "?api-version=, e.g. 2025-04-01-preview; /openai/v1 does not)",
                code="404",
            )
        return None
    if signed or request.headers.get("api-key", "").strip():
        return None
    return error(
        401,
        "You didn't provide an API key. You need to provide your API key in an "
        "Authorization header using Bearer auth (i.e. Authorization: Bearer "
        "YOUR_KEY). The emulator accepts any key.",
    )


def not_found(response_id: str) -> Response:
    return error(404, f"Response with id '{response_id}' not found.")


def invalid_type(param: str, expected: str) -> Response:
    return error(
        400, f"Invalid type for '{param}': expected {expected}.", param=param, code="invalid_type"
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def validate_mcp_tool(tool: Json, where: str) -> Response | None:
    """400 for an `mcp` tool the runner could not use: every field it reads has the type
    the API documents (a header map of numbers was a 500 before), the URL is http(s)."""
    for name in ("server_label", "server_url"):
        if not isinstance(tool.get(name), str) or not tool[name]:
            return error(
                400,
                f"Missing required parameter: '{where}.{name}'.",
                param=f"{where}.{name}",
                code="missing_required_parameter",
            )
    if not usable_http_url(tool["server_url"]):
        return error(
            400,
            f"Invalid URL for '{where}.server_url': expected an http(s) URL.",
            param=f"{where}.server_url",
            code="invalid_value",
        )
    headers = tool.get("headers")
    if headers is not None and not (
        isinstance(headers, dict) and all(isinstance(value, str) for value in headers.values())
    ):
        return invalid_type(f"{where}.headers", "an object of strings")
    if tool.get("authorization") is not None and not isinstance(tool["authorization"], str):
        return invalid_type(f"{where}.authorization", "a string")
    rule = tool.get("allowed_tools")
    if (
        rule is not None
        and not _strings(rule)
        and not (
            isinstance(rule, dict)
            and (rule.get("tool_names") is None or _strings(rule["tool_names"]))
        )
    ):
        return invalid_type(f"{where}.allowed_tools", "an array of tool names or a filter")
    approval = tool.get("require_approval")
    if (
        approval is not None
        and not isinstance(approval, str)
        and not (
            isinstance(approval, dict)
            and all(
                isinstance(rule, dict)
                and (rule.get("tool_names") is None or _strings(rule["tool_names"]))
                for rule in approval.values()
            )
        )
    ):
        return invalid_type(f"{where}.require_approval", "a string or a filter")
    return None


def validate_request(body: Any) -> Response | None:
    """400 for what the real API refuses before doing anything."""
    if not isinstance(body, dict):
        return error(400, "The request body must be a JSON object.")
    for name in ("model", "input"):
        if name == "input" and body.get("previous_response_id"):
            continue
        if body.get(name) in (None, ""):
            return error(
                400,
                f"Missing required parameter: '{name}'.",
                param=name,
                code="missing_required_parameter",
            )
    for name, kind, expected in (
        ("metadata", dict, "an object"),
        ("tools", list, "an array"),
        ("model", str, "a string"),
        ("previous_response_id", str, "a string"),
    ):
        if body.get(name) is not None and not isinstance(body[name], kind):
            return invalid_type(name, expected)
    for position, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict):
            return invalid_type(f"tools[{position}]", "an object")
        if tool.get("type") != "mcp":
            continue
        if (invalid := validate_mcp_tool(tool, f"tools[{position}]")) is not None:
            return invalid
    try:
        planned_calls(input_text(body.get("input")))
    except ScriptError as exc:
        return error(400, str(exc), param="input")
    return None
