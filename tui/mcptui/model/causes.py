"""Likely causes: from the opaque error OpenAI reports to what probably went wrong, and why.

"424: unhandled errors in a TaskGroup" names no cause (protocol.md §2). The known causes are a
table; each failure is matched against it from the evidence at hand: the error's shape and
text, how long the tool took, whether the same server answered the tool listing, the request's
server URL, and, when a probe has run, what calling the tool directly showed. A cause is
`confirmed` by a probe, `likely` when the stream's evidence points to it, `possible` when it
fits but nothing singles it out.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcptui.model.errors import describe_error
from mcptui.model.events import Event
from mcptui.model.sdk_messages import (
    FAMILY_NAMES,
    JSONRPC_CAUSES,
    RESULT_SHAPE_CAUSES,
    SUB_FIXES,
    Family,
    family_of,
    hides_its_exception,
    message_cause,
)
from mcptui.model.state import OPENAI_TOOL_TIMEOUT, ItemState, ResponseState, mcp_entries
from mcptui.model.timing import likely_timeout_after
from mcptui.model.urlsafe import split_url
from mcptui.model.wire_evidence import NO_RESULT, RAISED_CODES, WORKED, WireFinding

Confidence = Literal["confirmed", "likely", "possible"]
UNDETERMINED = "undetermined"
"""Not a cause: what is said, rather than a guess, when the evidence names none."""
CONFIDENCE_RANK = {"confirmed": 0, "likely": 1, "possible": 2}

AUTH_FIX = (
    "Put the MCP server's access token in the tool's `authorization` field, the token alone: "
    "OpenAI sends it as `Authorization: Bearer <token>` (or the whole header in `headers`). "
    'OpenAI runs no OAuth flow for you (the openai SDK: "Your application must handle the '
    'OAuth authorization flow and provide the token here"), and the token must be one the '
    "server accepts: not expired, with the scopes it wants. `mcptui probe` sends the same "
    "headers and, for an OAuth server, names the authorization server and scopes (`--oauth` "
    "checks that such a token works)."
)
"""What the request's `authorization` must hold, in the words of the openai SDK's docstring
for the `mcp` tool's `authorization` field (types/responses/tool.py)."""


def oauth_fix(wants: str) -> str:
    """The auth fix for a server a probe found to want OAuth (`wants`: its one-line
    summary, "needs OAuth: authorization server X, scopes Y (…)")."""
    return (
        f"The server wants {wants.removeprefix('needs ')}. OpenAI runs no OAuth flow for you: your "
        "application gets an access token from that authorization server (with those scopes, "
        "for this server) and puts it in the tool's `authorization` field, the token alone "
        "(OpenAI sends `Authorization: Bearer <token>`). `mcptui probe URL --oauth` checks "
        "that such a token works."
    )


def credentials_note(entry: dict[str, Any] | None) -> str | None:
    """What a request's `mcp` tool entry sends the server as credentials, in words (None
    without an entry): evidence for the auth cause. Only a request says this; a response's
    echo of its tools leaves the credentials out, so it says nothing either way."""
    if entry is None:
        return None
    label = entry.get("server_label") or "the"
    headers = entry.get("headers")
    header = isinstance(headers, dict) and any(str(k).lower() == "authorization" for k in headers)
    if entry.get("authorization"):
        return (
            f"the request's {label} tool sends `authorization` (a token, value not kept): "
            "the server refused that token (expired, for another server, or without a "
            "scope it wants)"
        )
    if header:
        return (
            f"the request's {label} tool sends an Authorization header (value not kept): "
            "the server refused it"
        )
    return (
        f"the request's {label} tool sends no `authorization` and no Authorization header: "
        "OpenAI called the server without a token"
    )


COMMON_424_HINT = (
    "the stream cannot tell these candidates apart (listed most common first): "
    "a probe (p, `mcptui probe`) calls the tool and shows which"
)
QUICK_FAILURE = 10.0
"""A failure sooner than this (of OpenAI's ~60 s; scaled to another limit) is no timeout."""
CANDIDATES_424 = (
    "output_schema_without_structured_content",
    "invalid_content",
    "invalid_structured_content",
    "session_terminated",
)
"""What a quick TaskGroup 424 from a reachable server may be, most common first: the stream
alone cannot tell them apart (each is the same opaque error), only a probe can."""
CANDIDATES_LISTING = ("unreachable", "auth", "host_header_421")
"""Why OpenAI may fail to list a server's tools when its error names no status (its 424
"Failed Dependency" text): only a probe tells them apart."""
LISTING_HINT = (
    "the error does not say why the listing failed (listed most common first): a "
    "probe (p, `mcptui probe`) connects and shows which"
)
MCP_CLIENT_HTTP_ERROR = "Server returned an error response"
"""The mcp client's words for an HTTP error status on a tools/call (401, 403, 5xx): a
JSON-RPC error that names no status, so not the server's own JSON-RPC error."""


@dataclass(frozen=True, slots=True)
class Cause:
    """One known way for an MCP call to fail, and what to do about it."""

    key: str
    title: str
    why: str
    fix: str


CAUSES: dict[str, Cause] = {
    cause.key: cause
    for cause in (
        Cause(
            "output_schema_without_structured_content",
            "Output schema without structuredContent",
            "The tool declares an outputSchema but its result has no structuredContent. OpenAI's "
            "MCP client rejects the result, and the exception surfaces as the TaskGroup 424.",
            "Return structuredContent that matches the outputSchema, or stop declaring the "
            "schema. Python (MCPServer, fastmcp): return a dict or a typed model, or turn "
            "structured output off; TypeScript (McpServer): return `structuredContent` beside "
            "`content`, or drop `outputSchema` from registerTool.",
        ),
        Cause(
            "invalid_structured_content",
            "structuredContent does not match the outputSchema",
            "The result's structuredContent fails validation against the declared outputSchema.",
            "Make the structured result conform to the schema, or fix the schema.",
        ),
        Cause(
            "invalid_content",
            "Invalid content block",
            'A content block has a type MCP does not define (e.g. {"type": "json"}); the '
            "client cannot parse the result at all.",
            "Use only text, image, audio, resource_link and resource blocks; put JSON in a text "
            "block or in structuredContent.",
        ),
        Cause(
            "timeout",
            "Tool slower than the time limit",
            "OpenAI stops waiting for a tool after about 60 s (the limit is not documented) and "
            "reports the 424.",
            "Make the tool answer sooner: start the work and return a job id to poll with a "
            "second tool, or cut the work down. On the 2026-07-28 revision, run it as a Task "
            "(the Tasks extension: the client polls for the result instead of waiting).",
        ),
        Cause(
            "unreachable",
            "MCP server unreachable from OpenAI",
            "OpenAI connects from its own servers: localhost, private addresses, VPN-only hosts "
            "and firewalled ports cannot be reached.",
            "Serve the MCP endpoint on a public HTTPS URL; `mcptui probe` shows whether it answers "
            "from here, which is necessary but not sufficient.",
        ),
        Cause(
            "host_header_421",
            "Host header refused (421) behind a tunnel or proxy",
            "The server's DNS-rebinding protection rejects a Host header it does not expect, "
            "such as a tunnel's public host name, with HTTP 421.",
            "Add the public host to the server's allowed hosts (transport security settings), or "
            "turn DNS-rebinding protection off where a proxy already guards the server.",
        ),
        Cause(
            "auth",
            "Authentication refused (401/403)",
            "The MCP server refused OpenAI's request: the token is missing, wrong or expired.",
            AUTH_FIX,
        ),
        Cause(
            "tool_list_failure",
            "Tool listing failed",
            "OpenAI could not list the server's tools, so the request failed before the model "
            "ran (usually an HTTP 424 on the POST itself).",
            "Probe the server (`mcptui probe`): check that it is reachable, accepts the token, "
            "and serves the path (/mcp for streamable HTTP, /sse for SSE).",
        ),
        Cause(
            "background_bare_failure",
            "Background run failed without the MCP error",
            "With background: true, an MCP failure can end the response in a bare "
            "response.failed whose error names no tool.",
            "Run the same request in the foreground (streaming) to see the mcp_call's own "
            "error, and probe the MCP server.",
        ),
        Cause(
            "session_terminated",
            "MCP session lost",
            "A stateful server forgot the session between OpenAI's requests (restart, several "
            "instances behind a load balancer, session timeout).",
            "Run the server stateless (Python: stateless_http=True; TypeScript: "
            "sessionIdGenerator: undefined) or keep sessions on one long-lived instance.",
        ),
        Cause(
            "protocol_error",
            "The server answered with a JSON-RPC error",
            "The server rejected the call itself, e.g. -32602 for arguments that do not fit the "
            "input schema, or -32601 for an unknown method.",
            "Compare the recorded arguments with the tool's input schema; read the error message.",
        ),
        Cause(
            "tool_error",
            "The tool reported an error",
            "The tool ran and returned isError: true. This is the tool's own failure, and its "
            "message is in the error content.",
            "Read the tool's message; the MCP plumbing worked.",
        ),
        Cause(
            "insufficient_quota",
            "Out of quota",
            "The API key's project or organisation has no credit left, or hit its monthly "
            "budget: every request fails until that changes.",
            "Add credit or raise the budget (platform settings → Billing / Limits), or use a "
            "key of a project that has quota. Retrying does not help.",
        ),
        Cause(
            "rate_limited",
            "Rate limited",
            "Too many requests or tokens per minute for this model and tier.",
            "Retry after the time the answer names (Retry-After), send fewer requests at once, "
            "or ask for a higher limit. The SDK retries 429s by itself (max_retries).",
        ),
        Cause(
            "server_error",
            "Error on OpenAI's side",
            "The API failed while handling the request; the request itself may be fine.",
            "Retry with backoff; if it persists, check status.openai.com and report it with the "
            "x-request-id from the header.",
        ),
        Cause(
            "hidden_exception",
            "The server hid the exception: the tool raised, or its result failed its outputSchema",
            'The mcp SDK\'s MCPServer answers only "Error executing tool X" for any exception '
            "that is not a ToolError, its own output check among them (a pydantic "
            "ValidationError when the tool's result does not match its return annotation, the "
            "classic 424 of older servers). The answer cannot tell the two apart; the server's "
            "log can.",
            "Read the server's log at that time: a ValidationError on the tool's output means "
            "the return value does not match its annotation (return a value that matches, or "
            "@server.tool(structured_output=False)); any other exception is the tool's own "
            'failure (raise ToolError("...") to pass its message to the model).',
        ),
        Cause(
            "connection_lost",
            "The MCP server dropped the connection mid-call",
            "The server process crashed, restarted or was stopped while it handled the call, or "
            "a proxy between cut the connection: no result came back.",
            "Read the server's log at that time (a crash, an out-of-memory kill, a deploy); make "
            "the server survive the call, and serve it statelessly so a restart loses nothing.",
        ),
        Cause(
            "mcp_server_error",
            "The MCP server failed with an HTTP 5xx",
            "The MCP server (or, for OpenAI's own connectors, OpenAI's connector) answered the "
            "call with a server error instead of a JSON-RPC result: an exception outside the "
            "tool's own error handling.",
            "Read the server's log for the exception at that time; a probe (p, `mcptui probe`) "
            "makes the same call and shows the answer. For an OpenAI connector, retry later or "
            "report it: its server is not yours.",
        ),
        Cause(
            "protocol_version_mismatch",
            "The client and server speak different MCP revisions",
            "One side speaks only the stateless 2026-07-28 revision (server/discover) and the "
            "other only the session-based 2025-11-25 one (initialize), or the server refused the "
            "protocol version the client asked for (-32022).",
            "Serve both revisions (mcp >= 2.3 and the TypeScript SDK v2 do on one endpoint), or "
            "pin the client to a revision the server speaks (`mcptui probe` lists them).",
        ),
        Cause(
            "header_mismatch",
            "MCP routing headers disagree with the request body",
            "In the 2026-07-28 revision every request repeats its method, name and protocol "
            "version in headers (Mcp-Method, Mcp-Name, MCP-Protocol-Version) and in `_meta`; the "
            "server refuses a request where they differ (-32020), often because a proxy rewrote "
            "or dropped a header.",
            "Make sure proxies pass the Mcp-* headers through unchanged, and that a client sets "
            "them from the same request it sends.",
        ),
        Cause(
            "stored_response_missing",
            "mcptui asked for a response the API does not have",
            "mcptui's own GET /responses/{id} (attach, resume) was answered 404: the id is not "
            "known to this key's project, the response was created with store: false, it was "
            "not a background run (only those can be streamed again), or it has expired. Your "
            "request was not at fault.",
            "Check the id and that the key belongs to the project that created it; attach only "
            "to background responses (background: true, store: true); follow a foreground run "
            "with `mcptui run` instead.",
        ),
        Cause(
            "invalid_request",
            "The request was refused as invalid",
            "A field of the request is missing, misspelt or has a value the API does not accept "
            "(for MCP tools: server_url, allowed_tools, require_approval, headers).",
            "Fix the field the error's `param` names; the message says what it expected.",
        ),
        Cause(
            UNDETERMINED,
            "Cannot tell from this recording",
            "The error names no cause, and nothing else recorded (timing, the tool listing, a "
            "tap of the MCP server's wire, a probe) singles one out.",
            "Record the MCP side too: `mcptui run REQUEST --tap` (or `mcptui tap` in front of "
            "the server), or probe the server (p, `mcptui probe`).",
        ),
    )
}


STACK_FIXES: dict[tuple[str, Family], str] = {
    (
        "output_schema_without_structured_content",
        "python",
    ): "Return a dict or a pydantic model that matches the tool's return annotation "
    "(MCPServer builds structuredContent from it), or declare no schema: "
    "@server.tool(structured_output=False). A low-level server must put structuredContent "
    "in its CallToolResult or leave outputSchema out of tools/list.",
    (
        "output_schema_without_structured_content",
        "fastmcp",
    ): "Return a dict, dataclass or pydantic model that matches the tool's output schema "
    "(fastmcp sends it as structuredContent), or declare none: @mcp.tool(output_schema="
    "None).",
    (
        "output_schema_without_structured_content",
        "typescript",
    ): "Return `structuredContent` beside `content` from the tool's callback (McpServer."
    "registerTool checks it against `outputSchema`), or remove `outputSchema` from the "
    "tool's config. A low-level Server must put structuredContent in its result or leave "
    "outputSchema out of tools/list.",
    (
        "invalid_structured_content",
        "python",
    ): "Make the returned value match the tool's return annotation (the outputSchema "
    "MCPServer derives from it), or change the annotation.",
    (
        "invalid_structured_content",
        "fastmcp",
    ): "Make the returned value match the tool's output_schema, or change the schema.",
    (
        "invalid_structured_content",
        "typescript",
    ): "Make `structuredContent` match the tool's zod `outputSchema`, or change the schema.",
    (
        "invalid_content",
        "python",
    ): "Return only TextContent, ImageContent, AudioContent, ResourceLink or EmbeddedResource "
    "blocks: put JSON in a TextContent (json.dumps) or in structuredContent.",
    (
        "invalid_content",
        "typescript",
    ): "Return content blocks of type text, image, audio, resource_link or resource: put "
    "JSON in `{type: 'text', text: JSON.stringify(value)}` or in structuredContent.",
    (
        "session_terminated",
        "python",
    ): "Serve statelessly (MCPServer(..., stateless_http=True)), or keep sessions on one "
    "long-lived instance with sticky routing.",
    (
        "session_terminated",
        "fastmcp",
    ): "Serve statelessly (mcp.run(transport='http', stateless_http=True) or "
    "mcp.http_app(stateless_http=True)), or keep sessions on one long-lived instance.",
    (
        "session_terminated",
        "typescript",
    ): "Create the StreamableHTTPServerTransport with `sessionIdGenerator: undefined` "
    "(stateless), or keep sessions on one long-lived instance with sticky routing.",
    (
        "host_header_421",
        "python",
    ): "Add the public host to TransportSecuritySettings(allowed_hosts=[...]), or set "
    "enable_dns_rebinding_protection=False where a proxy already guards the server.",
    (
        "host_header_421",
        "typescript",
    ): "Add the public host to the transport's `allowedHosts` (or turn "
    "`enableDnsRebindingProtection` off where a proxy already guards the server).",
}
"""A cause's fix in the words of the server's SDK (sdk_messages.family_of); the general fix
names both Python and TypeScript where they differ."""

COMMONNESS = {
    key: rank
    for rank, key in enumerate(
        (
            "output_schema_without_structured_content",
            "hidden_exception",
            "timeout",
            "unreachable",
            "auth",
            "tool_list_failure",
            "invalid_content",
            "invalid_structured_content",
            "host_header_421",
            "session_terminated",
            "connection_lost",
            "mcp_server_error",
            "background_bare_failure",
            "protocol_error",
            "tool_error",
            "protocol_version_mismatch",
            "header_mismatch",
            "rate_limited",
            "insufficient_quota",
            "server_error",
            "invalid_request",
            "stored_response_missing",
            UNDETERMINED,
        )
    )
}
"""Causes by how often they are behind an MCP failure in forum reports, most common first:
the order of candidates the evidence cannot tell apart."""


@dataclass(frozen=True, slots=True)
class LikelyCause:
    cause: Cause
    confidence: Confidence
    evidence: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause.key,
            "title": self.cause.title,
            "confidence": self.confidence,
            "evidence": list(self.evidence),
            "why": self.cause.why,
            "fix": self.cause.fix,
        }


def worth_a_paragraph(causes: Sequence[LikelyCause]) -> list[LikelyCause]:
    """The causes a report spells out: the confirmed and likely ones, or every one when all
    are merely possible (the stream cannot tell them apart); the rest get one line."""
    if all(c.confidence == "possible" for c in causes):
        return list(causes)
    return [c for c in causes if c.confidence != "possible"]


@dataclass(frozen=True, slots=True)
class ProbeEvidence:
    """What a direct probe of the tool showed (see `mcptui.probe`), reduced to what matching
    needs, so that this module stays free of the MCP client."""

    kind: str | None
    """The probe's classification: `missing_structured_content`, `timeout`, `refused`,
    `http_401`, ... (None: the call worked)."""
    message: str
    reachable: bool = True
    credentials_missing: bool = False
    """The probe ran without the request's credentials (a recording keeps none), so a refusal
    proves little."""
    wants: str | None = None
    """What a server that refused the probe with 401/403 asked for, in one line ("needs
    OAuth: authorization server X, scopes Y (…)"), when it publishes OAuth metadata."""


@dataclass
class _Matches:
    found: dict[str, LikelyCause] = field(default_factory=dict)
    family: Family | None = None
    """The server's SDK, when known: fixes are given in its words."""
    fixes: dict[str, str] = field(default_factory=dict)
    """A narrower fix for a cause than its own (SUB_FIXES), by cause key."""

    def add(self, key: str, confidence: Confidence, *evidence: str, fix: str | None = None) -> None:
        old = self.found.get(key)
        if old is not None:
            if CONFIDENCE_RANK[old.confidence] < CONFIDENCE_RANK[confidence]:
                confidence = old.confidence
            evidence = old.evidence + tuple(e for e in evidence if e not in old.evidence)
        if fix is not None:
            self.fixes[key] = fix
        self.found[key] = LikelyCause(CAUSES[key], confidence, tuple(evidence))

    def drop(self, keys: tuple[str, ...]) -> None:
        """Causes the evidence rules out (no result came back: none of its shape)."""
        for key in keys:
            self.found.pop(key, None)

    def demote(self, keys: tuple[str, ...], evidence: str) -> None:
        """What a probe showed to be fine becomes merely possible (it may differ for OpenAI)."""
        for key in keys:
            old = self.found.get(key)
            if old is not None:
                self.found[key] = LikelyCause(old.cause, "possible", (*old.evidence, evidence))

    def ranked(self, failed: bool = True) -> list[LikelyCause]:
        """Best first; once a probe has confirmed a cause, only the confirmed ones, without
        the hint that a probe would confirm them. For a failure (`failed`) that nothing
        explains: that it cannot be told, never nothing."""
        found = sorted(
            self.found.values(),
            key=lambda c: (
                CONFIDENCE_RANK[c.confidence],
                not (c.confidence == "confirmed" and _probed(c)),
                COMMONNESS.get(c.cause.key, len(COMMONNESS)),
            ),
        )
        if found and found[0].confidence == "confirmed" and _probed(found[0]):
            found = [
                replace(c, evidence=tuple(e for e in c.evidence if e != COMMON_424_HINT))
                for c in found
                if c.confidence == "confirmed"
            ]
        found = _reason_before_symptom(found)
        if not found and failed:
            found = [
                LikelyCause(
                    CAUSES[UNDETERMINED],
                    "possible",
                    ("the error names no cause and nothing recorded here singles one out",),
                )
            ]
        # What was seen (a probe, the wire) before what was inferred from the stream.
        return [
            replace(
                c,
                cause=self._in_words_of_stack(c.cause),
                evidence=tuple(sorted(c.evidence, key=lambda e: not _seen(e))),
            )
            for c in found
        ]

    def _in_words_of_stack(self, cause: Cause) -> Cause:
        fix = self.fixes.get(cause.key) or (
            STACK_FIXES.get((cause.key, self.family)) if self.family else None
        )
        if fix is None:
            return cause
        if self.family is not None and cause.key not in self.fixes:
            fix = f"{fix} (the server runs on {FAMILY_NAMES[self.family]})"
        return replace(cause, fix=fix)


def _reason_before_symptom(found: list[LikelyCause]) -> list[LikelyCause]:
    """A failed listing is what happened; a confirmed or likely reason why it failed (an
    unreachable server, a revision mismatch) is the answer, so it comes first."""
    symptom = next((c for c in found if c.cause.key == "tool_list_failure"), None)
    reasons = [c for c in found if c is not symptom and c.confidence != "possible"]
    if symptom is None or not reasons:
        return found
    rest = [c for c in found if c is not symptom]
    at = rest.index(reasons[-1]) + 1
    return [*rest[:at], symptom, *rest[at:]]


def _probed(cause: LikelyCause) -> bool:
    """Confirmed by what a probe or a tap saw (more specific than what the stream names)."""
    return any(_seen(e) for e in cause.evidence)


def _seen(evidence: str) -> bool:
    return evidence.startswith(("probe", "tap:"))


PROBE_KINDS: dict[str, str] = {
    "missing_structured_content": "output_schema_without_structured_content",
    "invalid_structured_content": "invalid_structured_content",
    "invalid_content": "invalid_content",
    "timeout": "timeout",
    "connection_lost": "connection_lost",
    "session_terminated": "session_terminated",
    "protocol_error": "protocol_error",
    "tool_error": "tool_error",
    "refused": "unreachable",
    "connect_error": "unreachable",
    "closed": "unreachable",
    "http_401": "auth",
    "http_403": "auth",
    "http_404": "tool_list_failure",
    "http_421": "host_header_421",
    "protocol_version": "protocol_version_mismatch",
    "header_mismatch": "header_mismatch",
}
"""Probe classifications (`mcptui.probe`, `mcptui.mcpclient.link`) and the cause each one
confirms."""


def item_causes(
    resp: ResponseState,
    item: ItemState,
    events: Sequence[Event],
    *,
    tool_seconds: float | None = None,
    server_url: str | None = None,
    probe: ProbeEvidence | None = None,
    api_local: bool = False,
    wire: Sequence[WireFinding] = (),
    family: Family | None = None,
    declares_output_schema: bool | None = None,
    credentials: str | None = None,
) -> list[LikelyCause]:
    """Likely causes of a failed `mcp_call` or `mcp_list_tools` item, best first.

    `api_local`: the API that made the calls runs on this machine or network (the emulator),
    so a private server URL says nothing about reachability. `wire`: what a tap saw of it
    (tui/mcptui/model/wire.py), which confirms its cause as a probe does. `family`: the server's SDK
    (sdk_messages.family_of), whose words the fixes use. `declares_output_schema`: whether
    the tool's listing (on the wire) declares an outputSchema; None when no listing says.
    `credentials`: what the request's entry for the server sends (`credentials_note`), which
    the auth cause quotes."""
    if not item.failed:
        return []
    limit = resp.tool_limit
    url = None if api_local or resp.emulated else server_url
    listing = item.type == "mcp_list_tools"
    error = item.error
    text = describe_error(error)
    matches = _Matches(family=family or family_of(None, (text,)))
    if probe is not None:
        _from_probe(
            matches, probe, reached=_listed_by_same_server(resp, item), listing_failed=listing
        )
    if listing:
        _listing_failed(matches, f"mcp_list_tools failed: {text or item.status}", text, url)
        _from_wire(matches, wire)
        _credentials(matches, credentials)
        return matches.ranked()
    kind = error.get("type") if isinstance(error, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if kind == "mcp_tool_execution_error":
        _tool_error(matches, text, declares_output_schema)
    elif kind == "mcp_protocol_error":
        _protocol_error(matches, text, code)
    elif _is_taskgroup(error):
        _taskgroup(matches, resp, item, tool_seconds, url, limit)
    elif type(code) is int and 500 <= code < 600:
        connector = not server_url and not api_local
        matches.add(
            "mcp_server_error",
            "likely",
            f"OpenAI's MCP client got HTTP {code}: {text}"
            + (
                " (no server_url: an OpenAI connector, whose server is OpenAI's)"
                if connector
                else ""
            ),
        )
    else:
        _from_text(matches, text, url)
        if tool_seconds is not None and tool_seconds >= likely_timeout_after(limit):
            matches.add("timeout", "likely", f"the call failed after {tool_seconds:.1f} s")
    if probe is not None and probe.kind is None and probe.reachable:
        matches.demote(RESULT_SHAPE_CAUSES, f"probe: the call worked from here ({probe.message})")
    _from_wire(matches, wire)
    _credentials(matches, credentials)
    return matches.ranked()


def _credentials(matches: _Matches, note: str | None) -> None:
    """Where auth is a cause at all, what the request sent is evidence about it."""
    found = matches.found.get("auth")
    if found is not None and note is not None:
        matches.add("auth", found.confidence, note)


def _tool_error(matches: _Matches, text: str, declares_output_schema: bool | None) -> None:
    """An isError result. Some SDKs check their own output and say so in it (the TypeScript
    McpServer: "Output validation error: …"); MCPServer says only "Error executing tool X" for
    that check and for any exception alike: for a tool with a structured outputSchema (or
    one not known), the cause that says so, not a guess."""
    named = message_cause(text)
    if named is not None and named.cause in RESULT_SHAPE_CAUSES:
        matches.add(named.cause, "confirmed", f"the server's own output check failed: {text}")
        return
    if named is not None and named.cause in SUB_FIXES:
        matches.add(
            "tool_error",
            "confirmed",
            f"the tool returned isError: {text}",
            fix=SUB_FIXES[named.cause],
        )
        return
    if hides_its_exception(text) and declares_output_schema is not False:
        matches.add(
            "hidden_exception",
            "likely",
            f'the server said only "{text}": the mcp SDK\'s MCPServer words every '
            "exception of its own so, its output-schema check among them"
            + (
                "; the tool's listing declares a structured outputSchema"
                if declares_output_schema
                else "; whether the tool declares an outputSchema is not recorded here"
            ),
        )
        matches.add("tool_error", "possible", f"the tool returned isError: {text}")
        return
    if hides_its_exception(text):
        matches.add(
            "tool_error",
            "confirmed",
            f"the tool returned isError: {text}",
            fix=SUB_FIXES["hidden_exception"],
        )
        return
    matches.add("tool_error", "confirmed", f"the tool returned isError: {text}")


def _protocol_error(matches: _Matches, text: str, code: Any) -> None:
    """A JSON-RPC error OpenAI's client got: the code or the server's words name the fault,
    which may be the result's (a TypeScript server refuses its own invalid result, -32602)."""
    named = message_cause(text)
    if type(code) is int and code in JSONRPC_CAUSES:
        matches.add(JSONRPC_CAUSES[code], "confirmed", f"JSON-RPC error: {text}")
    elif named is not None and named.cause in RESULT_SHAPE_CAUSES:
        matches.add(named.cause, "confirmed", f"the server refused its own result: {text}")
    elif _SESSION_LOST.search(text):
        matches.add("session_terminated", "likely", f"the server said: {text}")
    elif MCP_CLIENT_HTTP_ERROR.lower() in text.lower():
        matches.add(
            "auth",
            "possible",
            f"the server refused the call at the HTTP layer ({text}): the status "
            "is not kept, 401/403 is the usual one after a listing that worked",
            "a probe (p, `mcptui probe`) makes the call and shows the status",
        )
        matches.add(
            "mcp_server_error", "possible", "or a server error (5xx): the status is not kept"
        )
    elif code in RAISED_CODES and named is None:
        matches.add(
            "tool_error",
            "likely",
            f"JSON-RPC error {code} (what a low-level server answers when its tool raises): {text}",
            fix=SUB_FIXES["raised"],
        )
    else:
        matches.add(
            "protocol_error",
            "confirmed",
            f"JSON-RPC error: {text}",
            fix=SUB_FIXES.get(named.cause) if named is not None else None,
        )


def _from_wire(matches: _Matches, findings: Sequence[WireFinding]) -> None:
    """What OpenAI's servers and the MCP server said to each other is proof, not a guess; a
    valid result on the wire rules out the result-shape causes, and no result at all rules
    them out entirely."""
    for finding in findings:  # what is ruled out first: a cause the wire names stays
        if finding.cause == WORKED:
            matches.demote(RESULT_SHAPE_CAUSES, finding.evidence)
        elif finding.cause == NO_RESULT:
            matches.drop(RESULT_SHAPE_CAUSES)
        matches.demote(finding.rules_out, finding.evidence)
    for finding in findings:
        if finding.cause not in (WORKED, NO_RESULT):
            matches.add(finding.cause, finding.confidence, finding.evidence, fix=finding.fix)
    if any(f.cause not in (WORKED, NO_RESULT) and f.confidence == "confirmed" for f in findings):
        matches.drop((UNDETERMINED,))


def response_causes(
    resp: ResponseState,
    events: Sequence[Event],
    *,
    request: dict[str, Any] | None = None,
    probe: ProbeEvidence | None = None,
    api_local: bool = False,
    wire: Sequence[WireFinding] = (),
) -> list[LikelyCause]:
    """Likely causes of a failed request or response that no failed item explains; `probe`
    is what probing the request's MCP server showed (for a failed tool listing)."""
    matches = _Matches()
    url = None if api_local or resp.emulated else _only_server_url(resp, request)
    listing = False
    for index in resp.error_events:
        raw = events[index].raw
        text = str(raw.get("message") or describe_error(raw.get("body") or raw))
        if raw.get("status") == 404 and text.startswith("GET /responses/"):
            matches.add(
                "stored_response_missing", "confirmed", f"mcptui's own request was refused: {text}"
            )
        elif _is_listing_error(text):
            listing = True
            _listing_failed(matches, f"the API said: {text}", text, url)
        else:
            _api_error(
                matches,
                raw.get("body") or raw,
                raw.get("status") if type(raw.get("status")) is int else None,
            )
    bare = False
    if resp.status == "failed" and not any(item.failed for item in resp.items):
        background = resp.background or bool((request or {}).get("background"))
        mcp_tools = bool(mcp_entries({"tools": resp.tools}) or mcp_entries(request))
        if background and mcp_tools:
            bare = True
            error = describe_error(resp.error) or "no error details"
            matches.add(
                "background_bare_failure",
                "likely",
                f"background response with MCP tools failed: {error}",
                "no mcp_call in it failed with an error of its own",
            )
    if resp.error is not None and _is_listing_error(describe_error(resp.error)):
        listing = True
        if not any(item.type == "mcp_list_tools" and item.failed for item in resp.items):
            _listing_failed(
                matches,
                f"the response failed: {describe_error(resp.error)}",
                describe_error(resp.error),
                url,
            )
    elif resp.error is not None:
        # A bare background failure says server_error whatever the MCP call did: then what
        # the API names is a candidate, not the answer.
        _api_error(matches, resp.error, None, "possible" if bare else "confirmed")
    if probe is not None and listing:
        _from_probe(matches, probe, reached=False, listing_failed=True)
    if listing:
        _from_wire(matches, wire)
        entries = mcp_entries(request)
        _credentials(matches, credentials_note(entries[0]) if len(entries) == 1 else None)
    # A response-level failure says what it is (the API's error, a connection that failed):
    # "cannot tell" and its advice (tap the MCP side) are for a failed MCP item.
    return matches.ranked(failed=False)


def _is_listing_error(text: str) -> bool:
    lower = text.lower()
    return "tool list" in lower or "retrieving tool" in lower


def _only_server_url(resp: ResponseState, request: dict[str, Any] | None) -> str | None:
    """The server URL when the request names exactly one MCP server: a response-level
    listing failure does not say which server failed."""
    urls = {
        str(t.get("server_url"))
        for t in mcp_entries({"tools": resp.tools}) + mcp_entries(request)
        if t.get("server_url")
    }
    return urls.pop() if len(urls) == 1 else None


def _listing_failed(matches: _Matches, evidence: str, text: str, url: str | None) -> None:
    """OpenAI could not list a server's tools. Its error text may name why (a status, a
    refused connection); when it does not, the usual reasons are equal candidates."""
    matches.add("tool_list_failure", "confirmed", evidence)
    before = set(matches.found)
    _from_text(matches, text, url)
    if set(matches.found) - before - {"timeout"}:
        return
    for position, key in enumerate(CANDIDATES_LISTING):
        matches.add(key, "possible", *((LISTING_HINT,) if position == 0 else ()))


API_ERROR_CODES = {
    "insufficient_quota": "insufficient_quota",
    "rate_limit_exceeded": "rate_limited",
    "server_error": "server_error",
    "invalid_request_error": "invalid_request",
}
"""An API error's `code` or `type` and the cause it names (protocol.md §2 error shapes)."""


def _api_error(
    matches: _Matches, error: Any, status: int | None, confidence: Confidence = "confirmed"
) -> None:
    """A response-level error the API named: quota, rate limit, its own failure, or an
    invalid request (with the `param` it names)."""
    body = (
        error.get("error")
        if isinstance(error, dict) and isinstance(error.get("error"), dict)
        else error
    )
    if not isinstance(body, dict):
        return
    text = describe_error(body)
    found = [
        API_ERROR_CODES[value]
        for value in (body.get("code"), body.get("type"))
        if isinstance(value, str) and value in API_ERROR_CODES
    ]
    if not found and status is not None:
        found = ["rate_limited"] if status == 429 else ["server_error"] if status >= 500 else []
    if not found:
        return
    key = found[0]
    param = body.get("param")
    evidence = f"the API said: {text}" + (
        f" (param: {param})" if key == "invalid_request" and isinstance(param, str) else ""
    )
    matches.add(key, confidence, evidence)


def _is_taskgroup(error: Any) -> bool:
    text = describe_error(error)
    return "TaskGroup" in text or (isinstance(error, dict) and error.get("code") == 424)


def _taskgroup(
    matches: _Matches,
    resp: ResponseState,
    item: ItemState,
    tool_seconds: float | None,
    server_url: str | None,
    limit: float,
) -> None:
    """The opaque 424: an exception escaped OpenAI's MCP client. Timing separates a timeout
    from the rest; nothing in the stream separates the rest (a probe does), so they are equal
    candidates, most common first. Absent timing rules nothing out."""
    which = (
        "OpenAI's ~60 s limit"
        if limit == OPENAI_TOOL_TIMEOUT
        else f"the {limit:g} s limit this response names"
    )
    if tool_seconds is not None and tool_seconds >= likely_timeout_after(limit):
        matches.add(
            "timeout",
            "likely",
            f"the call failed {tool_seconds:.1f} s after its arguments were sent: about {which}",
        )
        return
    listed = _listed_by_same_server(resp, item)
    quick = tool_seconds is not None and tool_seconds < QUICK_FAILURE * limit / OPENAI_TOOL_TIMEOUT
    evidence = [
        e
        for e in (
            f"the call failed {_duration(tool_seconds)} after its arguments were sent: too soon "
            f"for a timeout ({which})"
            if quick and tool_seconds is not None
            else None,
            "the same server listed its tools in this response, so it was reachable"
            if listed
            else None,
        )
        if e
    ]
    for position, key in enumerate(CANDIDATES_424):
        matches.add(key, "possible", *((*evidence, COMMON_424_HINT) if position == 0 else ()))
    if not quick:
        matches.add(
            "timeout",
            "possible",
            "no timing in this source to rule it out"
            if tool_seconds is None
            else f"the call failed {_duration(tool_seconds)} after its arguments were sent, "
            f"short of {which}",
        )
    if not listed:
        _private_url(matches, server_url)


def _duration(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"


def _listed_by_same_server(resp: ResponseState, item: ItemState) -> bool:
    """The same server listed its tools in this response (a listing still in progress, as a
    paste may hold it, proves nothing)."""
    return any(
        other.type == "mcp_list_tools"
        and not other.failed
        and other.status == "completed"
        and other.server_label == item.server_label
        for other in resp.items
    )


_STATUS = re.compile(r"\b(401|403|404|421)\b")
_SESSION_LOST = re.compile(
    r"session (terminated|not found|expired)|(unknown|invalid|expired) "
    r"session",
    re.IGNORECASE,
)
_UNREACHABLE = re.compile(
    r"connection refused|(could not|cannot|failed to|unable to) connect|"
    r"name or service not known|name resolution|getaddrinfo|"
    r"no route to host|network is unreachable|host unreachable",
    re.IGNORECASE,
)


def _from_text(matches: _Matches, text: str, server_url: str | None) -> None:
    """Causes an error text names by itself: status codes, timeouts, lost sessions."""
    lower = text.lower()
    status = _STATUS.search(text)
    code = status.group(1) if status else None
    if code in ("401", "403") or "unauthorized" in lower or "forbidden" in lower:
        matches.add("auth", "likely", f"the error mentions HTTP {code or '401/403'}: {text}")
    if code == "421" or "misdirected" in lower:
        matches.add("host_header_421", "likely", f"the error mentions HTTP 421: {text}")
    if code == "404":
        matches.add("unreachable", "possible", f"HTTP 404: wrong URL path? {text}")
    if "timed out" in lower or "timeout" in lower:
        matches.add("timeout", "likely", f"the error says: {text}")
    if _SESSION_LOST.search(text):
        matches.add("session_terminated", "likely", f"the error says: {text}")
    if _UNREACHABLE.search(text):
        matches.add("unreachable", "likely", f"the error says: {text}")
    _private_url(matches, server_url)


def is_private_url(url: str | None) -> bool:
    """A URL on this machine or a private network (which OpenAI's servers cannot reach)."""
    try:
        host = split_url(url or "").hostname
    except ValueError:
        return False
    return bool(host) and _is_private(str(host))


def _private_url(matches: _Matches, server_url: str | None) -> None:
    if is_private_url(server_url):
        host = split_url(server_url or "").hostname
        matches.add(
            "unreachable",
            "likely",
            f"server_url host {host} is not reachable from OpenAI's servers",
        )


def _is_private(host: str) -> bool:
    if host == "localhost" or host.endswith((".local", ".internal", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


def _from_probe(
    matches: _Matches, probe: ProbeEvidence, *, reached: bool, listing_failed: bool = False
) -> None:
    """A call's outcome confirms its cause. A failed connection from this machine says less:
    OpenAI connects from elsewhere, and a recording's probe goes without its credentials;
    but where OpenAI could not list the tools either, the same refusal here confirms it."""
    kind = probe.kind
    if kind is None:
        return
    key = PROBE_KINDS.get(kind) or (
        "unreachable" if kind.startswith("http_") and not probe.reachable else None
    )
    if key == "timeout" and not probe.reachable:  # connecting timed out, not the tool
        key = "unreachable"
    if key is None:
        return
    if key == "auth" and probe.wants:
        matches.fixes["auth"] = oauth_fix(probe.wants)
    if probe.reachable or key == "host_header_421":
        matches.add(key, "confirmed", f"probe: {probe.message}")
    elif key == "auth" and probe.credentials_missing:
        matches.add(
            key,
            "possible",
            f"probe: {probe.message} (sent without the recording's "
            "redacted credentials, so this proves little)",
        )
    elif reached:
        if key != "unreachable":  # OpenAI reached it: a failed connection here says nothing
            matches.add(key, "possible", f"probe from this machine: {probe.message}")
    elif listing_failed:
        matches.add(
            key, "confirmed", f"probe: {probe.message}; OpenAI could not list the tools either"
        )
    else:
        matches.add(key, "likely", f"probe from this machine: {probe.message}")
