"""A real MCP server whose tools fail the way remote MCP tools fail under OpenAI's Responses API.

Each tool reproduces one failure users meet (shared/docs/protocol.md §2), so the emulator, the
probe and the tests can meet them over a real wire instead of mocks:

- `search`: the well-behaved baseline (outputSchema, matching structuredContent, JSON text).
- `slow_search`: answers after `delay_s`; slower than the client's read timeout it becomes OpenAI's
  "424: unhandled errors in a TaskGroup".
- `failing_api`: raises. MCPServer turns an unexpected exception into an `isError: true` result
  whose text is only "Error executing tool failing_api": mcp 2.3 keeps the exception's own
  message in the server log, so OpenAI reports `mcp_tool_execution_error` without the cause.
- `broken_schema`: advertises an outputSchema but answers without structuredContent (the classic
  424 cause).
- `mismatched_schema`: answers with structuredContent that does not match its outputSchema.
- `bad_content`: answers with a `{"type": "json"}` content block, which no spec-following client
  can parse.
- `start_job` / `check_job`: the job-handle pattern that keeps slow work under the timeout.
- `protocol_error`: answers with a JSON-RPC error instead of a result (`mcp_protocol_error`).

One Starlette app serves streamable HTTP at `/mcp` and SSE at `/sse` (messages at `/messages/`),
each in both MCP eras: the 2025-11-25 initialize handshake (as OpenAI's client speaks, as far as
anyone knows) and the stateless 2026-07-28 revision (server/discover); every tool fails the same
way in both. The failures that are not a tool's (401 on the listing or only on the call, 421 for
a Host header, forgotten sessions, a legacy-only server) are modes, `DemoModes`, built in
tui/mcptui/emulator/demo_modes.py.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.types import ASGIApp

from mcptui.emulator.demo_modes import (
    BearerAuth,
    CallToken,
    ForgetSessions,
    LegacyOnly,
    PathToken,
    host_check_security,
    refuse_legacy,
)
from mcptui.net.serve import serve_forever

SERVER_NAME = "mcptui-demo"
MCP_PATH = "/mcp"
SSE_PATH = "/sse"
MESSAGE_PATH = "/messages/"
JOB_SECONDS = 3.0

TOOL_NAMES: tuple[str, ...] = (
    "search",
    "slow_search",
    "failing_api",
    "broken_schema",
    "mismatched_schema",
    "bad_content",
    "start_job",
    "check_job",
    "protocol_error",
)

READ_ONLY = ToolAnnotations(read_only_hint=True)


class SearchHit(BaseModel):
    title: str
    url: str
    snippet: str


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]


class JobStatus(BaseModel):
    job_id: str
    status: str
    elapsed_s: float
    poll_after_s: float | None = None
    result: SearchResult | None = None


def fake_hits(query: str, limit: int = 3) -> SearchResult:
    """Deterministic results, so tests and demos can assert on them."""
    slug = "-".join(query.lower().split()) or "empty"
    hits = [
        SearchHit(
            title=f"{query} — result {n}",
            url=f"https://example.com/{slug}/{n}",
            snippet=f"Result {n} for {query!r}.",
        )
        for n in range(1, max(0, min(limit, 10)) + 1)
    ]
    return SearchResult(query=query, hits=hits)


@dataclass
class _Job:
    query: str
    started: float
    duration: float


def build_server(*, modern_only: bool = False) -> MCPServer[Any]:
    """The MCPServer with every demo tool; a fresh one per app (its session manager runs once).

    It speaks both MCP eras; `modern_only` makes it refuse the initialize handshake
    (`refuse_legacy`). (A legacy-only server is an HTTP mode: `LegacyOnly`.)
    """
    jobs: dict[str, _Job] = {}
    with _root_logging_untouched():
        server: MCPServer[Any] = MCPServer(
            SERVER_NAME,
            instructions="Demo tools that reproduce remote MCP failures seen from OpenAI's API.",
            log_level="WARNING",
            tools=[_broken_schema_tool(), _mismatched_schema_tool()],
        )

    @server.tool(annotations=READ_ONLY)
    def search(query: str, limit: int = 3) -> SearchResult:
        """Search the demo index. Fast, with structured content matching its output schema."""
        return fake_hits(query, limit)

    @server.tool(annotations=READ_ONLY)
    async def slow_search(query: str, delay_s: float = 5.0) -> SearchResult:
        """Search, but only answer after delay_s seconds (slower than a client's read timeout)."""
        await anyio.sleep(max(0.0, delay_s))
        return fake_hits(query)

    @server.tool()
    def failing_api(query: str) -> SearchResult:
        """Call an upstream API that is down.

        The RuntimeError becomes `isError: true` with the text "Error executing tool failing_api":
        MCPServer hides an unexpected exception's message from the client (a `ToolError` would
        pass its text on), so OpenAI shows an `mcp_tool_execution_error` that names no cause.
        """
        raise RuntimeError(f"upstream API returned 503 for {query!r}")

    @server.tool(structured_output=False)
    def bad_content(query: str) -> str:
        """Answer with a non-spec `{"type": "json"}` content block (rewritten on the way out)."""
        return fake_hits(query).model_dump_json()

    @server.tool()
    def start_job(query: str, duration_s: float = JOB_SECONDS) -> JobStatus:
        """Start slow work and return a job id at once; poll it with check_job."""
        job_id = f"job_{uuid.uuid4().hex[:12]}"
        jobs[job_id] = _Job(query=query, started=time.monotonic(), duration=max(0.0, duration_s))
        return JobStatus(
            job_id=job_id, status="running", elapsed_s=0.0, poll_after_s=min(1.0, duration_s)
        )

    @server.tool(annotations=READ_ONLY)
    def check_job(job_id: str) -> JobStatus:
        """A start_job job: "running" until its time is up, then "done" with the result."""
        job = jobs.get(job_id)
        if job is None:
            raise ToolError(f"unknown job id {job_id!r}")
        elapsed = round(time.monotonic() - job.started, 3)
        if elapsed < job.duration:
            return JobStatus(
                job_id=job_id,
                status="running",
                elapsed_s=elapsed,
                poll_after_s=min(1.0, job.duration - elapsed),
            )
        return JobStatus(
            job_id=job_id, status="done", elapsed_s=elapsed, result=fake_hits(job.query)
        )

    @server.tool()
    def protocol_error(query: str) -> str:
        """Refuse the call with a JSON-RPC error (-32602) instead of a tool result."""
        raise MCPError(
            code=INVALID_PARAMS, message=f"protocol_error refuses every call ({query!r})"
        )

    server.middleware.append(_bad_content_middleware)
    if modern_only:
        server.middleware.append(refuse_legacy)
    return server


@contextmanager
def _root_logging_untouched() -> Iterator[None]:
    """MCPServer() calls logging.basicConfig (a Rich handler on stderr): undo that.

    The server may run inside the TUI's process (`mcptui demo`), where a stray stderr handler
    would draw over the screen.
    """
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def _broken_schema_tool() -> Tool:
    """A tool whose advertised outputSchema its answers ignore.

    Returning a raw `CallToolResult` skips MCPServer's output conversion; the schema is set by
    hand afterwards ("published without a model"), so MCPServer advertises it in tools/list but
    does not validate the result against it, and the broken result reaches the wire.
    """

    def broken_schema(query: str) -> CallToolResult:
        """Search, but answer without the structuredContent that the output schema promises."""
        text = fake_hits(query).model_dump_json()
        return CallToolResult(content=[TextContent(type="text", text=text)])

    tool = Tool.from_function(broken_schema, annotations=READ_ONLY)
    tool.fn_metadata.output_schema = SearchResult.model_json_schema()
    return tool


def _mismatched_schema_tool() -> Tool:
    """A tool whose structuredContent breaks its own outputSchema (`hits` is no list).

    Built like broken_schema: a raw `CallToolResult` with the schema set afterwards, so the
    server does not validate what it sends.
    """

    def mismatched_schema(query: str) -> CallToolResult:
        """Search, but answer with structuredContent that does not match the output schema."""
        wrong = {"query": query, "hits": f"{len(fake_hits(query).hits)} hits"}
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(wrong))], structured_content=wrong
        )

    tool = Tool.from_function(mismatched_schema, annotations=READ_ONLY)
    tool.fn_metadata.output_schema = SearchResult.model_json_schema()
    return tool


async def _bad_content_middleware(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
    """Rewrite bad_content's result into an invalid `json` block after the server's own checks.

    The server validates results before they leave (an invalid block would become "Handler
    returned an invalid result"), but a middleware's return value goes to the wire as is.
    """
    result = await call_next(ctx)
    params = ctx.params or {}
    if ctx.method != "tools/call" or params.get("name") != "bad_content":
        return result
    if not isinstance(result, dict) or result.get("isError"):
        return result
    blocks = result.get("content") or []
    text = blocks[0].get("text", "{}") if blocks and isinstance(blocks[0], dict) else "{}"
    return {**result, "content": [{"type": "json", "json": json.loads(text)}]}


@dataclass(frozen=True)
class DemoModes:
    """How the server misbehaves at the HTTP layer (tui/mcptui/emulator/demo_modes.py)."""

    token: str | None = None
    """Every request needs `Authorization: Bearer <token>` (401 on the listing)."""
    path_token: str | None = None
    """Serve under `/s/<path_token>/`."""
    call_token: str | None = None
    """Only tools/call needs the bearer token (the listing works, the call gets 401)."""
    host_check: bool = False
    """DNS-rebinding protection: 421 to any Host header but localhost."""
    forget_sessions: bool = False
    """Forget each session once it has listed tools (404 on the call's stale session id).
    Legacy era only: a 2026-07-28 client has no session to forget."""
    legacy_only: bool = False
    """Speak only the 2025-era initialize handshake, as mcp 1.x servers do: server/discover
    gets HTTP 400 ("Missing session ID") on streamable HTTP, -32601 on SSE."""
    modern_only: bool = False
    """Speak only 2026-07-28: initialize gets -32022 (a legacy client cannot connect)."""

    def lines(self) -> list[str]:
        """What the banner says of each mode that is on."""
        return [
            line
            for on, line in (
                (self.call_token, "tools/call needs Authorization: Bearer <your --call-token>"),
                (self.host_check, "Host header checked: only localhost; 421 at 127.0.0.1"),
                (
                    self.forget_sessions,
                    "sessions forgotten after tools/list (404 on the call; legacy era only)",
                ),
                (
                    self.legacy_only,
                    "legacy only: 2025-11-25 (initialize); server/discover is "
                    "refused as mcp 1.x refuses it",
                ),
                (
                    self.modern_only,
                    "modern only: 2026-07-28 (server/discover); initialize gets -32022",
                ),
            )
            if on
        ]


def build_app(
    token: str | None = None, path_token: str | None = None, *, modes: DemoModes | None = None
) -> ASGIApp:
    """One ASGI app: streamable HTTP at /mcp, SSE at /sse, misbehaving as `modes` say
    (`token` and `path_token` are shorthands for those modes)."""
    modes = modes or DemoModes(token=token, path_token=path_token)
    server = build_server(modern_only=modes.modern_only)
    security = host_check_security(modes.host_check)
    http_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security
    )
    sse_app = server.sse_app(
        sse_path=SSE_PATH, message_path=MESSAGE_PATH, transport_security=security
    )
    manager = server.session_manager  # exists once streamable_http_app() has run
    served: ASGIApp = Starlette(
        routes=[*http_app.routes, *sse_app.routes], lifespan=lambda _app: manager.run()
    )
    if modes.legacy_only:
        served = LegacyOnly(served)
    if modes.forget_sessions:
        served = ForgetSessions(served)
    if modes.call_token:
        served = CallToken(served, modes.call_token)
    if modes.token:
        served = BearerAuth(served, modes.token)
    return PathToken(served, modes.path_token) if modes.path_token else served


def banner(modes: DemoModes) -> str:
    """The start-up text; `{url}` is filled in by serve_forever once the socket is bound."""
    auth = (
        "  auth:             Authorization: Bearer <your --token> required\n"
        if modes.token
        else "  auth:             none\n"
    )
    prefix = f"/s/{modes.path_token}" if modes.path_token else ""
    extra = "".join(f"  mode:             {line}\n" for line in modes.lines())
    eras = (
        "2025-11-25 (initialize)"
        if modes.legacy_only
        else "2026-07-28 (server/discover)"
        if modes.modern_only
        else "2026-07-28 (server/discover) and 2025-11-25 (initialize)"
    )
    return (
        "mcptui demo MCP server\n"
        f"  streamable HTTP:  {{url}}{prefix}{MCP_PATH}\n"
        f"  SSE:              {{url}}{prefix}{SSE_PATH}\n"
        f"  MCP revisions:    {eras}\n"
        f"{auth}{extra}"
        f"  tools:            {', '.join(TOOL_NAMES)}\n"
        "Ctrl+C to stop."
    )


def run_demo_server(host: str, port: int, modes: DemoModes) -> None:
    """Serve the demo server in the foreground (`mcptui demo-server`).

    Server-side tool failures are logged to stderr, so the real cause that OpenAI's error hides
    (e.g. failing_api's exception) can be read beside it.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    serve_forever(build_app(modes=modes), host, port, banner=banner(modes))
