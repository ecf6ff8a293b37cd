"""The MCP client side of a Responses API call: what OpenAI does with a remote MCP server.

`McpLink` connects with the real `mcp` client (streamable HTTP or SSE), lists tools and calls them,
and `McpLink.call` maps every outcome onto the `mcp_call.error` shapes OpenAI reports (protocol.md
§2), keeping the real cause beside the opaque "424: unhandled errors in a TaskGroup" OpenAI shows.
Both the call outcomes and the connection failures carry a `kind`, so programs (`mcptui.probe`, the
likely-cause rules) can act on the cause without parsing messages.

A link speaks either MCP era (`protocol`): "legacy" is the 2025-11-25 (and older) `initialize`
handshake with its Mcp-Session-Id, as OpenAI's client is believed to speak; "modern" is the
stateless 2026-07-28 revision (`server/discover`, then `_meta` and routing headers on every
request); "auto" is the mcp SDK's own policy, discover first and `initialize` when the server
does not answer it as a modern server would. `era` says which one the connection uses.

The connection lives in a background task of the link's own task group, and that task catches
whatever the transport raises. With `async with` directly around the `mcp` transports instead, a
transport fault would cancel the caller's own code (anyio task-group semantics), which is the
very mechanism behind OpenAI's 424. Here the link just records the fault and later calls fail
with it, each as a result.
"""

from __future__ import annotations

import contextvars
import logging
import math
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx2
import mcp.types
import pydantic
from mcp import ClientSession
from mcp.client._probe import negotiate_auto
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
)

from mcptui.model.failure_text import describe_exception, root_cause, ungroup

Transport = Literal["sse", "streamable_http"]
Protocol = Literal["legacy", "modern", "auto"]
"""Which MCP era a link speaks: the initialize handshake, server/discover, or the SDK's choice."""
Era = Literal["legacy", "modern"]
"""The era a connection ended up in."""
PROTOCOLS: tuple[Protocol, ...] = ("legacy", "modern", "auto")
ERA_METHODS: dict[Era, str] = {"legacy": "initialize", "modern": "server/discover"}
"""How each era opens a connection."""
ERA_VERSIONS: dict[Era, str] = {"legacy": LATEST_HANDSHAKE_VERSION, "modern": LATEST_MODERN_VERSION}
"""The revision each era asks for first."""

TASKGROUP_424: dict[str, Any] = {
    "type": "http_error",
    "code": 424,
    "message": "424: unhandled errors in a TaskGroup (1 sub-exception)",
}
"""What OpenAI reports for any exception escaping its MCP client: it names no cause."""
SESSION_TERMINATED: dict[str, Any] = {
    "type": "mcp_protocol_error",
    "code": 32600,
    "message": "Session terminated",
}
"""What a real stream showed for a session the server no longer knew (protocol.md §2; a
positive code). The mcp package's own client now says "Session not found" (-32600) instead:
the emulator reports what the API was seen to report (docs/protocol.md §6)."""

SSE_READ_TIMEOUT = 300.0
"""How long an idle event stream may stay silent (the SDK's default)."""
CLOSE_GRACE = 3.0
"""How long closing may take before the connection task is cancelled."""
CALL_GRACE = 2.0
"""Extra time past a call's own timeout before the link gives up waiting by itself."""
LOST_WAIT = 0.25
"""How long a lost connection may take to log its transport error (logged after the close)."""

CLIENT_INFO = mcp.types.Implementation(name="mcptui", version="0.1.0")

_current_link: contextvars.ContextVar[McpLink | None] = contextvars.ContextVar(
    "mcptui_current_link", default=None
)


class _TransportErrors(logging.Handler):
    """Hands the exceptions the `mcp` transports only log to the link they belong to.

    The SDK's transports log a failed POST ("Error in post_writer") and close the stream, so
    the caller sees just "Connection closed". The link's tasks carry `_current_link`, which
    tells whose error it was. Installed on the "mcp.client" logger, so these records no longer
    fall through to Python's last-resort stderr handler (which would draw over a TUI).
    """

    def emit(self, record: logging.LogRecord) -> None:
        link = _current_link.get()
        if link is not None and record.exc_info and isinstance(record.exc_info[1], Exception):
            link._stream_error = record.exc_info[1]


def _install_transport_errors() -> None:
    logger = logging.getLogger("mcp.client")
    if not any(isinstance(h, _TransportErrors) for h in logger.handlers):
        logger.addHandler(_TransportErrors(logging.WARNING))


def transport_for(url: str) -> Transport:
    """SSE for a URL path ending in /sse (the legacy convention OpenAI follows too)."""
    path = urlsplit(url).path.rstrip("/")
    return "sse" if path.endswith("/sse") else "streamable_http"


def request_headers(headers: Mapping[str, Any] | None, authorization: str | None) -> dict[str, str]:
    """The HTTP headers an OpenAI `mcp` tool entry sends: its `headers` plus `authorization`.

    `authorization` becomes `Authorization: Bearer <value>` (kept as is when it already starts
    with "Bearer ") and replaces any Authorization header in `headers`.
    """
    out = {str(key): str(value) for key, value in (headers or {}).items()}
    if authorization:
        for key in [k for k in out if k.lower() == "authorization"]:
            del out[key]
        value = authorization.strip()
        out["Authorization"] = value if value.lower().startswith("bearer ") else f"Bearer {value}"
    return out


UnavailableKind = Literal[
    "refused",
    "http_401",
    "http_403",
    "http_404",
    "http_421",
    "http_error",
    "timeout",
    "closed",
    "connect_error",
    "protocol_error",
    "protocol_version",
    "header_mismatch",
    "missing_capability",
    "other",
]
"""Why a server could not be used, for programs (the probe's exit code, --json)."""

CallKind = Literal[
    "missing_structured_content",
    "invalid_structured_content",
    "invalid_content",
    "timeout",
    "connection_lost",
    "session_terminated",
    "protocol_error",
    "protocol_version",
    "header_mismatch",
    "missing_capability",
    "tool_error",
    "http_401",
    "http_403",
    "http_error",
    "unexpected",
]
"""What went wrong in a tools/call, for programs; None when it succeeded.

The 2026-07-28 revision's own refusals (a 400 with a JSON-RPC error) have kinds of their own:
`protocol_version` (-32022, the revision asked for is not served), `header_mismatch` (-32020,
MCP-Protocol-Version / Mcp-Method / Mcp-Name disagree with the body, often a proxy's doing) and
`missing_capability` (-32021). The same kinds name a connection that fails for those reasons,
and `protocol_version` one whose server does not speak the era asked for at all."""

MISSING_STRUCTURED = "has an output schema but did not return structured content"
INVALID_STRUCTURED = "Invalid structured content returned by tool"
"""The texts of the RuntimeErrors the mcp SDK's `call_tool` raises for an outputSchema breach
(mcp 2.3, `ClientSession.validate_tool_result`): the only way to tell them apart."""


class McpUnavailable(Exception):
    """Connecting, initializing or listing tools failed; the message says why in plain words."""

    def __init__(
        self,
        message: str,
        cause: str,
        kind: UnavailableKind = "other",
        *,
        code: int | None = None,
        status: int | None = None,
        answer: str | None = None,
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.kind: UnavailableKind = kind
        self.code = code
        """The JSON-RPC error code the server (or the transport, for a bare HTTP error) gave."""
        self.status = status
        """The HTTP status of the refused request, when there was one."""
        self.answer = answer
        """What the server answered, in a few words ("-32601 Method not found, HTTP 404",
        "HTTP 401 Unauthorized"); None when it gave no answer (refused, timed out)."""


_answers: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "mcptui_tool_answers", default=None
)
"""The list a `tools/call` in this context keeps the server's answer in (`keep_answers`)."""


def keep_answers(session: Any) -> None:
    """Have `session` keep each CallToolResult in `_answers` before it validates it: the SDK
    raises on a result without structuredContent (or one that breaks the outputSchema) and
    the result is gone, yet it is what the server really answered (the tool workspace shows
    it). Once per session; each call's context has its own list."""
    if getattr(session, "_mcptui_keeps_answers", False):
        return
    validate = session.validate_tool_result

    async def kept(tool: str, answer: Any) -> None:
        found = _answers.get()
        if found is not None:
            found.append(answer)
        await validate(tool, answer)

    session.validate_tool_result = kept
    session._mcptui_keeps_answers = True


@dataclass
class CallOutcome:
    """One tools/call as OpenAI would report it, plus what really happened."""

    output: str | None
    """The result's text blocks joined: what OpenAI puts in `mcp_call.output`."""
    error: dict[str, Any] | str | None
    """The OpenAI-style `mcp_call.error`, or None on success."""
    cause: str | None
    """The real reason behind the error, unwrapped from exception groups (for logs)."""
    result: Any | None
    """The CallToolResult, when the server's answer could be parsed."""
    seconds: float
    kind: CallKind | None = None
    """What went wrong, classified (see `CallKind`); None on success."""
    exception: BaseException | None = field(default=None, repr=False, compare=False)
    """The real exception behind the error, unwrapped from groups (e.g. the pydantic
    ValidationError that names a bad content block), when one was raised."""
    answer: Any | None = field(default=None, repr=False, compare=False)
    """The CallToolResult the server sent, even when the client then rejected it (no
    structuredContent, or one that breaks the outputSchema): what it really answered."""

    @property
    def ok(self) -> bool:
        return self.error is None


def tool_entry(tool: mcp.types.Tool) -> dict[str, Any]:
    """The tool as OpenAI lists it in an `mcp_list_tools` item (no outputSchema there)."""
    annotations = None
    if tool.annotations is not None:
        annotations = {"read_only": bool(tool.annotations.read_only_hint)}
    return {
        "annotations": annotations,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "name": tool.name,
    }


def output_text(result: mcp.types.CallToolResult) -> str:
    """The text blocks joined; the structured content as JSON when there is no text."""
    texts = [block.text for block in result.content if isinstance(block, mcp.types.TextContent)]
    if texts:
        return "\n".join(texts)
    if result.structured_content is not None:
        return pydantic.TypeAdapter(Any).dump_json(result.structured_content).decode()
    return ""


class McpLink:
    """One MCP connection: connect and open the session (initialize or server/discover, as
    `protocol` says) on enter, close on exit.

    `call` never raises for tool, server or transport faults: it returns a `CallOutcome`.
    Connecting, initializing and listing raise `McpUnavailable`.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
        transport: str | None = None,
        protocol: str = "auto",
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.transport: Transport = transport_for(url) if transport is None else _check(transport)
        self.protocol: Protocol = check_protocol(protocol)
        self.era: Era | None = None
        """The era the connection speaks, once connected."""
        self.server_info: mcp.types.Implementation | None = None
        """The server's name and version: initialize's serverInfo, or the `_meta` serverInfo
        of server/discover's answer (None when a modern server does not name itself)."""
        self.protocol_version: str | None = None
        self.supported_versions: list[str] | None = None
        """The revisions server/discover listed (modern era only)."""
        self.tools: list[mcp.types.Tool] | None = None
        self._session: ClientSession | None = None
        self._failure: BaseException | None = None
        self._stream_error: Exception | None = None
        self._lost: str | None = None
        self._http_error: httpx2.Response | None = None
        self.refusal: tuple[int, str | None] | None = None
        """The last 401 or 403 the server answered, with its WWW-Authenticate (None when it
        sent none): what an OAuth-protected server says it wants (`mcptui.mcpclient.oauth`)."""
        self._asking: Era | None = None
        self._ready = anyio.Event()
        self._closing = anyio.Event()
        self._done = anyio.Event()
        self._tg: anyio.abc.TaskGroup | None = None

    # -- lifecycle -------------------------------------------------------------------------

    async def __aenter__(self) -> McpLink:
        if self._tg is not None:
            raise RuntimeError("an McpLink can be entered only once")
        _install_transport_errors()
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._run)
        try:
            with anyio.move_on_after(self.timeout) as waited:
                await self._ready.wait()
            if waited.cancelled_caught:
                raise McpUnavailable(
                    f"{self._where()} did not finish connecting within {self.timeout:g} s",
                    f"TimeoutError: connect and initialize took longer than {self.timeout:g} s",
                    "timeout",
                )
            if self._failure is not None:
                raise self._unavailable("connect to", self._failure)
        except BaseException:
            await self._shutdown()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._shutdown()

    async def _shutdown(self) -> None:
        """Close politely for a moment, then cancel; never raises, never hangs."""
        tg, self._tg = self._tg, None
        if tg is None:
            return
        self._closing.set()
        try:
            if self._session is not None:  # connected: let the transport say goodbye (DELETE)
                with anyio.move_on_after(CLOSE_GRACE, shield=True):
                    await self._done.wait()
        finally:
            tg.cancel_scope.cancel()
            await tg.__aexit__(None, None, None)
            self._session = None

    async def _run(self) -> None:
        """Own the transport and session in this task, so their faults stay here."""
        _current_link.set(self)  # this task's own context: inherited by the transport's tasks
        try:
            async with AsyncExitStack() as stack:
                streams = await stack.enter_async_context(await self._transport(stack))
                session = await stack.enter_async_context(
                    ClientSession(
                        streams[0],
                        streams[1],
                        read_timeout_seconds=self.timeout,
                        message_handler=self._on_message,
                        client_info=CLIENT_INFO,
                    )
                )
                await self._negotiate(session)
                self.server_info = session.server_info
                self.protocol_version = session.protocol_version
                discovered = session.discover_result
                self.era = "modern" if discovered is not None else "legacy"
                if discovered is not None:
                    self.supported_versions = list(discovered.supported_versions)
                self._session = session
                self._ready.set()
                await self._closing.wait()
        except Exception as exc:  # a broken transport: remembered, reported by later calls
            self._failure = exc
        finally:
            self._session = None
            self._ready.set()
            self._done.set()

    async def _negotiate(self, session: ClientSession) -> None:
        """Open the session in the era asked for; `_asking` names the request in flight."""
        if self.protocol == "legacy":
            self._asking = "legacy"
            await session.initialize()
        elif self.protocol == "modern":
            self._asking = "modern"
            await session.discover()
        else:
            self._asking = None  # negotiate_auto sends discover, then maybe initialize
            await negotiate_auto(session)
        self._asking = None

    async def _transport(self, stack: AsyncExitStack) -> Any:
        """The SDK transport; a client passed to streamable_http_client is ours to close."""
        if self.transport == "sse":
            return sse_client(
                self.url,
                headers=self.headers,
                timeout=self.timeout,
                sse_read_timeout=SSE_READ_TIMEOUT,
                httpx_client_factory=self._http_client,
            )
        client = await stack.enter_async_context(
            self._http_client(
                headers=self.headers, timeout=httpx2.Timeout(self.timeout, read=SSE_READ_TIMEOUT)
            )
        )
        return streamable_http_client(self.url, http_client=client)

    def _http_client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """An httpx2 client that remembers the last HTTP error status (the SDK hides it)."""
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout,
            auth=auth,
            event_hooks={"response": [self._on_response]},
        )

    async def _on_response(self, response: httpx2.Response) -> None:
        """Keep the status of a refused MCP request (not, e.g., a 405 for the optional GET)."""
        method = response.request.method
        if response.status_code >= 400 and (method == "POST" or self.transport == "sse"):
            self._http_error = response
            if response.status_code in AUTH_STATUSES:
                self.refusal = (response.status_code, response.headers.get("www-authenticate"))

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._stream_error = message

    # -- requests --------------------------------------------------------------------------

    async def list_tools(self) -> list[mcp.types.Tool]:
        """Every tool (all pages); raises McpUnavailable when listing fails."""
        session = self._session
        if session is None:
            raise self._unavailable("list tools of", self._failure or _closed())
        tools: list[mcp.types.Tool] = []
        cursor: str | None = None
        self._http_error = None
        marker = _current_link.set(self)  # requests are sent in the caller's context
        try:
            with anyio.fail_after(self.timeout + CALL_GRACE):
                while True:
                    params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await session.list_tools(params=params)
                    tools.extend(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
        except Exception as exc:
            raise self._unavailable("list tools of", self._failure or exc) from exc
        finally:
            _current_link.reset(marker)
        self.tools = tools
        return tools

    async def call(self, name: str, arguments: dict[str, Any], *, timeout: float) -> CallOutcome:
        """Call a tool and map the outcome as OpenAI does; never raises for MCP faults.

        The SDK validates structuredContent against the tool's outputSchema itself (listing the
        tools first when it has not seen them), raising RuntimeError, so that arrives here as one
        of the "unhandled" exceptions.
        """
        started = time.monotonic()

        def done(
            output: str | None,
            error: dict[str, Any] | str | None,
            cause: str | None,
            kind: CallKind | None,
            result: Any = None,
            exception: BaseException | None = None,
        ) -> CallOutcome:
            return CallOutcome(
                output=output,
                error=error,
                cause=cause,
                result=result,
                seconds=time.monotonic() - started,
                kind=kind,
                exception=exception,
            )

        session = self._session
        if session is None or self._lost is not None:
            cause = self._lost or self._closed_cause(_closed())
            return done(None, dict(TASKGROUP_424), cause, _lost_kind(cause))
        http_error = self._http_error
        marker = _current_link.set(self)  # requests are sent in the caller's context
        answered: list[Any] = []
        keep_answers(session)
        kept = _answers.set(answered)
        try:
            with anyio.fail_after(_finite(timeout) + CALL_GRACE):
                result = await session.call_tool(name, arguments, read_timeout_seconds=timeout)
        except MCPError as exc:
            status = (
                self._http_error.status_code
                if self._http_error is not http_error and self._http_error is not None
                else None
            )
            # Only a session can end: a 404 in the stateless era is an answer like any other.
            ended = status == 404 and self.era != "modern"
            if exc.code == mcp.types.REQUEST_TIMEOUT:
                return done(
                    None,
                    dict(TASKGROUP_424),
                    f"{describe_exception(exc)} (no answer within {timeout:g} s)",
                    "timeout",
                    exception=exc,
                )
            if exc.code == mcp.types.CONNECTION_CLOSED:
                cause = await self._connection_lost(exc)
                lost: CallKind = "session_terminated" if ended else _lost_kind(cause)
                return done(None, dict(TASKGROUP_424), cause, lost, exception=exc)
            cause = describe_exception(exc)
            kind: CallKind
            if ended or _terminated(cause):
                kind = "session_terminated"
            elif status is not None and (_stand_in(exc) or status in AUTH_STATUSES):
                kind = _refused_kind(status) or "http_error"  # an HTTP refusal (401, 403, 5xx)
            else:  # the server's JSON-RPC error (in a 400's body, for the modern era's own)
                kind = _code_kind(exc.code)
            if status is not None and not ended:
                cause = f"{cause} (the server answered the call with HTTP {status})"
            error = (
                dict(SESSION_TERMINATED)
                if kind == "session_terminated"
                else {"type": "mcp_protocol_error", "code": exc.code, "message": exc.message}
            )
            return done(None, error, cause, kind, exception=exc)
        except TimeoutError as exc:
            return done(
                None,
                dict(TASKGROUP_424),
                f"TimeoutError: no answer to tools/call {name!r} within {timeout:g} s",
                "timeout",
                exception=exc,
            )
        except Exception as exc:
            real = ungroup(exc)
            outcome = done(
                None,
                dict(TASKGROUP_424),
                describe_exception(exc),
                _raised_kind(real),
                exception=real,
            )
            outcome.answer = answered[0] if answered else None
            return outcome
        finally:
            _current_link.reset(marker)
            _answers.reset(kept)
        if result.is_error:
            content = [
                block.model_dump(by_alias=True, mode="json", exclude_none=True)
                for block in result.content
            ]
            return done(
                None,
                {"type": "mcp_tool_execution_error", "content": content},
                f"tool reported an error: {output_text(result)}",
                "tool_error",
                result,
            )
        return done(output_text(result), None, None, None, result)

    # -- diagnosis -------------------------------------------------------------------------

    def _where(self) -> str:
        kind = "SSE" if self.transport == "sse" else "streamable HTTP"
        return f"MCP server at {self.url} ({kind})"

    async def _connection_lost(self, exc: BaseException) -> str:
        """Wait briefly for the transport's error (the SDK logs it after closing), remember it."""
        with anyio.move_on_after(LOST_WAIT):
            while self._stream_error is None and self._failure is None:
                await anyio.sleep(0.01)
        self._lost = self._closed_cause(exc)
        return self._lost

    def _closed_cause(self, exc: BaseException) -> str:
        """Why the connection closed: the transport's own error when one was seen."""
        if self._failure is not None:
            return describe_exception(self._failure)
        if self._stream_error is not None:
            return f"{describe_exception(self._stream_error)} (then {describe_exception(exc)})"
        return describe_exception(exc)

    def _unavailable(self, doing: str, exc: BaseException) -> McpUnavailable:
        """Say plainly why the server cannot be used: refused, HTTP status, timeout, ..."""
        cause = describe_exception(exc)
        real = ungroup(exc)
        root = root_cause(real)
        target = urlsplit(self.url).netloc or self.url
        status = self._status(real)
        kind: UnavailableKind = "other"
        rpc_code = real.code if isinstance(real, MCPError) else None
        answer = _answer(real, status)
        refusal = self._era_refusal(doing, real, status)
        if refusal is not None:
            kind, message = refusal
        elif isinstance(root, ConnectionRefusedError):
            message = f"connection refused by {target}: is the MCP server running there?"
            kind = "refused"
        elif status is not None:
            code, reason = status
            message = f"{self._where()} answered HTTP {code} {reason}".rstrip()
            kind = _HTTP_KINDS.get(code, "http_error")
            if code in (401, 403):
                message += ": check the token (headers / authorization)"
            elif code == 404:
                message += ": check the URL path (/mcp for streamable HTTP, /sse for SSE)"
                if self._asking == "modern":
                    message += ", or the server may not speak 2026-07-28 (server/discover)"
            elif code == 421:
                message += ": the server refused the Host header (DNS-rebinding protection)"
            elif (
                code in (400, 405)
                and self.transport == "sse"
                and not urlsplit(self.url).path.rstrip("/").endswith("/sse")
            ):
                message += (
                    ": SSE was asked of a URL that is not an SSE endpoint; try the "
                    "/sse path, or --transport streamable_http for /mcp"
                )
            else:
                message += f" ({cause})"
        elif isinstance(real, MCPError) and real.code == mcp.types.CONNECTION_CLOSED:
            message = f"{self._where()} closed the connection"
            cause = self._closed_cause(real)
            kind = "closed"
        elif isinstance(real, TimeoutError | httpx2.TimeoutException) or (
            isinstance(real, MCPError) and real.code == mcp.types.REQUEST_TIMEOUT
        ):
            message = f"{self._where()} did not answer within {self.timeout:g} s"
            kind = "timeout"
        elif isinstance(real, httpx2.ConnectError):
            message = f"cannot connect to {target}: {cause}"
            kind = "connect_error"
        elif isinstance(real, MCPError):
            message = f"{self._where()} answered JSON-RPC error {real.code}: {real.message}"
            kind = "protocol_error"
        else:
            message = f"cannot {doing} {self._where()}: {cause}"
        return McpUnavailable(
            message,
            cause,
            kind,
            code=rpc_code,
            status=status[0] if status is not None else None,
            answer=answer,
        )

    def _era_refusal(
        self, doing: str, exc: BaseException, status: tuple[int, str] | None
    ) -> tuple[UnavailableKind, str] | None:
        """A server that refused the era or the request's MCP envelope, in plain words.

        While connecting, a JSON-RPC error the server answered to `server/discover` means it
        does not speak the modern era (the SDK's auto policy reads it so too), and -32601 or
        -32022 to `initialize` that it does not speak the legacy one. The modern revision's
        own codes (-32020, -32021, -32022) are named wherever they come.
        """
        where = self._where()
        http = f", HTTP {status[0]}" if status is not None else ""
        if (
            isinstance(exc, RuntimeError)
            and not isinstance(exc, MCPError)
            and ("protocol version" in str(exc).lower())
        ):
            return "protocol_version", f"{where} speaks no revision this client does: {exc}"
        if not isinstance(exc, MCPError) or (
            status is not None and (_stand_in(exc) or status[0] in (*AUTH_STATUSES, 421))
        ):
            return None
        said = f"{exc.code} {exc.message}{http}"
        if exc.code == mcp.types.HEADER_MISMATCH:
            return "header_mismatch", (
                f"{where} refused the request's MCP routing headers ({said}): a proxy between "
                "here and the server may drop or rewrite MCP-Protocol-Version, Mcp-Method or "
                "Mcp-Name"
            )
        if exc.code == mcp.types.MISSING_REQUIRED_CLIENT_CAPABILITY:
            return "missing_capability", (
                f"{where} requires a client capability this client does not declare ({said})"
            )
        supported = _supported(exc)
        speaks = f"; it speaks {', '.join(supported)}" if supported else ""
        if doing != "connect to":
            if exc.code != mcp.types.UNSUPPORTED_PROTOCOL_VERSION:
                return None
            return "protocol_version", (
                f"{where} refused the revision {self.protocol_version} it was opened with "
                f"({said}){speaks}"
            )
        era = self._asking or _failed_era(exc)
        if era == "legacy" and exc.code not in (
            mcp.types.METHOD_NOT_FOUND,
            mcp.types.UNSUPPORTED_PROTOCOL_VERSION,
        ):
            return None
        if exc.code in (mcp.types.REQUEST_TIMEOUT, mcp.types.CONNECTION_CLOSED):
            return None
        return "protocol_version", (
            f"{where} does not speak {ERA_VERSIONS[era]}: {ERA_METHODS[era]} answered {said}"
            f"{speaks}"
        )

    def _status(self, exc: BaseException) -> tuple[int, str] | None:
        if isinstance(exc, httpx2.HTTPStatusError):
            return exc.response.status_code, exc.response.reason_phrase
        if (
            self._http_error is not None
            and isinstance(exc, MCPError)
            and exc.code not in (mcp.types.REQUEST_TIMEOUT, mcp.types.CONNECTION_CLOSED)
        ):
            return self._http_error.status_code, self._http_error.reason_phrase
        return None


AUTH_STATUSES = (401, 403)
"""Refusals that are about the credentials whatever the body says."""
_HTTP_KINDS: dict[int, UnavailableKind] = {
    401: "http_401",
    403: "http_403",
    404: "http_404",
    421: "http_421",
}


_STAND_INS = frozenset(
    {
        (mcp.types.INTERNAL_ERROR, "Server returned an error response"),
        (mcp.types.METHOD_NOT_FOUND, "Not Found"),
        (mcp.types.INVALID_REQUEST, "Session terminated"),
    }
)
"""The JSON-RPC errors the streamable HTTP client makes up for an HTTP error status whose body is
no JSON-RPC error (mcp 2.3): anything else came from the server itself."""


def _stand_in(exc: MCPError) -> bool:
    return (exc.code, exc.message) in _STAND_INS


def _code_kind(code: int) -> CallKind:
    """A JSON-RPC error the server answered a call with."""
    if code == mcp.types.HEADER_MISMATCH:
        return "header_mismatch"
    if code == mcp.types.UNSUPPORTED_PROTOCOL_VERSION:
        return "protocol_version"
    if code == mcp.types.MISSING_REQUIRED_CLIENT_CAPABILITY:
        return "missing_capability"
    return "protocol_error"


def _supported(exc: MCPError) -> list[str]:
    """The revisions a -32022 error names (`data.supported`), else none."""
    data = exc.error.data if exc.code == mcp.types.UNSUPPORTED_PROTOCOL_VERSION else None
    supported = data.get("supported") if isinstance(data, dict) else None
    return [str(v) for v in supported] if isinstance(supported, list) else []


def _failed_era(exc: MCPError) -> Era:
    """Which request of the SDK's auto policy failed: it gives up at server/discover only for a
    -32022 that names no handshake revision (a modern-only server), else at initialize."""
    supported = _supported(exc)
    if supported and not any(v in HANDSHAKE_PROTOCOL_VERSIONS for v in supported):
        return "modern"
    return "legacy"


def _answer(exc: BaseException, status: tuple[int, str] | None) -> str | None:
    """What the server answered, in a few words; None when it did not answer."""
    if isinstance(exc, MCPError) and exc.code not in (
        mcp.types.REQUEST_TIMEOUT,
        mcp.types.CONNECTION_CLOSED,
    ):
        if status is not None and _stand_in(exc):
            return f"HTTP {status[0]} {status[1]}".rstrip()
        http = f", HTTP {status[0]}" if status is not None else ""
        return f"{exc.code} {exc.message}{http}"
    if status is not None:
        return f"HTTP {status[0]} {status[1]}".rstrip()
    return None


def _refused_kind(status: int | None) -> CallKind | None:
    """A call the server refused at the HTTP layer: the mcp client reports it as a JSON-RPC
    error ("Server returned an error response") that names no status."""
    if status is None:
        return None
    return "http_401" if status == 401 else "http_403" if status == 403 else "http_error"


def _terminated(cause: str) -> bool:
    """The streamable HTTP client's words for a 404 on a stateful session."""
    return "session terminated" in cause.lower()


def _lost_kind(cause: str) -> CallKind:
    return "session_terminated" if _terminated(cause) else "connection_lost"


def _raised_kind(exc: BaseException) -> CallKind:
    """Classify what `call_tool` raised besides MCPError: the SDK's own result checks."""
    if isinstance(exc, pydantic.ValidationError):
        return "invalid_content"
    if isinstance(exc, RuntimeError):
        text = str(exc)
        if MISSING_STRUCTURED in text:
            return "missing_structured_content"
        if INVALID_STRUCTURED in text:
            return "invalid_structured_content"
    return "unexpected"


def _closed() -> MCPError:
    return MCPError(code=mcp.types.CONNECTION_CLOSED, message="Connection closed")


def _finite(seconds: float) -> float:
    return seconds if math.isfinite(seconds) else 1e9


def check_protocol(protocol: str) -> Protocol:
    if protocol in PROTOCOLS:
        return protocol
    raise ValueError(f"unknown MCP protocol {protocol!r} (legacy, modern or auto)")


def _check(transport: str) -> Transport:
    if transport == "sse":
        return "sse"
    if transport in ("streamable_http", "streamable-http", "http"):
        return "streamable_http"
    raise ValueError(f"unknown MCP transport {transport!r} (sse or streamable_http)")
