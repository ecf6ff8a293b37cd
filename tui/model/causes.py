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
from urllib.parse import urlsplit

from tui.model.errors import describe_error
from tui.model.events import Event
from tui.model.state import OPENAI_TOOL_TIMEOUT, ItemState, ResponseState
from tui.model.timing import likely_timeout_after
from tui.model.wire import WORKED, WireFinding

Confidence = Literal["confirmed", "likely", "possible"]
CONFIDENCE_RANK = {"confirmed": 0, "likely": 1, "possible": 2}

COMMON_424_HINT = ("the stream cannot tell these candidates apart (listed most common first): "
                   "a probe (p, `mcptui probe`) calls the tool and shows which")
QUICK_FAILURE = 10.0
"""A failure sooner than this (of OpenAI's ~60 s; scaled to another limit) is no timeout."""
CANDIDATES_424 = ("output_schema_without_structured_content", "invalid_content",
                  "invalid_structured_content", "session_terminated")
"""What a quick TaskGroup 424 from a reachable server may be, most common first: the stream
alone cannot tell them apart (each is the same opaque error), only a probe can."""
CANDIDATES_LISTING = ("unreachable", "auth", "host_header_421")
"""Why OpenAI may fail to list a server's tools when its error names no status (its 424
"Failed Dependency" text): only a probe tells them apart."""
LISTING_HINT = ("the error does not say why the listing failed (listed most common first): a "
                "probe (p, `mcptui probe`) connects and shows which")
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


CAUSES: dict[str, Cause] = {cause.key: cause for cause in (
    Cause("output_schema_without_structured_content",
          "Output schema without structuredContent",
          "The tool declares an outputSchema but its result has no structuredContent. OpenAI's "
          "MCP client rejects the result, and the exception surfaces as the TaskGroup 424.",
          "Return structuredContent that matches the outputSchema (in FastMCP/MCPServer: return "
          "a dict or a typed model), or stop declaring the schema (structured_output=False)."),
    Cause("invalid_structured_content", "structuredContent does not match the outputSchema",
          "The result's structuredContent fails validation against the declared outputSchema.",
          "Make the structured result conform to the schema, or fix the schema."),
    Cause("invalid_content", "Invalid content block",
          "A content block has a type MCP does not define (e.g. {\"type\": \"json\"}); the "
          "client cannot parse the result at all.",
          "Use only text, image, audio, resource_link and resource blocks; put JSON in a text "
          "block or in structuredContent."),
    Cause("timeout", "Tool slower than the time limit",
          "OpenAI stops waiting for a tool after about 60 s (the limit is not documented) and "
          "reports the 424.",
          "Make the tool answer sooner: start the work and return a job id to poll with a "
          "second tool, or cut the work down."),
    Cause("unreachable", "MCP server unreachable from OpenAI",
          "OpenAI connects from its own servers: localhost, private addresses, VPN-only hosts "
          "and firewalled ports cannot be reached.",
          "Serve the MCP endpoint on a public HTTPS URL; `mcptui probe` shows whether it answers "
          "from here, which is necessary but not sufficient."),
    Cause("host_header_421", "Host header refused (421) behind a tunnel or proxy",
          "The server's DNS-rebinding protection rejects a Host header it does not expect, "
          "such as a tunnel's public host name, with HTTP 421.",
          "Add the public host to the server's allowed hosts (transport security settings), or "
          "turn DNS-rebinding protection off where a proxy already guards the server."),
    Cause("auth", "Authentication refused (401/403)",
          "The MCP server refused OpenAI's request: the token is missing, wrong or expired.",
          "Send the token in the tool's `headers` or `authorization` field and check that the "
          "server accepts it (`mcptui probe` sends the same headers)."),
    Cause("tool_list_failure", "Tool listing failed",
          "OpenAI could not list the server's tools, so the request failed before the model "
          "ran (usually an HTTP 424 on the POST itself).",
          "Probe the server (`mcptui probe`): check that it is reachable, accepts the token, "
          "and serves the path (/mcp for streamable HTTP, /sse for SSE)."),
    Cause("background_bare_failure", "Background run failed without the MCP error",
          "With background: true, an MCP failure can end the response in a bare "
          "response.failed whose error names no tool.",
          "Run the same request in the foreground (streaming) to see the mcp_call's own "
          "error, and probe the MCP server."),
    Cause("session_terminated", "MCP session lost",
          "A stateful server forgot the session between OpenAI's requests (restart, several "
          "instances behind a load balancer, session timeout).",
          "Run the server stateless (e.g. stateless_http=True) or keep sessions on one "
          "long-lived instance."),
    Cause("protocol_error", "The server answered with a JSON-RPC error",
          "The server rejected the call itself, e.g. -32602 for arguments that do not fit the "
          "input schema, or -32601 for an unknown method.",
          "Compare the recorded arguments with the tool's input schema; read the error "
          "message."),
    Cause("tool_error", "The tool reported an error",
          "The tool ran and returned isError: true. This is the tool's own failure, and its "
          "message is in the error content.",
          "Read the tool's message; the MCP plumbing worked."),
    Cause("insufficient_quota", "Out of quota",
          "The API key's project or organisation has no credit left, or hit its monthly "
          "budget: every request fails until that changes.",
          "Add credit or raise the budget (platform settings → Billing / Limits), or use a "
          "key of a project that has quota. Retrying does not help."),
    Cause("rate_limited", "Rate limited",
          "Too many requests or tokens per minute for this model and tier.",
          "Retry after the time the answer names (Retry-After), send fewer requests at once, "
          "or ask for a higher limit. The SDK retries 429s by itself (max_retries)."),
    Cause("server_error", "Error on OpenAI's side",
          "The API failed while handling the request; the request itself may be fine.",
          "Retry with backoff; if it persists, check status.openai.com and report it with the "
          "x-request-id from the header."),
    Cause("invalid_request", "The request was refused as invalid",
          "A field of the request is missing, misspelt or has a value the API does not accept "
          "(for MCP tools: server_url, allowed_tools, require_approval, headers).",
          "Fix the field the error's `param` names; the message says what it expected."),
)}


COMMONNESS = {key: rank for rank, key in enumerate((
    "output_schema_without_structured_content", "timeout", "unreachable", "auth",
    "tool_list_failure", "invalid_content", "invalid_structured_content", "host_header_421",
    "session_terminated", "background_bare_failure", "protocol_error", "tool_error",
    "rate_limited", "insufficient_quota", "server_error", "invalid_request"))}
"""Causes by how often they are behind an MCP failure in forum reports, most common first:
the order of candidates the evidence cannot tell apart."""


@dataclass(frozen=True, slots=True)
class LikelyCause:
    cause: Cause
    confidence: Confidence
    evidence: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"cause": self.cause.key, "title": self.cause.title,
                "confidence": self.confidence, "evidence": list(self.evidence),
                "why": self.cause.why, "fix": self.cause.fix}



def worth_a_paragraph(causes: Sequence[LikelyCause]) -> list[LikelyCause]:
    """The causes a report spells out: the confirmed and likely ones, or every one when all
    are merely possible (the stream cannot tell them apart); the rest get one line."""
    if all(c.confidence == "possible" for c in causes):
        return list(causes)
    return [c for c in causes if c.confidence != "possible"]

@dataclass(frozen=True, slots=True)
class ProbeEvidence:
    """What a direct probe of the tool showed (see `tui.probe`), reduced to what matching
    needs, so that this module stays free of the MCP client."""

    kind: str | None
    """The probe's classification: `missing_structured_content`, `timeout`, `refused`,
    `http_401`, ... (None: the call worked)."""
    message: str
    reachable: bool = True
    credentials_missing: bool = False
    """The probe ran without the request's credentials (a recording keeps none), so a refusal
    proves little."""


@dataclass
class _Matches:
    found: dict[str, LikelyCause] = field(default_factory=dict)

    def add(self, key: str, confidence: Confidence, *evidence: str) -> None:
        old = self.found.get(key)
        if old is not None:
            if CONFIDENCE_RANK[old.confidence] < CONFIDENCE_RANK[confidence]:
                confidence = old.confidence
            evidence = old.evidence + tuple(e for e in evidence if e not in old.evidence)
        self.found[key] = LikelyCause(CAUSES[key], confidence, tuple(evidence))

    def demote(self, keys: tuple[str, ...], evidence: str) -> None:
        """What a probe showed to be fine becomes merely possible (it may differ for OpenAI)."""
        for key in keys:
            old = self.found.get(key)
            if old is not None:
                self.found[key] = LikelyCause(old.cause, "possible", (*old.evidence, evidence))

    def ranked(self) -> list[LikelyCause]:
        """Best first; once a probe has confirmed a cause, only the confirmed ones, without
        the hint that a probe would confirm them."""
        found = sorted(self.found.values(), key=lambda c: (
            CONFIDENCE_RANK[c.confidence], not (c.confidence == "confirmed" and _probed(c)),
            COMMONNESS.get(c.cause.key, len(COMMONNESS))))
        if found and found[0].confidence == "confirmed" and _probed(found[0]):
            found = [replace(c, evidence=tuple(e for e in c.evidence if e != COMMON_424_HINT))
                     for c in found if c.confidence == "confirmed"]
        # What was seen (a probe, the wire) before what was inferred from the stream.
        return [replace(c, evidence=tuple(sorted(c.evidence, key=lambda e: not _seen(e))))
                for c in found]


def _probed(cause: LikelyCause) -> bool:
    """Confirmed by what a probe or a tap saw (more specific than what the stream names)."""
    return any(_seen(e) for e in cause.evidence)


def _seen(evidence: str) -> bool:
    return evidence.startswith(("probe", "tap:"))


RESULT_SHAPE_CAUSES = ("output_schema_without_structured_content", "invalid_structured_content",
                       "invalid_content")
"""Causes in the tool's answer itself: a probe whose call worked speaks against them."""

PROBE_KINDS: dict[str, str] = {
    "missing_structured_content": "output_schema_without_structured_content",
    "invalid_structured_content": "invalid_structured_content",
    "invalid_content": "invalid_content",
    "timeout": "timeout",
    "connection_lost": "session_terminated",
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
}
"""Probe classifications (`tui.probe`, `tui.mcpclient`) and the cause each one confirms."""


def mcp_entries(request: Any) -> list[dict[str, Any]]:
    """A request's (or a response's echoed) `{"type": "mcp", ...}` tool entries; nothing for
    a malformed `tools`."""
    tools = request.get("tools") if isinstance(request, dict) else None
    if not isinstance(tools, list):
        return []
    return [t for t in tools if isinstance(t, dict) and t.get("type") == "mcp"]


def item_causes(resp: ResponseState, item: ItemState, events: Sequence[Event], *,
                tool_seconds: float | None = None, server_url: str | None = None,
                probe: ProbeEvidence | None = None, api_local: bool = False,
                wire: Sequence[WireFinding] = ()) -> list[LikelyCause]:
    """Likely causes of a failed `mcp_call` or `mcp_list_tools` item, best first.

    `api_local`: the API that made the calls runs on this machine or network (the emulator),
    so a private server URL says nothing about reachability. `wire`: what a tap saw of it
    (tui/model/wire.py), which confirms its cause as a probe does."""
    if not item.failed:
        return []
    limit = resp.tool_limit
    url = None if api_local or resp.emulated else server_url
    listing = item.type == "mcp_list_tools"
    matches = _Matches()
    if probe is not None:
        _from_probe(matches, probe, reached=_listed_by_same_server(resp, item),
                    listing_failed=listing)
    if listing:
        _listing_failed(matches, f"mcp_list_tools failed: "
                        f"{describe_error(item.error) or item.status}",
                        describe_error(item.error), url)
        _from_wire(matches, wire)
        return matches.ranked()
    error = item.error
    text = describe_error(error)
    kind = error.get("type") if isinstance(error, dict) else None
    if kind == "mcp_tool_execution_error":
        matches.add("tool_error", "confirmed", f"the tool returned isError: {text}")
    elif kind == "mcp_protocol_error":
        if _SESSION_LOST.search(text):
            matches.add("session_terminated", "likely", f"the server said: {text}")
        elif MCP_CLIENT_HTTP_ERROR.lower() in text.lower():
            matches.add("auth", "possible",
                        f"the server refused the call at the HTTP layer ({text}): the status "
                        "is not kept, 401/403 is the usual one after a listing that worked",
                        "a probe (p, `mcptui probe`) makes the call and shows the status")
        else:
            matches.add("protocol_error", "confirmed", f"JSON-RPC error: {text}")
    elif _is_taskgroup(error):
        _taskgroup(matches, resp, item, tool_seconds, url, limit)
    else:
        _from_text(matches, text, url)
        if tool_seconds is not None and tool_seconds >= likely_timeout_after(limit):
            matches.add("timeout", "likely", f"the call failed after {tool_seconds:.1f} s")
    if probe is not None and probe.kind is None and probe.reachable:
        matches.demote(RESULT_SHAPE_CAUSES, f"probe: the call worked from here ({probe.message})")
    _from_wire(matches, wire)
    return matches.ranked()


def _from_wire(matches: _Matches, findings: Sequence[WireFinding]) -> None:
    """What OpenAI's servers and the MCP server said to each other is proof, not a guess; a
    valid result on the wire rules out the result-shape causes."""
    for finding in findings:
        if finding.cause == WORKED:
            matches.demote(RESULT_SHAPE_CAUSES, finding.evidence)
        else:
            matches.add(finding.cause, "confirmed", finding.evidence)


def response_causes(resp: ResponseState, events: Sequence[Event], *,
                    request: dict[str, Any] | None = None,
                    probe: ProbeEvidence | None = None,
                    api_local: bool = False,
                    wire: Sequence[WireFinding] = ()) -> list[LikelyCause]:
    """Likely causes of a failed request or response that no failed item explains; `probe`
    is what probing the request's MCP server showed (for a failed tool listing)."""
    matches = _Matches()
    url = None if api_local or resp.emulated else _only_server_url(resp, request)
    listing = False
    for index in resp.error_events:
        raw = events[index].raw
        text = str(raw.get("message") or describe_error(raw.get("body") or raw))
        if _is_listing_error(text):
            listing = True
            _listing_failed(matches, f"the API said: {text}", text, url)
        else:
            _api_error(matches, raw.get("body") or raw,
                       raw.get("status") if type(raw.get("status")) is int else None)
    bare = False
    if resp.status == "failed" and not any(item.failed for item in resp.items):
        background = resp.background or bool((request or {}).get("background"))
        mcp_tools = bool(mcp_entries({"tools": resp.tools}) or mcp_entries(request))
        if background and mcp_tools:
            bare = True
            error = describe_error(resp.error) or "no error details"
            matches.add("background_bare_failure", "likely",
                        f"background response with MCP tools failed: {error}",
                        "no mcp_call in it failed with an error of its own")
    if resp.error is not None and _is_listing_error(describe_error(resp.error)):
        listing = True
        if not any(item.type == "mcp_list_tools" and item.failed for item in resp.items):
            _listing_failed(matches, f"the response failed: {describe_error(resp.error)}",
                            describe_error(resp.error), url)
    elif resp.error is not None:
        # A bare background failure says server_error whatever the MCP call did: then what
        # the API names is a candidate, not the answer.
        _api_error(matches, resp.error, None, "possible" if bare else "confirmed")
    if probe is not None and listing:
        _from_probe(matches, probe, reached=False, listing_failed=True)
    if listing:
        _from_wire(matches, wire)
    return matches.ranked()


def _is_listing_error(text: str) -> bool:
    lower = text.lower()
    return "tool list" in lower or "retrieving tool" in lower


def _only_server_url(resp: ResponseState, request: dict[str, Any] | None) -> str | None:
    """The server URL when the request names exactly one MCP server: a response-level
    listing failure does not say which server failed."""
    urls = {str(t.get("server_url")) for t in mcp_entries({"tools": resp.tools})
            + mcp_entries(request) if t.get("server_url")}
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


API_ERROR_CODES = {"insufficient_quota": "insufficient_quota",
                   "rate_limit_exceeded": "rate_limited", "server_error": "server_error",
                   "invalid_request_error": "invalid_request"}
"""An API error's `code` or `type` and the cause it names (protocol.md §2 error shapes)."""


def _api_error(matches: _Matches, error: Any, status: int | None,
               confidence: Confidence = "confirmed") -> None:
    """A response-level error the API named: quota, rate limit, its own failure, or an
    invalid request (with the `param` it names)."""
    body = error.get("error") if isinstance(error, dict) and isinstance(
        error.get("error"), dict) else error
    if not isinstance(body, dict):
        return
    text = describe_error(body)
    found = [API_ERROR_CODES[value] for value in (body.get("code"), body.get("type"))
             if isinstance(value, str) and value in API_ERROR_CODES]
    if not found and status is not None:
        found = ["rate_limited"] if status == 429 else ["server_error"] if status >= 500 else []
    if not found:
        return
    key = found[0]
    param = body.get("param")
    evidence = f"the API said: {text}" + (
        f" (param: {param})" if key == "invalid_request" and isinstance(param, str) else "")
    matches.add(key, confidence, evidence)


def _is_taskgroup(error: Any) -> bool:
    text = describe_error(error)
    return "TaskGroup" in text or (isinstance(error, dict) and error.get("code") == 424)


def _taskgroup(matches: _Matches, resp: ResponseState, item: ItemState,
               tool_seconds: float | None, server_url: str | None, limit: float) -> None:
    """The opaque 424: an exception escaped OpenAI's MCP client. Timing separates a timeout
    from the rest; nothing in the stream separates the rest (a probe does), so they are equal
    candidates, most common first. Absent timing rules nothing out."""
    which = "OpenAI's ~60 s limit" if limit == OPENAI_TOOL_TIMEOUT else \
        f"the {limit:g} s limit this response names"
    if tool_seconds is not None and tool_seconds >= likely_timeout_after(limit):
        matches.add("timeout", "likely",
                    f"the call failed {tool_seconds:.1f} s after its arguments were sent: "
                    f"about {which}")
        return
    listed = _listed_by_same_server(resp, item)
    quick = tool_seconds is not None and tool_seconds < QUICK_FAILURE * limit / \
        OPENAI_TOOL_TIMEOUT
    evidence = [e for e in (
        f"the call failed {_duration(tool_seconds)} after its arguments were sent: too soon "
        f"for a timeout ({which})" if quick and tool_seconds is not None else None,
        "the same server listed its tools in this response, so it was reachable"
        if listed else None) if e]
    for position, key in enumerate(CANDIDATES_424):
        matches.add(key, "possible", *((*evidence, COMMON_424_HINT) if position == 0 else ()))
    if not quick:
        matches.add("timeout", "possible", "no timing in this source to rule it out"
                    if tool_seconds is None else
                    f"the call failed {_duration(tool_seconds)} after its arguments were sent, "
                    f"short of {which}")
    if not listed:
        _private_url(matches, server_url)


def _duration(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"


def _listed_by_same_server(resp: ResponseState, item: ItemState) -> bool:
    return any(other.type == "mcp_list_tools" and not other.failed
               and other.server_label == item.server_label for other in resp.items)


_STATUS = re.compile(r"\b(401|403|404|421)\b")
_SESSION_LOST = re.compile(r"session (terminated|not found|expired)|(unknown|invalid|expired) "
                           r"session", re.IGNORECASE)
_UNREACHABLE = re.compile(r"connection refused|(could not|cannot|failed to|unable to) connect|"
                          r"name or service not known|name resolution|getaddrinfo|"
                          r"no route to host|network is unreachable|host unreachable",
                          re.IGNORECASE)


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
        host = urlsplit(url or "").hostname
    except ValueError:
        return False
    return bool(host) and _is_private(str(host))


def _private_url(matches: _Matches, server_url: str | None) -> None:
    if is_private_url(server_url):
        host = urlsplit(server_url or "").hostname
        matches.add("unreachable", "likely",
                    f"server_url host {host} is not reachable from OpenAI's servers")


def _is_private(host: str) -> bool:
    if host == "localhost" or host.endswith((".local", ".internal", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


def _from_probe(matches: _Matches, probe: ProbeEvidence, *, reached: bool,
                listing_failed: bool = False) -> None:
    """A call's outcome confirms its cause. A failed connection from this machine says less:
    OpenAI connects from elsewhere, and a recording's probe goes without its credentials;
    but where OpenAI could not list the tools either, the same refusal here confirms it."""
    kind = probe.kind
    if kind is None:
        return
    key = PROBE_KINDS.get(kind) or (
        "unreachable" if kind.startswith("http_") and not probe.reachable else None)
    if key == "timeout" and not probe.reachable:  # connecting timed out, not the tool
        key = "unreachable"
    if key is None:
        return
    if probe.reachable or key == "host_header_421":
        matches.add(key, "confirmed", f"probe: {probe.message}")
    elif key == "auth" and probe.credentials_missing:
        matches.add(key, "possible", f"probe: {probe.message} (sent without the recording's "
                    "redacted credentials, so this proves little)")
    elif reached:
        matches.add(key, "possible", f"probe from this machine: {probe.message}; but OpenAI "
                    "reached the server in this response")
    elif listing_failed:
        matches.add(key, "confirmed", f"probe: {probe.message}; OpenAI could not list the "
                    "tools either")
    else:
        matches.add(key, "likely", f"probe from this machine: {probe.message}")
