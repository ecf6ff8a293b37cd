"""What a tap's record of an MCP server's wire proves about a failure: evidence for the causes.

The wire is the strongest evidence mcptui has, so its rules are strict (tests/causes holds a
case per rule, on real server stacks):
- a finding is `confirmed` only from the failed call's own exchange (tied to it by
  tui/mcptui/model/wire.py: its session, in time order): its answer, its HTTP failure, or the proven
  lack of an answer for as long as the call waited;
- a finding never contradicts what it supports: no answer, or a connection that broke, rules
  the result-shape causes out, since no result came back;
- the server's own words are evidence (sdk_messages): "Output validation error: …" in an
  isError result is the output-schema fault, not a tool error;
- where the wire cannot tell (an unanswered request whose wait was too short to be a timeout),
  it says nothing rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mcptui.model.jsonsafe import loads
from mcptui.model.results import bad_blocks, block_problem, fits_schema, structured_problem
from mcptui.model.sdk_messages import (
    JSONRPC_CAUSES,
    OUTPUT_CHECK_CAUSES,
    RESULT_SHAPE_CAUSES,
    SUB_FIXES,
    hides_its_exception,
    message_cause,
    says_only_invalid_params,
    wraps_a_plain_value,
)
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.wire import WireExchange, WireLinks, closed_by_client

REQUEST_CANCELLED = -32800
"""The JSON-RPC error a server answers a cancelled request with (MCP's cancellation)."""
WORKED = "worked"
"""Not a cause: the server's answer was valid, which rules the result-shape causes out."""
NO_RESULT = "no_result"
"""Not a cause: no result came back (a broken connection, a call that never reached the
server), which rules the result-shape causes out entirely."""
RAISED_CODES = (-32603, 0)
"""What low-level servers answer when the tool's handler raises (the TypeScript SDK: -32603
Internal error; the mcp SDK's low-level server: 0): the tool's own failure, sent as a JSON-RPC
error instead of an isError result."""
CLOCK_SKEW = 0.25
"""An answer this soon after the stream's failure is the one the failure reports: a
standalone tap's file is aligned with the run's by estimate (tui/mcptui/io/merge.py)."""
SHORTEST_TIMEOUT = 1.0
"""An unanswered request that waited less than this proves no timeout (seconds)."""


@dataclass(frozen=True, slots=True)
class WireFinding:
    """What the wire proves about a failure: a cause key (or WORKED, NO_RESULT) and the words
    that show it."""

    cause: str
    evidence: str
    confidence: Literal["confirmed", "likely", "possible"] = "confirmed"
    fix: str | None = None
    """A narrower fix than the cause's own, for what the wire showed."""
    rules_out: tuple[str, ...] = ()
    """Causes the stream suggests that this finding shows to be merely possible."""


def call_findings(
    resp: ResponseState, item: ItemState, links: WireLinks, failed_t: float | None
) -> list[WireFinding]:
    """What the tap saw of a failed `mcp_call`: the result OpenAI's client rejected and why,
    the server's own error, an HTTP refusal, a broken connection, or a call that got no
    answer in time; and, for a call that never reached the server, what broke before it."""
    call = links.call_of(item.key)
    if call is None:
        return _never_reached(resp, item, links)
    tied = links.by_item[item.key]
    name = item.name or call.tool or "the tool"
    cancel = next((e for e in tied if e.method == "notifications/cancelled"), None)
    if call.failure is not None and not (
        cancel is not None
        and call.answered_t is not None
        and cancel.sent_t is not None
        and call.answered_t >= cancel.sent_t
    ):
        if closed_by_client(call.failure):  # the caller gave up (2026-07-28: how it does)
            waited = (
                (call.answered_t - call.sent_t)
                if call.answered_t is not None and call.sent_t is not None
                else None
            )
            if waited is None or waited < SHORTEST_TIMEOUT:
                return [WireFinding(NO_RESULT, "")]
            return [
                WireFinding(
                    "timeout",
                    f"tap: tools/call {name} got no answer for "
                    f"{waited:.1f} s, then the caller dropped the request",
                ),
                WireFinding(NO_RESULT, ""),
            ]
        if (
            call.failure.get("kind") == "connection_error"
            and links.listing_for(resp, item) is not None
        ):
            # It answered the listing in this response: it went away, it was reachable.
            return [
                WireFinding(
                    "connection_lost",
                    f"tap: {call.failure.get('message', '')} "
                    "(the server had answered the tool listing in this response)",
                ),
                WireFinding(NO_RESULT, ""),
            ]
        carried = _jsonrpc_error_in(call.failure)
        if (
            carried is not None
            and call.failure.get("http_status") == 400
            and not (call.session and _SESSION_WORDS.search(str(carried.get("message"))))
        ):
            return _error_findings(
                call, name, links.listing_for(resp, item), carried, call.failure.get("http_status")
            )
        return failure_findings(call.failure, call)  # not the connection the caller dropped
    if call.sent_t is not None and (
        cancel is not None or (call.error or {}).get("code") == REQUEST_CANCELLED
    ):
        at = cancel.sent_t if cancel is not None else call.answered_t
        waited_for = f" for {at - call.sent_t:.1f} s" if at is not None else ""
        return [
            WireFinding(
                "timeout",
                f"tap: tools/call {name} got no answer{waited_for}, then "
                "the caller cancelled it"
                + (" (notifications/cancelled)" if cancel is not None else ""),
            ),
            WireFinding(NO_RESULT, ""),
        ]
    if (
        failed_t is not None
        and call.sent_t is not None
        and (call.answered_t is None or call.answered_t > failed_t + CLOCK_SKEW)
    ):
        waited = failed_t - call.sent_t
        if waited < 0:
            return []  # sent after the call failed: not what failed it
        if call.answered_t is None and waited < SHORTEST_TIMEOUT:
            return [WireFinding(NO_RESULT, "")]  # too short to prove a timeout
        late = (
            f"; its answer came {_seconds(call.answered_t - failed_t)} after that"
            if call.answered_t is not None
            else ""
        )
        return [
            WireFinding(
                "timeout",
                f"tap: tools/call {name} was sent and got no answer in "
                f"the {waited:.1f} s before the call failed{late}",
            ),
            WireFinding(NO_RESULT, ""),
        ]
    listing = links.listing_for(resp, item)
    if call.error is not None:
        return _error_findings(call, name, listing)
    result = call.result
    if result is None:
        return [WireFinding(NO_RESULT, "")]  # no answer recorded, nor a failure: cannot tell
    schema = output_schema(listing, name) if listing is not None else None
    if result.get("isError") is True:
        return _is_error_findings(result, schema, name)
    content = result.get("content")
    bad = bad_blocks(content) if isinstance(content, list) else []
    if bad or not isinstance(content, list):
        what = block_problem(*bad[0]) if bad else "the result has no content list"
        return [WireFinding("invalid_content", f"tap: the tools/call result: {what}")]
    if schema is not None:
        problem = structured_problem(schema, result.get("structuredContent"))
        if problem is not None and problem[0] == "missing_structured_content":
            return [
                WireFinding(
                    "output_schema_without_structured_content",
                    f"tap: tools/list declared an outputSchema for {name}, and "
                    "its tools/call result has no structuredContent",
                )
            ]
        if problem is not None and problem[0] == "invalid_structured_content":
            return [
                WireFinding(
                    "invalid_structured_content",
                    f"tap: the result's structuredContent does not match {name}'s "
                    f"outputSchema: {problem[1]}",
                )
            ]
    return [
        WireFinding(
            WORKED,
            f"tap: the server answered tools/call {name} with a valid "
            "result" + (f" in {call.seconds:.2f} s" if call.seconds is not None else ""),
        )
    ]


def _error_findings(
    call: WireExchange,
    name: str,
    listing: WireExchange | None,
    error: dict[str, Any] | None = None,
    status: int | None = None,
) -> list[WireFinding]:
    """The server answered the call with a JSON-RPC error (`error`: one it sent in an HTTP
    error's body, with that `status`): its code or words name the fault (a TypeScript server
    refuses its own invalid result with -32602). An "invalid params" error for arguments that
    fit the tool's inputSchema is about something else: most likely the server's own result
    (fastmcp words it "Invalid request parameters")."""
    error = error or call.error or {}
    code, text = error.get("code"), str(error.get("message", ""))
    said = f"tap: the server answered tools/call {name} with JSON-RPC error {code}: {text}" + (
        f" (HTTP {status})" if status is not None else ""
    )
    named = message_cause(text)
    if type(code) is int and code in JSONRPC_CAUSES:
        return [WireFinding(JSONRPC_CAUSES[code], said)]
    if named is not None and named.cause in RESULT_SHAPE_CAUSES:
        return [WireFinding(named.cause, said)]  # the server refused its own result
    if code == -32602 and says_only_invalid_params(text) and _arguments_fit(call, listing, name):
        return [
            WireFinding(
                "invalid_content",
                f"{said}; but the arguments fit {name}'s "
                "inputSchema, so the server refused something else: most likely "
                "its own result",
                "likely",
                rules_out=("protocol_error",),
            )
        ]
    if code in RAISED_CODES and named is None:
        return [
            WireFinding("tool_error", said, fix=SUB_FIXES["raised"]),
            WireFinding(NO_RESULT, ""),
        ]
    if call.era != "modern" and (code == -32001 or _SESSION_WORDS.search(text)):
        return [WireFinding("session_terminated", said), WireFinding(NO_RESULT, "")]
    return [WireFinding("protocol_error", said), WireFinding(NO_RESULT, "")]


def _arguments_fit(call: WireExchange, listing: WireExchange | None, name: str) -> bool:
    schema = tool_field(listing, name, "inputSchema") if listing is not None else None
    return schema is not None and fits_schema(schema, call.arguments or {}) is True


def _is_error_findings(
    result: dict[str, Any], schema: dict[str, Any] | None, name: str
) -> list[WireFinding]:
    """An isError result: the tool's own failure, unless the server's words (or MCPServer's
    bare "Error executing tool X" for a tool with an outputSchema) name its output check."""
    text = _text_of(result)
    named = message_cause(text)
    said = f"tap: the result of tools/call {name} has isError: true ({text})"
    if named is not None and named.cause in OUTPUT_CHECK_CAUSES:
        return [WireFinding(named.cause, said)]
    if hides_its_exception(text):
        if schema is not None and not wraps_a_plain_value(schema):
            return [
                WireFinding(
                    "hidden_exception",
                    f"{said}; tools/list declared a structured "
                    f"outputSchema for {name}, and the mcp SDK's MCPServer words "
                    "its own output-check failure so too",
                    "likely",
                )
            ]
        return [WireFinding("tool_error", said, fix=SUB_FIXES["hidden_exception"])]
    return [WireFinding("tool_error", said)]


def _jsonrpc_error_in(failure: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC error an HTTP error's body holds (a 2026-07-28 server answers a refused
    request with HTTP 400 and one), if the tap kept it whole."""
    body = failure.get("body")
    if isinstance(body, str) and body.startswith("{"):
        try:
            body = loads(body)  # bounded: a tap keeps any body
        except ValueError:
            return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) and "code" in error else None


def _never_reached(resp: ResponseState, item: ItemState, links: WireLinks) -> list[WireFinding]:
    """A failed call with no tools/call on a wire that the tap watched during this response:
    no result came back; a connection that broke before it is why."""
    if not resp.wire:
        return []
    broken = [
        e
        for e in _all(links)
        if e.failure is not None
        and e.failure.get("kind") in ("connection_error", "disconnect")
        and (item.last_t is None or e.sent_t is None or e.sent_t <= item.last_t)
    ]
    name = item.name or "the tool"
    found = [WireFinding(NO_RESULT, "")]
    if broken:
        last = broken[-1].failure or {}
        found.append(
            WireFinding(
                "connection_lost",
                f"tap: no tools/call {name} reached the "
                f"server; before it, {last.get('message', 'a connection broke')}",
                "likely",
            )
        )
    return found


def _all(links: WireLinks) -> list[WireExchange]:
    return [*links.loose, *(e for found in links.by_item.values() for e in found)]


def listing_findings(exchanges: Sequence[WireExchange]) -> list[WireFinding]:
    """Why connecting to a server or listing its tools failed, as the tap saw it: a failure
    anywhere among them first (it explains the requests left unanswered)."""
    asked = [e for e in exchanges if e.method in ("initialize", "server/discover", "tools/list")]
    for exchange in asked:
        found = failure_findings(exchange.failure, exchange) if exchange.failure else []
        if found:
            return found
    for exchange in exchanges:
        if (
            exchange.method is None
            and exchange.failure is not None
            and exchange.failure.get("kind") == "connection_error"
        ):
            return failure_findings(exchange.failure, exchange)
    methods = {e.method for e in asked}
    if (
        "server/discover" in methods
        and "initialize" not in methods
        and not any(e.result is not None for e in asked if e.method == "server/discover")
    ):
        refused = next((e for e in asked if e.method == "server/discover" and e.failure), None)
        said = f" ({refused.failure.get('message')})" if refused and refused.failure else ""
        return [
            WireFinding(
                "protocol_version_mismatch",
                "tap: the client sent only "
                "server/discover (the 2026-07-28 revision), never initialize, and "
                f"the server answered it with no result{said}: it speaks only the "
                "session-based revision",
                "likely",
            )
        ]
    for exchange in asked:
        if exchange.error is not None:
            code = exchange.error.get("code")
            said = (
                f"tap: the server answered {exchange.method} with JSON-RPC error "
                f"{code}: {exchange.error.get('message')}"
            )
            if exchange.method == "server/discover" and code in (-32601, -32600):
                return [
                    WireFinding(
                        "protocol_version_mismatch",
                        f"{said}: it does not speak the 2026-07-28 revision",
                        "likely",
                    )
                ]
            cause = (
                JSONRPC_CAUSES.get(code, "protocol_error")
                if type(code) is int
                else "protocol_error"
            )
            return [WireFinding(cause, said)]
    return []


HTTP_CAUSES = {401: "auth", 403: "auth", 421: "host_header_421", 404: "session_terminated"}
_SESSION_WORDS = re.compile(r"session", re.IGNORECASE)


def failure_findings(
    failure: dict[str, Any], exchange: WireExchange | None = None
) -> list[WireFinding]:
    """An HTTP failure or broken connection in place of an answer: the cause its status or
    words name. A connection that broke after the request was sent is a server that went
    away (no result came back); one that was never made is an unreachable server."""
    status = failure.get("http_status")
    message = f"tap: {failure.get('message', '')}"
    kind = failure.get("kind")
    if kind == "connection_error":
        return [WireFinding("unreachable", message), WireFinding(NO_RESULT, "")]
    if kind == "disconnect":
        return [WireFinding("connection_lost", message), WireFinding(NO_RESULT, "")]
    session = failure.get("session") or (exchange.session if exchange else None)
    body = str(failure.get("body") or "") + " " + str(failure.get("message") or "")
    if type(status) is not int:
        return []
    if 500 <= status < 600:
        return [WireFinding("mcp_server_error", message), WireFinding(NO_RESULT, "")]
    cause = HTTP_CAUSES.get(status)
    if session and status in (400, 404) and (status == 404 or _SESSION_WORDS.search(body)):
        cause = "session_terminated"  # the server no longer knows the session it was given
    elif cause == "session_terminated":
        cause = "tool_list_failure"  # a 404 without a session: the path is wrong
    return [WireFinding(cause, message), WireFinding(NO_RESULT, "")] if cause else []


def output_schema(listing: WireExchange, name: str) -> dict[str, Any] | None:
    """The outputSchema a tools/list answer declares for a tool (None: none, or not listed)."""
    return tool_field(listing, name, "outputSchema")


def tool_field(listing: WireExchange, name: str, key: str) -> dict[str, Any] | None:
    """A schema a tools/list answer declares for a tool (None: none, or not listed)."""
    tools = (listing.result or {}).get("tools")
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and tool.get("name") == name:
            schema = tool.get(key)
            return schema if isinstance(schema, dict) else None
    return None


def handshake(exchanges: Sequence[WireExchange], label: str | None = None) -> dict[str, Any] | None:
    """A server's answer to initialize (or server/discover): its serverInfo and its shape
    tell which SDK it runs on (sdk_messages.family_of). `label`: that server's, where the
    tap names the servers it stands for."""
    for exchange in exchanges:
        if (
            exchange.method in ("initialize", "server/discover")
            and exchange.result is not None
            and (not exchange.labels or label is None or label in exchange.labels)
        ):
            return exchange.answer
    return None


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.0f} ms"


def _text_of(result: dict[str, Any]) -> str:
    texts = [
        str(b.get("text"))
        for b in result.get("content") or []
        if isinstance(b, dict) and b.get("type") == "text"
    ]
    return " ".join(" ".join(texts).split())[:200] or "no text"
