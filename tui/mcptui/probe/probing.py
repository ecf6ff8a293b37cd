"""Probe a request's MCP servers from this machine: what OpenAI's opaque errors hide.

When a Responses call with remote MCP tools fails, OpenAI reports "424: unhandled errors in a
TaskGroup" and names no cause (protocol.md §2). The cause sits between an MCP client and the
server, so it can be found by being that client: `probe` connects to each `mcp` tool of a
request with the real `mcp` client and the request's own headers, lists the tools as
`allowed_tools` filters them, calls tools (the failed calls of a recording, or one named), and
checks every answer against what OpenAI's client demands: structuredContent matching a declared
outputSchema, valid content block types, an answer well within OpenAI's ~60 s (§5). For a
recording's failed calls it then names the cause: the likely-cause rules (`mcptui.model.causes`)
run on each failed item with what the probe showed as evidence, which can confirm one.

This module connects, calls and collects the report; the rules that judge a tool or a result are
pure functions in `mcptui.probe.checks`, re-exported here so that this module stays the one import
for callers. Pure: no Textual. `mcptui.probe.view.render` shows a report; the CLI (`mcptui probe`)
and the app (`probe_call`, to re-run one failed mcp_call) share it. No header value ever leaves this
module: reports carry header names only, and every text or structure from the network or the
request (tool names, schemas, messages quoting them) is scrubbed of the request's secret values
before it is stored. A fault of the probe itself on one tool or call is reported on it, never
raised.

MCP has two eras: the 2025-11-25 `initialize` handshake (legacy, what OpenAI's client is believed
to speak) and the stateless 2026-07-28 revision (`server/discover`). With `protocol="auto"` (the
default) the probe asks each server both, separately, and reports which revisions it speaks
(`ServerReport.revisions`), the tools each lists, and which one OpenAI's client would meet where
that can be known; the calls are made in the era OpenAI's client meets: legacy, unless the server
speaks only the modern one. "legacy" or "modern" asks only that one and calls in it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio
import mcp.types

from mcptui.io.recording import Loaded
from mcptui.mcpclient.link import (
    ERA_METHODS,
    ERA_VERSIONS,
    CallOutcome,
    Era,
    McpLink,
    McpUnavailable,
    check_protocol,
    request_headers,
)
from mcptui.mcpclient.oauth import discover
from mcptui.model.causes import (
    LikelyCause,
    ProbeEvidence,
    is_private_url,
    item_causes,
    mcp_entries,
    response_causes,
)
from mcptui.model.diagnosis import header_options
from mcptui.model.failure_text import describe_exception
from mcptui.model.jsonsafe import loads
from mcptui.model.oauth import OAuthNeeds
from mcptui.model.redaction import REDACTED, hide_known, redact_text, url_secrets, value_secrets
from mcptui.model.textsafe import one_line
from mcptui.model.timeline import Timeline
from mcptui.model.timing import timing_report
from mcptui.probe.checks import (
    CONTENT_TYPES,
    OPENAI_TIMEOUT,
    SIZE_WARNING,
    SLOW_WARNING,
    Check,
    Severity,
    arguments_checks,
    bad_block,
    content_checks,
    content_error_checks,
    input_schema_checks,
    invalid_structured,
    latency_checks,
    missing_structured,
    outcome_checks,
    result_size,
    result_text,
    schema_problem,
    structured_checks,
    timeout_check,
    tool_checks,
    worst,
)

__all__ = [
    "CONTENT_TYPES",
    "OPENAI_TIMEOUT",
    "PREVIEW_CHARS",
    "SIZE_WARNING",
    "SLOW_WARNING",
    "AllowedTools",
    "CallReport",
    "Check",
    "PlannedCall",
    "ProbeReport",
    "Progress",
    "RevisionReport",
    "ServerReport",
    "Severity",
    "Source",
    "ToolReport",
    "Verdict",
    "arguments_checks",
    "bad_block",
    "content_checks",
    "content_error_checks",
    "entry_headers",
    "era_revision",
    "evidence_of",
    "failure_limit",
    "input_schema_checks",
    "invalid_structured",
    "latency_checks",
    "mcp_entries",
    "missing_structured",
    "oauth_check",
    "outcome_checks",
    "parse_allowed_tools",
    "parse_arguments",
    "plan_calls",
    "probe",
    "probe_call",
    "recorded_failures",
    "result_size",
    "result_text",
    "revisions_summary",
    "schema_problem",
    "structured_checks",
    "timeout_check",
    "tool_checks",
    "tool_report",
    "worst",
]

Source = Literal["recording", "named"]

PREVIEW_CHARS = 300

Progress = Callable[[str], None]


# -- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolReport:
    """A listed tool and the sanity checks of its schemas."""

    name: str
    description: str | None
    input_schema: Any
    output_schema: Any
    checks: list[Check] = field(default_factory=list)
    annotations: dict[str, Any] | None = None
    """The tool's annotations as the server sent them (`readOnlyHint`, `destructiveHint`, …)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
            "checks": [c.as_json() for c in self.checks],
        }


@dataclass(frozen=True, slots=True)
class CallReport:
    """One tools/call made by the probe, what OpenAI would make of it, and the checks."""

    server_label: str
    tool: str
    arguments: Any
    """The arguments sent (None when the recorded ones could not be parsed: nothing was sent)."""
    source: Source
    recorded_error: str | None = None
    """The recorded mcp_call's error, in one line (source "recording")."""
    item_id: str | None = None
    """The recorded mcp_call's id (source "recording")."""
    seconds: float | None = None
    """How long the call took; None when it was not made."""
    ok: bool = False
    openai_error: dict[str, Any] | str | None = None
    """What OpenAI would put in `mcp_call.error` (None: the call would succeed)."""
    cause: str | None = None
    """The real reason, unwrapped from exception groups."""
    kind: str | None = None
    """`CallOutcome.kind`, or "not_called" / "bad_arguments" when no call was made."""
    is_error: bool = False
    output_preview: str | None = None
    size_bytes: int | None = None
    checks: list[Check] = field(default_factory=list)
    causes: list[LikelyCause] = field(default_factory=list)
    """For a recorded failed call: its likely causes with this call as evidence, best first."""
    result: Any = None
    """The server's `tools/call` result as JSON (content, structuredContent, isError),
    scrubbed; None when it sent none the client could read."""

    @property
    def called(self) -> bool:
        return self.seconds is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "server_label": self.server_label,
            "tool": self.tool,
            "arguments": self.arguments,
            "source": self.source,
            "recorded_error": self.recorded_error,
            "item_id": self.item_id,
            "seconds": _round(self.seconds),
            "ok": self.ok,
            "openai_error": self.openai_error,
            "cause": self.cause,
            "kind": self.kind,
            "is_error": self.is_error,
            "output_preview": self.output_preview,
            "size_bytes": self.size_bytes,
            "checks": [c.as_json() for c in self.checks],
            "causes": [c.as_json() for c in self.causes],
            "result": self.result,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a recorded failed call's cause is, now that its server was probed: the call was
    re-run (or the server could not be reached), and the rules weighed that with the stream."""

    server_label: str
    tool: str
    item_id: str | None
    causes: list[LikelyCause]

    def as_json(self) -> dict[str, Any]:
        return {
            "server_label": self.server_label,
            "tool": self.tool,
            "item_id": self.item_id,
            "causes": [c.as_json() for c in self.causes],
        }


@dataclass(frozen=True, slots=True)
class RevisionReport:
    """What a server answered to one era's opening request (initialize or server/discover),
    and the tools it then listed."""

    era: Era
    method: str
    """"initialize" or "server/discover"."""
    asked: str
    """The revision asked for."""
    speaks: bool
    protocol_version: str | None = None
    """The revision the session was opened with, when it speaks the era."""
    supported_versions: list[str] = field(default_factory=list)
    """The revisions server/discover listed."""
    server_name: str | None = None
    server_version: str | None = None
    seconds: float | None = None
    """How long opening the session took."""
    tools: list[str] | None = None
    """The names of the tools listed in this era (None: not listed)."""
    answer: str | None = None
    """What the server answered when it does not speak the era ("-32601 Method not found,
    HTTP 404"); None when it gave no answer or when it speaks it."""
    kind: str | None = None
    """`McpUnavailable.kind` of the failure to open or list, if any."""
    problem: str | None = None
    """Why the era could not be used, or the listing failed, in plain words."""

    @property
    def revision(self) -> str:
        """The revision this is about: the one opened, else the one asked for."""
        return self.protocol_version if self.speaks and self.protocol_version else self.asked

    @property
    def refused(self) -> bool:
        """The server answered, and not as one that speaks the era: evidence that it does not
        (the SDK's auto policy reads any answered error to server/discover so)."""
        return not self.speaks and self.answer is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "era": self.era,
            "method": self.method,
            "asked": self.asked,
            "speaks": self.speaks,
            "protocol_version": self.protocol_version,
            "supported_versions": list(self.supported_versions),
            "server_name": self.server_name,
            "server_version": self.server_version,
            "seconds": _round(self.seconds),
            "tools": None if self.tools is None else list(self.tools),
            "answer": self.answer,
            "kind": self.kind,
            "problem": self.problem,
        }


@dataclass(slots=True)
class ServerReport:
    """One `mcp` tool entry of the request: the connection, its tools and the calls made."""

    server_label: str
    url: str | None
    transport: str | None = None
    """"streamable_http" or "sse" (None when there was no URL to connect to)."""
    headers: list[str] = field(default_factory=list)
    """The names of the headers sent: never their values."""
    reachable: bool = False
    problem: str | None = None
    """Why the server cannot be used, in plain words (None when it can)."""
    cause: str | None = None
    kind: str | None = None
    """`McpUnavailable.kind`, or "no_url" / "bad_transport"."""
    protocol_version: str | None = None
    era: str | None = None
    """The era of the connection the tools were listed and called in ("legacy" / "modern")."""
    mcp_protocol: str = "auto"
    """Which eras the probe asked about (`probe(protocol=...)`)."""
    revisions: dict[str, RevisionReport] = field(default_factory=dict)
    """By revision: what the server answered to each era's opening request."""
    era_openai_meets: str | None = None
    """The era OpenAI's MCP client meets at this server, when that can be known."""
    era_note: str | None = None
    """Which era OpenAI's client meets, or why that cannot be known, in words (when nothing is
    wrong with it; a problem is a check instead)."""
    server_name: str | None = None
    server_version: str | None = None
    initialize_seconds: float | None = None
    list_seconds: float | None = None
    tools: list[ToolReport] = field(default_factory=list)
    calls: list[CallReport] = field(default_factory=list)
    skipped_tools: list[str] = field(default_factory=list)
    """Listed by the server but excluded by `allowed_tools`: OpenAI never offers them."""
    missing_tools: list[str] = field(default_factory=list)
    """Named in `allowed_tools` but not listed by the server."""
    checks: list[Check] = field(default_factory=list)
    """Server-level findings (redacted headers, missing tools, nothing to offer, ...)."""
    oauth: OAuthNeeds | None = None
    """What the server asked for when it refused the connection with 401 or 403: its
    challenge, its protected-resource metadata and its authorization server's."""

    @property
    def has_problem(self) -> bool:
        """Unreachable, an error anywhere, or a failed call: what makes the probe exit 1."""
        return (
            not self.reachable
            or worst(self.checks) == "error"
            or any(worst(t.checks) == "error" for t in self.tools)
            or any(not c.ok or worst(c.checks) == "error" for c in self.calls)
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "server_label": self.server_label,
            "url": self.url,
            "transport": self.transport,
            "headers": list(self.headers),
            "reachable": self.reachable,
            "problem": self.problem,
            "cause": self.cause,
            "kind": self.kind,
            "protocol_version": self.protocol_version,
            "era": self.era,
            "mcp_protocol": self.mcp_protocol,
            "revisions": {k: v.as_json() for k, v in self.revisions.items()},
            "revisions_summary": revisions_summary(self),
            "era_openai_meets": self.era_openai_meets,
            "era_note": self.era_note,
            "server_name": self.server_name,
            "server_version": self.server_version,
            "initialize_seconds": _round(self.initialize_seconds),
            "list_seconds": _round(self.list_seconds),
            "checks": [c.as_json() for c in self.checks],
            "tools": [t.as_json() for t in self.tools],
            "skipped_tools": list(self.skipped_tools),
            "missing_tools": list(self.missing_tools),
            "calls": [c.as_json() for c in self.calls],
            "oauth": self.oauth.as_json() if self.oauth is not None else None,
        }


@dataclass(slots=True)
class ProbeReport:
    """Every server of the request, plus what concerns the request as a whole."""

    servers: list[ServerReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Request-level problems (no mcp tools, the --tool listed nowhere, ...)."""
    notes: list[str] = field(default_factory=list)
    """Request-level remarks that are not problems (a recording with no failed call, ...)."""
    verdicts: list[Verdict] = field(default_factory=list)
    """One per recorded failed call whose server was probed, in the recording's order."""

    @property
    def exit_code(self) -> int:
        """0: everything checks out; 1: a problem was found; 2: there was nothing to probe."""
        if not self.servers:
            return 2
        if self.problems or any(server.has_problem for server in self.servers):
            return 1
        return 0

    def as_json(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "servers": [s.as_json() for s in self.servers],
            "verdicts": [v.as_json() for v in self.verdicts],
        }


# -- the request's tool entries ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AllowedTools:
    """An entry's `allowed_tools`: a list of names, or `{"tool_names": [...], "read_only"}`."""

    names: frozenset[str] | None = None
    """None: any name."""
    read_only: bool | None = None
    """True: only tools annotated read-only (`readOnlyHint`)."""

    def allows(self, name: str, read_only_hint: bool | None = None) -> bool:
        if self.names is not None and name not in self.names:
            return False
        return not (self.read_only and not read_only_hint)

    @property
    def restricts(self) -> bool:
        return self.names is not None or bool(self.read_only)


def parse_allowed_tools(value: Any) -> AllowedTools:
    """Both spellings OpenAI accepts; anything else (absent, null) allows every tool."""
    if isinstance(value, list):
        return AllowedTools(names=frozenset(str(v) for v in value))
    if isinstance(value, dict):
        names = value.get("tool_names")
        read_only = value.get("read_only")
        return AllowedTools(
            names=frozenset(str(v) for v in names) if isinstance(names, list) else None,
            read_only=read_only if isinstance(read_only, bool) else None,
        )
    return AllowedTools()


def entry_headers(entry: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The headers to send for an entry, and the names whose values were redacted in the source.

    A recording keeps `<redacted>` in place of header values: those are left out (sending the
    placeholder helps no one), and the caller says that authentication may fail.
    """
    raw = raw if isinstance(raw := entry.get("headers"), dict) else {}
    redacted = [str(k) for k, v in raw.items() if v == REDACTED]
    kept = {k: v for k, v in raw.items() if v != REDACTED and v is not None}
    authorization = entry.get("authorization")
    if authorization == REDACTED:
        redacted.append("authorization")
        authorization = None
    return request_headers(
        kept, authorization if isinstance(authorization, str) else None
    ), redacted


class _Scrub:
    """Replaces the request's secret values (header values, authorization) wherever they appear.

    Error texts, tool listings and outputs come from the network, and a server may echo what it
    was sent (into a tool's name, a parameter's description, an error): everything a report
    stores from the network or the request goes through here first.
    """

    def __init__(self, secrets: Iterable[str], urls: Iterable[Any] = ()) -> None:
        words = set()
        for secret in secrets:
            secret = secret.strip()
            words.add(secret)
            if secret.lower().startswith("bearer "):
                words.add(secret[7:].strip())
            words.update(value_secrets(secret))
        for url in urls:  # a token in a server's URL, echoed in an error or a listing
            words.update(url_secrets(url) if isinstance(url, str) else ())
        self.secrets = sorted((w for w in words if len(w) >= 4), key=len, reverse=True)

    def text(self, value: str) -> str:
        return redact_text(hide_known(value, self.secrets))

    def deep(self, value: Any) -> Any:
        """A JSON-like value with every string scrubbed, object keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.deep(v) for v in value]
        if isinstance(value, dict):
            return {self.deep(k): self.deep(v) for k, v in value.items()}
        return value

    def maybe(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)

    def causes(self, causes: list[LikelyCause]) -> list[LikelyCause]:
        """Evidence quotes error texts, which may quote the request's secrets."""
        return [replace(c, evidence=tuple(self.text(e) for e in c.evidence)) for c in causes]

    def check(self, check: Check) -> Check:
        """Check messages quote server data (a schema's type, a result's text)."""
        return Check(check.severity, check.code, self.text(check.message))

    def tool(self, report: ToolReport) -> ToolReport:
        return ToolReport(
            name=self.text(report.name),
            description=self.maybe(report.description),
            input_schema=self.deep(report.input_schema),
            output_schema=self.deep(report.output_schema),
            checks=[self.check(c) for c in report.checks],
            annotations=self.deep(report.annotations),
        )


# -- small helpers -------------------------------------------------------------------------------


def tool_report(
    name: str,
    description: str | None,
    input_schema: Any,
    output_schema: Any,
    annotations: dict[str, Any] | None = None,
) -> ToolReport:
    """A listed tool with its checks (`mcptui.probe.checks.tool_checks`), as the server sent it."""
    return ToolReport(
        name=name,
        description=description,
        input_schema=input_schema,
        output_schema=output_schema,
        checks=tool_checks(description, input_schema, output_schema),
        annotations=annotations,
    )


def _preview(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 4)


# -- choosing the calls --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """A call to make once connected: from a recording's failed mcp_call, or named."""

    tool: str
    arguments: dict[str, Any] | None
    source: Source
    arguments_problem: str | None = None
    """Why the recorded arguments cannot be sent (the call is then not made)."""
    recorded_error: str | None = None
    item_id: str | None = None
    item_key: tuple[int, int] | None = None
    """(response key, item key) of the recorded item on the recording's timeline."""


def _folded(loaded: Loaded) -> Timeline:
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    return timeline


def recorded_failures(loaded: Loaded) -> list[tuple[str | None, PlannedCall]]:
    """(server_label, call) for every failed mcp_call in a recording, in order."""
    found = []
    for response in _folded(loaded).state.responses:
        for item in response.items:
            if item.type == "mcp_call" and item.failed and item.name:
                arguments, problem = parse_arguments(item.arguments)
                found.append(
                    (
                        item.server_label,
                        PlannedCall(
                            tool=item.name,
                            arguments=arguments,
                            source="recording",
                            arguments_problem=problem,
                            recorded_error=item.error_text or None,
                            item_id=item.item_id,
                            item_key=(response.key, item.key),
                        ),
                    )
                )
    return found


def failure_limit(loaded: Loaded, tool: str | None = None) -> float | None:
    """The tool time limit that applied where the recording's mcp_calls failed (of `tool`
    only, when given; the longest if its responses differ), None without a failed call.

    A probe that waits that long times out where the run did, which confirms a timeout; one
    that waits longer would see a slow tool answer and call it fine.
    """
    limits = [
        response.tool_limit
        for response in _folded(loaded).state.responses
        if any(
            item.type == "mcp_call"
            and item.failed
            and item.name
            and (tool is None or item.name == tool)
            for item in response.items
        )
    ]
    return max(limits, default=None)


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Recorded argument JSON text → (arguments, None) or (None, why it cannot be used)."""
    if not text.strip():
        return {}, None
    try:
        value = loads(text)
    except ValueError as exc:
        return None, f"the recorded arguments are not valid JSON ({exc}): {text[:80]!r}"
    if not isinstance(value, dict):
        return None, f"the recorded arguments are {type(value).__name__}, not a JSON object"
    return value, None


def plan_calls(
    entries: list[dict[str, Any]],
    *,
    recording: Loaded | None,
    tool: str | None,
    arguments: dict[str, Any] | None,
    notes: list[str],
    unmatched: list[str] | None = None,
) -> dict[int, list[PlannedCall]]:
    """The recorded calls per entry (by position). A named tool is planned once listed.

    With both a recording and a tool but no arguments, the tool's recorded failed calls are
    re-run with their recorded arguments (and the tool is called with {} where none was).
    """
    planned: dict[int, list[PlannedCall]] = {i: [] for i in range(len(entries))}
    if recording is None or (tool is not None and arguments is not None):
        return planned
    labels = {
        e.get("server_label"): i
        for i, e in reversed(list(enumerate(entries)))
        if isinstance(e.get("server_label"), str)
    }
    failures = recorded_failures(recording)
    if tool is not None:
        failures = [(label, call) for label, call in failures if call.tool == tool]
    if not failures:
        notes.append(
            f"the recording has no failed mcp_call{f' of {tool}' if tool else ''}: "
            "nothing to re-run from it"
        )
    for label, call in failures:
        index = labels.get(label) if label is not None else None
        if index is None:
            notes.append(
                f"recorded failed call {call.tool} on {label!r}: the request has no "
                "mcp tool with that server_label; not called"
            )
            if unmatched is not None and label not in unmatched:
                unmatched.append(str(label))
        else:
            planned[index].append(call)
    return planned


# -- probing -------------------------------------------------------------------------------------


async def probe(
    request: Mapping[str, Any],
    *,
    recording: Loaded | None = None,
    tool: str | None = None,
    arguments: dict[str, Any] | None = None,
    timeout: float = OPENAI_TIMEOUT,
    transport: str | None = None,
    on_progress: Progress | None = None,
    redacted_source: bool = False,
    protocol: str = "auto",
) -> ProbeReport:
    """Connect to every mcp tool of `request`, list its tools, make the chosen calls, check all.

    Calls: with `tool`, that tool on every server that offers it (`arguments`, default {});
    with `recording`, every failed mcp_call whose server_label is in the request, with its
    recorded arguments, each then given a `Verdict`; with neither, none. Servers are probed one
    after another. `redacted_source`: the entries come from a file that withheld their
    credentials (the tools a response echoes), which each server's report says. `protocol`:
    which MCP eras to ask about, "auto" (both: see the module's docstring), "legacy" or
    "modern" (a ValueError for anything else).
    """
    protocol = check_protocol(protocol)
    report = ProbeReport()
    entries = mcp_entries(request)
    if not entries:
        report.problems.append(
            'the request has no MCP tools (tools[] entries with "type": "mcp"): nothing to probe'
        )
        return report
    scrub = _Scrub(
        (v for entry in entries for v in entry_headers(entry)[0].values()),
        (entry.get("server_url") for entry in entries),
    )
    notes: list[str] = []
    unmatched: list[str] = []
    plans = plan_calls(
        entries,
        recording=recording,
        tool=tool,
        arguments=arguments,
        notes=notes,
        unmatched=unmatched,
    )
    report.notes = [scrub.text(note) for note in notes]
    if unmatched and not any(plans.values()):  # connecting alone is not "checks out"
        report.problems.append(
            scrub.text(
                "nothing from the recording was checked: its failed calls are on server_label "
                f"{', '.join(map(repr, unmatched))}, and the request has no mcp tool with that "
                "label (probe the request the recording was made with)"
            )
        )
    for index, entry in enumerate(entries):
        named = _named(tool, arguments, plans[index])
        report.servers.append(
            await _probe_entry(
                entry,
                plans[index],
                named,
                timeout=timeout,
                transport=transport,
                progress=on_progress,
                redacted_source=redacted_source,
                protocol=protocol,
            )
        )
    if recording is not None:
        _add_verdicts(report, entries, plans, recording, scrub)
    # With a tool, every call made is of that tool (the recording's are filtered by it); the
    # reports hold scrubbed names, which need not equal `tool`.
    called = any(s.calls for s in report.servers)
    if tool is not None and not called and any(s.reachable for s in report.servers):
        report.problems.append(
            scrub.text(
                f"no server offers the tool {tool!r} (see each server's tools, and allowed_tools)"
            )
        )
    return report


def _add_verdicts(
    report: ProbeReport,
    entries: list[dict[str, Any]],
    plans: dict[int, list[PlannedCall]],
    recording: Loaded,
    scrub: _Scrub,
) -> None:
    """Each planned recorded call's likely causes, with its re-run (or its server's refusal)
    as the probe's evidence: on the call's report and in `report.verdicts`."""
    timeline = _folded(recording)
    context = header_options(recording.header)
    api_local = is_private_url(context["endpoint"])
    items = {
        (resp.key, item.key): (resp, item)
        for resp in timeline.state.responses
        for item in resp.items
    }
    timing = {
        (t.response_key, t.item_key): t
        for t in timing_report(timeline.state, timeline.events).items
    }
    for index, planned in plans.items():
        server = report.servers[index]
        url = entries[index].get("server_url")
        made = [c for c in server.calls if c.source == "recording"]  # in the planned order
        for position, call in enumerate(planned):
            found = items.get(call.item_key) if call.item_key is not None else None
            report_of = made[position] if position < len(made) else None
            if report_of is not None and report_of.item_id != call.item_id:
                report_of = None
            if found is None or (server.reachable and report_of is None):
                continue  # nothing was probed for it
            evidence = evidence_of(server, report_of if server.reachable else None)
            resp, item = found
            timed = timing.get(call.item_key) if call.item_key is not None else None
            causes = scrub.causes(
                item_causes(
                    resp,
                    item,
                    timeline.events,
                    tool_seconds=timed.tool_seconds if timed else None,
                    server_url=url if isinstance(url, str) else None,
                    probe=evidence,
                    api_local=api_local,
                )
            )
            report.verdicts.append(
                Verdict(server.server_label, scrub.text(call.tool), call.item_id, causes)
            )
            if report_of is not None:
                server.calls[server.calls.index(report_of)] = replace(report_of, causes=causes)
    _add_listing_verdicts(report, timeline, context["request"], scrub, api_local)


LISTING = "tools/list"
"""The verdict's name for a failed tool listing (no call to name)."""


def _add_listing_verdicts(
    report: ProbeReport,
    timeline: Timeline,
    request: dict[str, Any] | None,
    scrub: _Scrub,
    api_local: bool,
) -> None:
    """A response that failed because OpenAI could not list the tools (the POST's 424) names
    no server; with one server probed, its connection is the evidence."""
    evidence = evidence_of(report.servers[0]) if len(report.servers) == 1 else None
    if evidence is None:
        return
    for resp in timeline.state.responses:
        if not resp.failed or any(item.failed for item in resp.items):
            continue
        causes = response_causes(
            resp, timeline.events, probe=evidence, api_local=api_local, request=request
        )
        if any(c.cause.key == "tool_list_failure" for c in causes):
            report.verdicts.append(
                Verdict(report.servers[0].server_label, LISTING, resp.id, scrub.causes(causes))
            )


def _named(
    tool: str | None, arguments: dict[str, Any] | None, planned: list[PlannedCall]
) -> PlannedCall | None:
    if tool is None or any(call.tool == tool for call in planned):
        return None
    return PlannedCall(tool=tool, arguments=dict(arguments or {}), source="named")


async def probe_call(
    tool_entry: Mapping[str, Any],
    name: str,
    arguments: Any,
    *,
    timeout: float = OPENAI_TIMEOUT,
    transport: str | None = None,
    source: Source = "named",
    redacted: bool = False,
    on_progress: Progress | None = None,
    protocol: str = "auto",
) -> ServerReport:
    """Connect to one `mcp` tool entry and make one call (the app's "re-run this mcp_call").

    The entry may come from a recording, whose header values are redacted (`<redacted>`
    values are detected; `redacted=True` says the source was redacted anyway): the report then
    says so, since the server may refuse the call without them. `arguments` that are not a
    JSON object (a recording's unparseable text) give a report with no call and says why. The
    call is made whether or not the server lists the tool (a missing tool is an answer too).
    """
    if isinstance(arguments, str):
        parsed, problem = parse_arguments(arguments)
    elif isinstance(arguments, dict):
        parsed, problem = dict(arguments), None
    else:
        parsed, problem = None, (f"the arguments are {type(arguments).__name__}, not a JSON object")
    call = PlannedCall(tool=name, arguments=parsed, source=source, arguments_problem=problem)
    return await _probe_entry(
        tool_entry,
        [call],
        None,
        timeout=timeout,
        transport=transport,
        progress=on_progress,
        redacted_source=redacted,
        protocol=check_protocol(protocol),
    )


async def list_tools(
    tool_entry: Mapping[str, Any],
    *,
    timeout: float = OPENAI_TIMEOUT,
    redacted: bool = False,
    protocol: str = "auto",
) -> ServerReport:
    """Connect to one `mcp` tool entry and list its tools, with their checks, calling none
    (the tool workspace's listing)."""
    return await _probe_entry(
        tool_entry,
        [],
        None,
        timeout=timeout,
        transport=None,
        progress=None,
        redacted_source=redacted,
        protocol=check_protocol(protocol),
    )


def evidence_of(report: ServerReport, call: CallReport | None = None) -> ProbeEvidence | None:
    """What one server's probe says for the likely-cause rules (`mcptui.model.causes`).

    Unreachable: the connection's kind (refused, http_401, ...); otherwise the kind of `call`
    (default: the first call; None when it worked). None when nothing was probed.
    """
    credentials_missing = any(
        c.code in ("redacted_headers", "redacted_source") for c in report.checks
    )
    legacy_refused = next((c for c in report.checks if c.code == "legacy_refused"), None)
    if legacy_refused is not None:  # reached under 2026-07-28 only: OpenAI's client cannot
        return ProbeEvidence(
            kind="protocol_version",
            message=legacy_refused.message,
            reachable=False,
            credentials_missing=credentials_missing,
        )
    if not report.reachable:
        return ProbeEvidence(
            kind=report.kind,
            message=report.problem or "unreachable",
            reachable=False,
            credentials_missing=credentials_missing,
            wants=report.oauth.summary()
            if report.oauth is not None and report.oauth.oauth
            else None,
        )
    if call is None:
        if not report.calls:
            return None
        call = report.calls[0]
    first = next((c for c in call.checks if c.severity in ("error", "warning")), None)
    message = (
        first.message
        if first is not None
        else (call.checks[0].message if call.checks else "the call worked")
    )
    return ProbeEvidence(
        kind=call.kind, message=message, reachable=True, credentials_missing=credentials_missing
    )


async def _probe_entry(
    entry: Mapping[str, Any],
    planned: list[PlannedCall],
    named: PlannedCall | None,
    *,
    timeout: float,
    transport: str | None,
    progress: Progress | None,
    redacted_source: bool = False,
    protocol: str = "auto",
) -> ServerReport:
    url = entry.get("server_url")
    headers, redacted = entry_headers(entry)
    scrub = _Scrub(headers.values(), (url,))
    server = ServerReport(
        server_label=scrub.text(str(entry.get("server_label") or "?")),
        url=redact_text(scrub.text(url), strict_urls=True) if isinstance(url, str) else None,
        headers=sorted(headers),
    )
    if redacted:
        server.checks.append(
            Check(
                "warning",
                "redacted_headers",
                f"header values were redacted in the source ({', '.join(redacted)}): sent without "
                "them, so the server may refuse the connection or the call; "
                f"`mcptui probe FILE --header {_header_flag(redacted[0])}` supplies "
                f"{'one' if len(redacted) > 1 else 'it'} (VALUE may be ${{ENV_VAR}})",
            )
        )
    elif redacted_source:
        server.checks.append(
            Check(
                "info",
                "redacted_source",
                "the tool entry comes from a redacted recording: any credential it had is gone, "
                "so the server may refuse the connection or the call; `mcptui probe FILE "
                "--header NAME=VALUE` supplies one",
            )
        )
    if not isinstance(url, str) or not url:
        connector = entry.get("connector_id")
        server.kind = "no_url"
        server.problem = (
            scrub.text(f"connector {connector!r}: only OpenAI can reach its connectors")
            if connector
            else "the tool entry has no server_url"
        )
        return server
    if REDACTED in url or "%3Credacted%3E" in url:
        server.kind = "redacted_url"
        server.problem = (
            "the server_url was redacted in the source (it held a secret): "
            "probe with the request file that has the real URL, "
            "`mcptui probe REQUEST.json --recording FILE`"
        )
        return server
    main: Era = "modern" if protocol == "modern" else "legacy"
    try:
        link = McpLink(url, headers=headers, timeout=timeout, transport=transport, protocol=main)
    except ValueError as exc:
        server.kind, server.problem = "bad_transport", scrub.text(str(exc))
        return server
    server.mcp_protocol = protocol
    checks = list(server.checks)
    await _connect(server, link, entry, planned, named, timeout, progress, scrub)
    if not server.reachable and link.refusal is not None:
        await _ask_oauth(server, url, link.refusal, headers, timeout, progress, scrub)
        checks = list(server.checks)
    if protocol == "auto" and server.kind not in NO_ANSWER_KINDS:
        modern = await _ask_era(
            server,
            url,
            headers,
            "modern",
            timeout=timeout,
            transport=transport,
            progress=progress,
            scrub=scrub,
        )
        if not server.reachable and modern.speaks:
            # Modern only: a client that asks server/discover first can use it, so its tools
            # and calls are checked there (OpenAI's client, believed legacy, cannot).
            server = replace(
                server,
                reachable=False,
                problem=None,
                cause=None,
                kind=None,
                protocol_version=None,
                era=None,
                server_name=None,
                server_version=None,
                initialize_seconds=None,
                list_seconds=None,
                tools=[],
                calls=[],
                skipped_tools=[],
                missing_tools=[],
                checks=checks,
                revisions=dict(server.revisions),
            )
            await _connect(
                server,
                McpLink(
                    url, headers=headers, timeout=timeout, transport=transport, protocol="modern"
                ),
                entry,
                planned,
                named,
                timeout,
                progress,
                scrub,
            )
        else:
            server.revisions[modern.revision] = modern
    server.revisions = dict(sorted(server.revisions.items(), reverse=True))
    _judge_eras(server)
    return server


OAUTH_WAIT = 10.0
"""Seconds the probe waits for each metadata document of a server that wants OAuth (three
times that for all of them)."""


async def _ask_oauth(
    server: ServerReport,
    url: str,
    refusal: tuple[int, str | None],
    headers: Mapping[str, str],
    timeout: float,
    progress: Progress | None,
    scrub: _Scrub,
) -> None:
    """A server that refused with 401/403: what it wants (its challenge and its OAuth
    metadata), as `server.oauth` and a check that says what to do."""
    status, challenge = refusal
    if progress is not None:
        progress(f"asking {_shown(server.server_label)} what it wants (HTTP {status})")
    wait = min(timeout, OAUTH_WAIT)
    try:
        with anyio.fail_after(3 * wait):  # the resource's metadata, then the server's
            needs = await discover(url, status, challenge, timeout=wait)
    except TimeoutError:
        server.checks.append(
            Check(
                "warning",
                "oauth_slow",
                f"the server answered HTTP {status}, and its OAuth metadata did not arrive "
                f"within {3 * wait:g} s",
            )
        )
        return
    except Exception as exc:  # a fault of the probe itself: the refusal is reported anyway
        server.checks.append(
            Check("warning", "probe_failed", scrub.text(f"probe failed: {describe_exception(exc)}"))
        )
        return
    server.oauth = needs
    server.checks.append(scrub.check(oauth_check(needs, sent_token=_sends_token(headers))))


def _sends_token(headers: Mapping[str, str]) -> bool:
    return any(name.lower() == "authorization" for name in headers)


def oauth_check(needs: OAuthNeeds, *, sent_token: bool) -> Check:
    """What a refusing server wants and what to do, in one check."""
    said = "; ".join([needs.summary(), *needs.details()])
    if needs.status == 403 and sent_token:
        return Check(
            "error",
            "token_refused",
            f"the token sent is not enough (HTTP 403): {said}; a token with the scopes named "
            "is needed",
        )
    if sent_token:
        return Check(
            "error",
            "token_refused",
            f"the token sent was refused: {said}; probe again with a fresh token"
            + (" (--oauth gets one)" if needs.oauth else ""),
        )
    way = (
        "probe again with --oauth (the authorization-code flow in a browser), or pass "
        "--header 'Authorization=Bearer ${TOKEN}'"
        if needs.oauth
        else "pass its token with --header 'Authorization=Bearer ${TOKEN}'"
    )
    return Check("error", "needs_oauth" if needs.oauth else "needs_token", f"{said}; {way}")


NO_ANSWER_KINDS = frozenset({"refused", "connect_error", "timeout"})
"""A server that gave initialize no answer at all is not asked server/discover too."""


async def _connect(
    server: ServerReport,
    link: McpLink,
    entry: Mapping[str, Any],
    planned: list[PlannedCall],
    named: PlannedCall | None,
    timeout: float,
    progress: Progress | None,
    scrub: _Scrub,
) -> None:
    """Connect, list and call on `link`, filling `server`; its era's revision goes in too."""
    server.transport = link.transport
    failure: McpUnavailable | None = None
    try:
        await _use_link(server, link, entry, planned, named, timeout, progress, scrub)
    except McpUnavailable as exc:
        failure = exc
        server.reachable = False
        server.kind = exc.kind
        message = str(exc)
        if server.initialize_seconds is not None and "list tools" not in message:
            message = f"listing tools failed: {message}"
        server.problem = scrub.text(message)
        server.cause = scrub.text(exc.cause)
    except Exception as exc:  # a fault of the probe itself: reported, never a traceback
        problem = scrub.text(f"probe failed on this server: {describe_exception(exc)}")
        server.checks.append(Check("error", "probe_failed", problem))
        if not server.reachable:
            server.kind, server.problem = "probe_failed", problem
    era: Era = "modern" if link.protocol == "modern" else "legacy"
    revision = _revision(link, era, failure, server.initialize_seconds, scrub)
    if server.kind == "probe_failed" and not revision.speaks:
        revision = replace(revision, kind="probe_failed", problem=server.problem)
    server.revisions[revision.revision] = revision


async def _ask_era(
    server: ServerReport,
    url: str,
    headers: dict[str, str],
    era: Era,
    *,
    timeout: float,
    transport: str | None,
    progress: Progress | None,
    scrub: _Scrub,
) -> RevisionReport:
    """Open a session of `era` on its own connection and list the tools; nothing is called."""
    say = progress or (lambda _line: None)
    say(f"asking {_shown(server.server_label)} for {ERA_VERSIONS[era]} ({ERA_METHODS[era]})")
    link = McpLink(url, headers=headers, timeout=timeout, transport=transport, protocol=era)
    started = time.monotonic()
    seconds: float | None = None
    failure: McpUnavailable | None = None
    try:
        async with link:
            seconds = time.monotonic() - started
            await link.list_tools()
    except McpUnavailable as exc:
        failure = exc
    except Exception as exc:  # a fault of the probe itself
        revision = _revision(link, era, None, seconds, scrub)
        return replace(
            revision,
            kind="probe_failed",
            problem=scrub.text(f"probe failed on this server: {describe_exception(exc)}"),
        )
    return _revision(link, era, failure, seconds, scrub)


def _revision(
    link: McpLink, era: Era, failure: McpUnavailable | None, seconds: float | None, scrub: _Scrub
) -> RevisionReport:
    speaks = link.era == era
    info = link.server_info
    return RevisionReport(
        era=era,
        method=ERA_METHODS[era],
        asked=ERA_VERSIONS[era],
        speaks=speaks,
        protocol_version=scrub.maybe(link.protocol_version) if speaks else None,
        supported_versions=[scrub.text(v) for v in link.supported_versions or []],
        server_name=scrub.text(info.name) if speaks and info is not None else None,
        server_version=(scrub.text(info.version or "") or None)
        if speaks and info is not None
        else None,
        seconds=seconds if speaks else None,
        tools=[scrub.text(t.name) for t in link.tools] if link.tools is not None else None,
        answer=scrub.maybe(failure.answer) if failure is not None and not speaks else None,
        kind=failure.kind if failure is not None else None,
        problem=scrub.text(str(failure)) if failure is not None else None,
    )


def era_revision(server: ServerReport, era: Era) -> RevisionReport | None:
    """The server's revision of `era`, if it was asked."""
    return next((r for r in server.revisions.values() if r.era == era), None)


def revisions_summary(server: ServerReport) -> str | None:
    """Which revisions the server speaks, in one line; None when nothing tells.

    "speaks 2026-07-28 (server/discover) and 2025-11-25 (initialize)", "legacy only:
    2025-11-25 (server/discover answered -32601 Method not found, HTTP 404)", ...
    """
    legacy, modern = era_revision(server, "legacy"), era_revision(server, "modern")
    if legacy is not None and legacy.speaks and modern is not None and modern.speaks:
        return f"speaks {modern.revision} ({modern.method}) and {legacy.revision} ({legacy.method})"
    for one, other, flag in ((legacy, modern, "legacy"), (modern, legacy, "modern")):
        if one is None or not one.speaks:
            continue
        method = ERA_METHODS["modern" if flag == "legacy" else "legacy"]
        if other is None:
            return (
                f"speaks {one.revision} ({one.method}); {method} not asked (--mcp-protocol {flag})"
            )
        if other.refused:
            return f"{flag} only: {one.revision} ({other.method} answered {other.answer})"
        return (
            f"speaks {one.revision} ({one.method}); {other.method} got no answer: "
            f"{other.problem or 'unknown'}"
        )
    if (legacy is None) != (modern is None):  # one era asked (--mcp-protocol), and refused
        one = legacy or modern
        assert one is not None
        other_method = ERA_METHODS["modern" if one is legacy else "legacy"]
        if one.refused and one.kind == "protocol_version":
            return (
                f"does not speak {one.asked} ({one.method} answered {one.answer}); {other_method} "
                f"not asked (--mcp-protocol {one.era})"
            )
        return None
    if (
        legacy is not None
        and modern is not None
        and legacy.kind == modern.kind == "protocol_version"
    ):
        return (
            f"speaks neither {legacy.asked} nor {modern.asked}: {legacy.method} answered "
            f"{legacy.answer}; {modern.method} answered {modern.answer}"
        )
    return None


def _judge_eras(server: ServerReport) -> None:
    """Which era OpenAI's MCP client meets at this server, where that can be known, and a
    check that says so (an error when a legacy client cannot connect at all)."""
    legacy, modern = era_revision(server, "legacy"), era_revision(server, "modern")
    old, new = ERA_VERSIONS["legacy"], ERA_VERSIONS["modern"]
    unknown = "OpenAI does not say which revision its MCP client speaks"
    if legacy is not None and legacy.speaks:
        if modern is not None and modern.speaks:
            server.era_note = (
                f"which revision OpenAI's MCP client meets here cannot be known: {unknown}; a "
                f"legacy client (as far as anyone knows, OpenAI's is one) meets "
                f"{legacy.revision}, one that asks server/discover first meets "
                f"{modern.revision}; the probe checks the tools under {legacy.revision}"
            )
            _compare_tools(server, legacy, modern)
        elif modern is not None and modern.refused:
            server.era_openai_meets = "legacy"
            server.era_note = (
                f"OpenAI's MCP client meets {legacy.revision}: the server "
                f"speaks no {new}, and every client falls back to initialize"
            )
        else:
            why = (
                "server/discover was not asked"
                if modern is None
                else "server/discover got no answer"
            )
            server.era_note = (
                f"OpenAI's MCP client, a legacy client as far as anyone knows, "
                f"meets {legacy.revision}; whether it could meet {new} cannot "
                f"be known ({why})"
            )
    elif modern is not None and modern.speaks:
        if legacy is None:
            server.era_note = (
                f"which revision OpenAI's MCP client meets cannot be known: initialize was "
                f"not asked, and {unknown} (as far as anyone knows, {old} only); the probe "
                f"checks the tools under {modern.revision}"
            )
        elif legacy.refused:
            server.checks.append(
                Check(
                    "error",
                    "legacy_refused",
                    f"a legacy client cannot connect: initialize answered {legacy.answer}. "
                    f"OpenAI's "
                    f"MCP client is one as far as anyone knows, so OpenAI cannot list these tools "
                    f'(its 424 "Error retrieving tool list"); a client that asks server/discover '
                    f"first meets {modern.revision}, under which the probe checks the tools",
                )
            )
        else:
            server.checks.append(
                Check(
                    "warning",
                    "legacy_failed",
                    f"initialize failed ({legacy.problem}), so a legacy client (as far as anyone "
                    f"knows, OpenAI's is one) may not connect; the probe checks the tools under "
                    f"{modern.revision}",
                )
            )


def _compare_tools(server: ServerReport, legacy: RevisionReport, modern: RevisionReport) -> None:
    if legacy.tools is None or modern.tools is None or set(legacy.tools) == set(modern.tools):
        return
    parts = []
    for rev, other in ((modern, legacy), (legacy, modern)):
        only = sorted(set(rev.tools or []) - set(other.tools or []))
        if only:
            parts.append(f"only under {rev.revision}: {', '.join(only)}")
    server.checks.append(
        Check(
            "warning", "era_tools_differ", "the revisions list different tools: " + "; ".join(parts)
        )
    )


def _header_flag(name: str) -> str:
    """The `--header` that supplies a redacted header (`authorization` is the entry's field,
    which OpenAI sends as a bearer token)."""
    return "'Authorization=Bearer VALUE'" if name == "authorization" else f"{name}=VALUE"


def _shown(text: str | None, limit: int = 80) -> str:
    """Network or request text made safe for a progress line (no terminal escapes)."""
    return one_line(text or "", limit)


async def _use_link(
    server: ServerReport,
    link: McpLink,
    entry: Mapping[str, Any],
    planned: list[PlannedCall],
    named: PlannedCall | None,
    timeout: float,
    progress: Progress | None,
    scrub: _Scrub,
) -> None:
    say = progress or (lambda _line: None)
    say(f"connecting to {_shown(server.server_label)} at {_shown(server.url, 200)}")
    started = time.monotonic()
    async with link:
        server.initialize_seconds = time.monotonic() - started
        server.protocol_version = scrub.maybe(link.protocol_version)
        server.era = link.era
        if link.server_info is not None:
            server.server_name = scrub.text(link.server_info.name)
            server.server_version = scrub.text(link.server_info.version or "") or None
        say(f"listing the tools of {_shown(server.server_label)}")
        started = time.monotonic()
        tools = await link.list_tools()
        server.list_seconds = time.monotonic() - started
        server.reachable = True
        by_name, skipped = _sort_tools(
            server, tools, parse_allowed_tools(entry.get("allowed_tools")), scrub
        )
        calls = list(planned)
        if named is not None:
            if named.tool in by_name and named.tool not in skipped:
                calls.append(named)
            elif named.tool in skipped:
                server.checks.append(
                    scrub.check(
                        Check(
                            "warning",
                            "tool_not_allowed",
                            f"{named.tool} is listed but excluded by allowed_tools: OpenAI never "
                            "offers it to the model; not called",
                        )
                    )
                )
        for call in calls:
            server.calls.append(
                await _make_call(server, link, call, by_name.get(call.tool), timeout, say, scrub)
            )


async def _make_call(
    server: ServerReport,
    link: McpLink,
    call: PlannedCall,
    tool: mcp.types.Tool | None,
    timeout: float,
    say: Progress,
    scrub: _Scrub,
) -> CallReport:
    """One planned call and its report; a fault of the probe on it is that call's report."""
    if call.arguments is None:
        return _not_called(server.server_label, call, scrub)
    say(f"calling {_shown(scrub.text(call.tool))} on {_shown(server.server_label)}")
    started = time.monotonic()
    try:
        outcome = await link.call(call.tool, call.arguments, timeout=timeout)
        return _call_report(server.server_label, call, outcome, tool, timeout, scrub)
    except Exception as exc:
        return CallReport(
            server_label=server.server_label,
            tool=scrub.text(call.tool),
            arguments=scrub.deep(call.arguments),
            source=call.source,
            recorded_error=scrub.maybe(call.recorded_error),
            item_id=call.item_id,
            seconds=time.monotonic() - started,
            kind="probe_failed",
            checks=[
                Check(
                    "error",
                    "probe_failed",
                    scrub.text(f"probe failed on this call: {describe_exception(exc)}"),
                )
            ],
        )


def _sort_tools(
    server: ServerReport, tools: list[mcp.types.Tool], allowed: AllowedTools, scrub: _Scrub
) -> tuple[dict[str, mcp.types.Tool], set[str]]:
    """Fill the server's tools, skipped and missing tools, all scrubbed.

    Returns every listed tool by its real name, and the real names allowed_tools excludes
    (the report holds the scrubbed names, which may no longer match).
    """
    by_name = {tool.name: tool for tool in tools}
    skipped: set[str] = set()
    for tool in tools:
        read_only = tool.annotations.read_only_hint if tool.annotations else None
        if not allowed.allows(tool.name, read_only):
            skipped.add(tool.name)
            server.skipped_tools.append(scrub.text(tool.name))
            continue
        try:
            annotations = (
                tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
                if tool.annotations is not None
                else None
            )
            report = tool_report(
                tool.name, tool.description, tool.input_schema, tool.output_schema, annotations
            )
        except Exception as exc:  # one odd tool must not cost the whole listing
            report = ToolReport(
                tool.name,
                tool.description,
                tool.input_schema,
                tool.output_schema,
                [
                    Check(
                        "error",
                        "probe_failed",
                        f"probe failed on this tool: {describe_exception(exc)}",
                    )
                ],
            )
        server.tools.append(scrub.tool(report))
    if allowed.names is not None:
        server.missing_tools = [scrub.text(name) for name in sorted(allowed.names - set(by_name))]
    if server.missing_tools:
        server.checks.append(
            Check(
                "warning",
                "missing_tools",
                "allowed_tools names tools the server does not list: "
                + ", ".join(server.missing_tools),
            )
        )
    if not tools:
        server.checks.append(Check("warning", "no_tools", "the server lists no tools"))
    elif not server.tools:
        server.checks.append(
            Check(
                "warning",
                "no_allowed_tools",
                "allowed_tools excludes every listed tool: the model gets none",
            )
        )
    return by_name, skipped


def _answer_json(answer: Any, scrub: _Scrub) -> Any:
    """The server's CallToolResult as JSON, scrubbed (None: none was read)."""
    if not isinstance(answer, mcp.types.CallToolResult):
        return None
    return scrub.deep(answer.model_dump(mode="json", by_alias=True, exclude_none=True))


def _not_called(label: str, call: PlannedCall, scrub: _Scrub) -> CallReport:
    return CallReport(
        server_label=label,
        tool=scrub.text(call.tool),
        arguments=None,
        source=call.source,
        recorded_error=scrub.maybe(call.recorded_error),
        item_id=call.item_id,
        kind="bad_arguments",
        checks=[
            Check(
                "error", "bad_arguments", f"not called: {scrub.text(call.arguments_problem or '')}"
            )
        ],
    )


def _call_report(
    label: str,
    call: PlannedCall,
    outcome: CallOutcome,
    tool: mcp.types.Tool | None,
    timeout: float,
    scrub: _Scrub,
) -> CallReport:
    result = outcome.result if isinstance(outcome.result, mcp.types.CallToolResult) else None
    preview = (
        outcome.output
        if outcome.output is not None
        else (result_text(result) if result is not None else None)
    )
    checks = outcome_checks(outcome, tool.output_schema if tool else None, timeout)
    if tool is None:
        checks.insert(0, Check("warning", "unknown_tool", f"the server does not list {call.tool}"))
    else:
        checks[:0] = arguments_checks(tool.input_schema, call.arguments)
    if len(checks) > 1:
        checks = [c for c in checks if c.severity != "ok"]
    return CallReport(
        server_label=label,
        tool=scrub.text(call.tool),
        arguments=scrub.deep(call.arguments),
        source=call.source,
        recorded_error=scrub.maybe(call.recorded_error),
        item_id=call.item_id,
        seconds=outcome.seconds,
        ok=outcome.ok,
        openai_error=scrub.deep(outcome.error),
        cause=scrub.maybe(outcome.cause),
        kind=outcome.kind,
        is_error=bool(result is not None and result.is_error),
        output_preview=scrub.maybe(_preview(preview)),
        size_bytes=result_size(result) if result is not None else None,
        checks=[scrub.check(c) for c in checks],
        result=_answer_json(result or outcome.answer, scrub),
    )
