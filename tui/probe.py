"""Probe a request's MCP servers from this machine: what OpenAI's opaque errors hide.

When a Responses call with remote MCP tools fails, OpenAI reports "424: unhandled errors in a
TaskGroup" and names no cause (protocol.md §2). The cause sits between an MCP client and the
server, so it can be found by being that client: `probe` connects to each `mcp` tool of a
request with the real `mcp` client and the request's own headers, lists the tools as
`allowed_tools` filters them, calls tools (the failed calls of a recording, or one named), and
checks every answer against what OpenAI's client demands: structuredContent matching a declared
outputSchema, valid content block types, an answer well within OpenAI's ~60 s (§5).

Pure: no Textual. `tui.probe_view.render` shows a report; the CLI (`mcptui probe`) and the app
(`probe_call`, to re-run one failed mcp_call) share it. No header value ever leaves this module:
reports carry header names only, and every text from the network or the request is scrubbed of
the request's secret values before it is stored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import jsonschema
import mcp.types
import pydantic

from tui.mcpclient import (
    INVALID_STRUCTURED,
    CallOutcome,
    McpLink,
    McpUnavailable,
    request_headers,
)
from tui.model.timeline import Timeline
from tui.recording import Loaded
from tui.redact import REDACTED, redact_text

if TYPE_CHECKING:
    from tui.model.causes import ProbeEvidence

Severity = Literal["ok", "info", "warning", "error"]
Source = Literal["recording", "named"]

OPENAI_TIMEOUT = 60.0
"""Roughly when OpenAI gives up on a tools/call (undocumented; failures are reported ~60 s in)."""
SLOW_WARNING = 30.0
"""Calls slower than this are close enough to OpenAI's limit to fail on a bad day."""
SIZE_WARNING = 100 * 1024
"""Results larger than this (bytes of JSON) are worth a warning: they all go to the model."""
PREVIEW_CHARS = 300
CONTENT_TYPES = ("text", "image", "audio", "resource_link", "resource")
"""The content block types of a tools/call result (MCP spec 2025-06-18)."""
_BLOCK_MODELS = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
                 "resource_link": "ResourceLink", "resource": "EmbeddedResource"}
"""The mcp SDK's model per block type: how its pydantic errors name the union members."""
_SEVERITY_ORDER: dict[str, int] = {"ok": 0, "info": 1, "warning": 2, "error": 3}

Progress = Callable[[str], None]


# -- results -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Check:
    """One finding: `code` is stable for programs, `message` is for people."""

    severity: Severity
    code: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"severity": self.severity, "code": self.code, "message": self.message}


def worst(checks: Iterable[Check]) -> Severity:
    """The most severe of `checks` ("ok" for none)."""
    found: Severity = "ok"
    for check in checks:
        if _SEVERITY_ORDER[check.severity] > _SEVERITY_ORDER[found]:
            found = check.severity
    return found


@dataclass(frozen=True, slots=True)
class ToolReport:
    """A listed tool and the sanity checks of its schemas."""

    name: str
    description: str | None
    input_schema: Any
    output_schema: Any
    checks: list[Check] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema, "output_schema": self.output_schema,
                "checks": [c.as_json() for c in self.checks]}


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

    @property
    def called(self) -> bool:
        return self.seconds is not None

    def as_json(self) -> dict[str, Any]:
        return {"server_label": self.server_label, "tool": self.tool,
                "arguments": self.arguments, "source": self.source,
                "recorded_error": self.recorded_error, "item_id": self.item_id,
                "seconds": _round(self.seconds), "ok": self.ok,
                "openai_error": self.openai_error, "cause": self.cause, "kind": self.kind,
                "is_error": self.is_error, "output_preview": self.output_preview,
                "size_bytes": self.size_bytes, "checks": [c.as_json() for c in self.checks]}


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

    @property
    def has_problem(self) -> bool:
        """Unreachable, an error anywhere, or a failed call: what makes the probe exit 1."""
        return (not self.reachable or worst(self.checks) == "error"
                or any(worst(t.checks) == "error" for t in self.tools)
                or any(not c.ok or worst(c.checks) == "error" for c in self.calls))

    def as_json(self) -> dict[str, Any]:
        return {"server_label": self.server_label, "url": self.url,
                "transport": self.transport, "headers": list(self.headers),
                "reachable": self.reachable, "problem": self.problem, "cause": self.cause,
                "kind": self.kind, "protocol_version": self.protocol_version,
                "server_name": self.server_name, "server_version": self.server_version,
                "initialize_seconds": _round(self.initialize_seconds),
                "list_seconds": _round(self.list_seconds),
                "checks": [c.as_json() for c in self.checks],
                "tools": [t.as_json() for t in self.tools],
                "skipped_tools": list(self.skipped_tools),
                "missing_tools": list(self.missing_tools),
                "calls": [c.as_json() for c in self.calls]}


@dataclass(slots=True)
class ProbeReport:
    """Every server of the request, plus what concerns the request as a whole."""

    servers: list[ServerReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Request-level problems (no mcp tools, the --tool listed nowhere, ...)."""
    notes: list[str] = field(default_factory=list)
    """Request-level remarks that are not problems (a recording with no failed call, ...)."""

    @property
    def exit_code(self) -> int:
        """0: everything checks out; 1: a problem was found; 2: there was nothing to probe."""
        if not self.servers:
            return 2
        if self.problems or any(server.has_problem for server in self.servers):
            return 1
        return 0

    def as_json(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "problems": list(self.problems),
                "notes": list(self.notes), "servers": [s.as_json() for s in self.servers]}


# -- the request's tool entries ------------------------------------------------------------------

def mcp_entries(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's `{"type": "mcp", ...}` tool entries."""
    tools = request.get("tools")
    if not isinstance(tools, list):
        return []
    return [t for t in tools if isinstance(t, dict) and t.get("type") == "mcp"]


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
            read_only=read_only if isinstance(read_only, bool) else None)
    return AllowedTools()


def entry_headers(entry: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The headers to send for an entry, and the names whose values were redacted in the source.

    A recording keeps `<redacted>` in place of header values: those are left out (sending the
    placeholder helps no one), and the caller says that authentication may fail.
    """
    raw = entry.get("headers") if isinstance(entry.get("headers"), dict) else {}
    redacted = [str(k) for k, v in raw.items() if v == REDACTED]
    kept = {k: v for k, v in raw.items() if v != REDACTED and v is not None}
    authorization = entry.get("authorization")
    if authorization == REDACTED:
        redacted.append("authorization")
        authorization = None
    return request_headers(kept, authorization if isinstance(authorization, str) else None), \
        redacted


class _Scrub:
    """Replaces the request's secret values (header values, authorization) wherever they appear.

    Error texts and tool outputs come from the network, and a server may echo what it was sent.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        words = set()
        for secret in secrets:
            secret = secret.strip()
            words.add(secret)
            if secret.lower().startswith("bearer "):
                words.add(secret[7:].strip())
        self.secrets = sorted((w for w in words if len(w) >= 4), key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            value = value.replace(secret, REDACTED)
        return redact_text(value)

    def deep(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        if isinstance(value, dict):
            return {k: self.deep(v) for k, v in value.items()}
        return value

    def maybe(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)


# -- schema and result checks (pure) -------------------------------------------------------------

def input_schema_checks(schema: Any) -> list[Check]:
    """What OpenAI's model needs from an inputSchema: an object schema that is valid JSON Schema."""
    if not isinstance(schema, dict):
        return [Check("error", "input_schema_not_object",
                      f"inputSchema is {type(schema).__name__}, not a JSON Schema object")]
    checks: list[Check] = []
    if schema.get("type") != "object":
        checks.append(Check("error", "input_schema_type",
                            f'inputSchema has type {schema.get("type")!r}: it must be '
                            '"object" (tool arguments are a JSON object)'))
    problem = schema_problem(schema)
    if problem is not None:
        checks.append(Check("error", "input_schema_invalid",
                            f"inputSchema is not valid JSON Schema: {problem}"))
    properties = schema.get("properties")
    required = schema.get("required")
    if isinstance(required, list):
        known = properties if isinstance(properties, dict) else {}
        unknown = [str(name) for name in required if name not in known]
        if unknown:
            checks.append(Check("warning", "required_not_in_properties",
                                "inputSchema requires properties it does not define: "
                                + ", ".join(unknown)))
    return checks


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not valid JSON Schema (for its own `$schema` draft), or None."""
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return _first_line(exc.message)
    except Exception as exc:  # e.g. an unknown $schema URI, a schema that is not a mapping
        return f"{type(exc).__name__}: {_first_line(str(exc))}"
    return None


def tool_report(name: str, description: str | None, input_schema: Any,
                output_schema: Any) -> ToolReport:
    checks = input_schema_checks(input_schema)
    if not (description or "").strip():
        checks.append(Check("info", "no_description",
                            "no description: the model has only the name to go by"))
    if output_schema is not None:
        problem = schema_problem(output_schema)
        if problem is not None:
            checks.append(Check("error", "output_schema_invalid",
                                f"outputSchema is not valid JSON Schema: {problem}"))
        checks.append(Check("info", "output_schema",
                            "declares an outputSchema: results must carry structuredContent "
                            "matching it"))
    return ToolReport(name=name, description=description, input_schema=input_schema,
                      output_schema=output_schema, checks=checks)


def structured_checks(output_schema: Any, structured: Any) -> list[Check]:
    """structuredContent against a declared outputSchema, as OpenAI's client checks it."""
    if structured is None:
        return [missing_structured()]
    try:
        validator = jsonschema.validators.validator_for(output_schema)(output_schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(structured))
    except Exception as exc:  # an invalid schema: reported on the tool
        return [Check("warning", "output_schema_unusable",
                      f"structuredContent could not be checked: {type(exc).__name__}: "
                      f"{_first_line(str(exc))}")]
    if error is not None:
        return [invalid_structured(_error_text(error))]
    return []


def arguments_checks(input_schema: Any, arguments: Any) -> list[Check]:
    """The arguments sent against the tool's inputSchema (a mismatch explains an isError)."""
    if not isinstance(input_schema, dict) or schema_problem(input_schema) is not None:
        return []
    validator = jsonschema.validators.validator_for(input_schema)(input_schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return []
    return [Check("warning", "arguments_mismatch",
                  f"the arguments do not match the inputSchema: {_error_text(error)}")]


def missing_structured() -> Check:
    return Check("error", "missing_structured_content",
                 "declares an outputSchema but the result has no structuredContent: OpenAI's "
                 "MCP client rejects it, which surfaces as 424 \"unhandled errors in a "
                 "TaskGroup\"")


def invalid_structured(detail: str) -> Check:
    return Check("error", "invalid_structured_content",
                 f"structuredContent does not match the outputSchema: {detail}: OpenAI's MCP "
                 "client rejects it (424)")


def content_checks(blocks: Iterable[Any]) -> list[Check]:
    """Each content block must have one of the spec's types."""
    checks = []
    for index, block in enumerate(blocks):
        given = block.get("type") if isinstance(block, dict) else None
        if given not in CONTENT_TYPES:
            checks.append(bad_block(index, given))
    return checks


def bad_block(index: int, given: Any) -> Check:
    what = f"has type {given!r}" if isinstance(given, str) else "has no type"
    return Check("error", "invalid_content",
                 f"content block {index} {what}, not one of {', '.join(CONTENT_TYPES)}: "
                 "OpenAI's MCP client cannot parse the result (424)")


def content_error_checks(exc: BaseException | None, cause: str | None) -> list[Check]:
    """Name the bad block(s) from the pydantic error the SDK raised on the CallToolResult."""
    if isinstance(exc, pydantic.ValidationError):
        checks = []
        for index, given, detail in _bad_blocks(exc):
            if given not in CONTENT_TYPES:
                checks.append(bad_block(index, given))
            else:
                checks.append(Check("error", "invalid_content",
                                    f"content block {index} ({given}) is malformed: {detail}: "
                                    "OpenAI's MCP client cannot parse the result (424)"))
        if checks:
            return checks
    return [Check("error", "invalid_result",
                  f"the result is not a valid CallToolResult: {cause or exc}: OpenAI's MCP "
                  "client cannot parse it (424)")]


def _bad_blocks(exc: pydantic.ValidationError) -> list[tuple[int, Any, str]]:
    """(index, the block's type, what is wrong) per content block the errors point at."""
    by_index: dict[int, list[dict[str, Any]]] = {}
    for error in exc.errors(include_url=False):
        loc = error["loc"]
        if len(loc) >= 2 and loc[0] == "content" and isinstance(loc[1], int):
            by_index.setdefault(loc[1], []).append(dict(error))
    found = []
    for index, errors in sorted(by_index.items()):
        block = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)
        given = block.get("type") if block is not None else next(
            (e["input"] for e in errors if e["loc"][-1] == "type"), None)
        model = _BLOCK_MODELS.get(given) if isinstance(given, str) else None
        own = [e for e in errors if len(e["loc"]) > 2 and e["loc"][2] == model]
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'][3:]) or 'block'}: {e['msg']}"
                           for e in own[:3]) or errors[0]["msg"]
        found.append((index, given, detail))
    return found


def latency_checks(seconds: float, timeout: float) -> list[Check]:
    """A result that came in, against the probe's timeout and OpenAI's (~60 s, undocumented)."""
    if seconds >= timeout:
        return [timeout_check(timeout)]
    if seconds >= OPENAI_TIMEOUT:
        return [Check("error", "too_slow_for_openai",
                      f"answered in {seconds:.1f} s: OpenAI gives up after about "
                      f"{OPENAI_TIMEOUT:g} s and reports the 424")]
    if seconds >= SLOW_WARNING:
        return [Check("warning", "slow",
                      f"answered in {seconds:.1f} s: close to OpenAI's ~60 s limit")]
    return []


def timeout_check(timeout: float) -> Check:
    return Check("error", "timeout",
                 f"no answer within {timeout:g} s: OpenAI gives up after about "
                 f"{OPENAI_TIMEOUT:g} s and reports the 424")


def outcome_checks(outcome: CallOutcome, output_schema: Any, timeout: float) -> list[Check]:
    """Every check of one call's outcome; a single "ok" when nothing is wrong."""
    checks = _failure_checks(outcome, timeout)
    result = outcome.result
    if isinstance(result, mcp.types.CallToolResult):
        blocks = [b.model_dump(by_alias=True, mode="json", exclude_none=True)
                  for b in result.content]
        if result.is_error:
            text = _first_line(_result_text(result)) or "(no text)"
            checks.append(Check("warning", "tool_error",
                                f"the tool reported an error (isError): {text!r}: OpenAI "
                                "reports mcp_tool_execution_error with that text, and skips "
                                "outputSchema validation"))
        elif output_schema is not None:
            checks += structured_checks(output_schema, result.structured_content)
        checks += content_checks(blocks)
        size = result_size(result)
        if size > SIZE_WARNING:
            checks.append(Check("warning", "large_result",
                                f"the result is {size / 1024:.0f} KB: all of it goes to the "
                                "model's context"))
    if outcome.kind != "timeout":
        checks += latency_checks(outcome.seconds, timeout)
    if not checks:
        detail = "; structuredContent matches the outputSchema" if output_schema else ""
        checks.append(Check("ok", "ok", f"answered in {outcome.seconds:.2f} s{detail}"))
    return checks


def _failure_checks(outcome: CallOutcome, timeout: float) -> list[Check]:
    kind, cause = outcome.kind, outcome.cause or ""
    if kind is None or kind == "tool_error":
        return []
    if kind == "missing_structured_content":
        return [missing_structured()]
    if kind == "invalid_structured_content":
        detail = cause.split(INVALID_STRUCTURED, 1)[-1].split(":", 1)[-1].strip()
        return [invalid_structured(detail or cause)]
    if kind == "invalid_content":
        return content_error_checks(outcome.exception, cause)
    if kind == "timeout":
        return [timeout_check(timeout)]
    if kind == "session_terminated":
        return [Check("error", "session_terminated",
                      f"the server no longer knows the session ({cause}): a stateful server "
                      "that forgets sessions (restart, several replicas) fails OpenAI's calls")]
    if kind == "connection_lost":
        return [Check("error", "connection_lost",
                      f"the connection was lost during the call ({cause}): OpenAI reports the "
                      "424")]
    if kind == "protocol_error":
        return [Check("error", "protocol_error",
                      f"the server answered with a JSON-RPC error instead of a result "
                      f"({cause}): OpenAI reports mcp_protocol_error")]
    return [Check("error", "unexpected", f"the call failed: {cause}: OpenAI reports the 424")]


def result_size(result: mcp.types.CallToolResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


def _result_text(result: mcp.types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, mcp.types.TextContent))


def _error_text(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    text = _first_line(error.message)
    return f"at /{where}: {text}" if where else text


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def _preview(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"


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


def recorded_failures(loaded: Loaded) -> list[tuple[str | None, PlannedCall]]:
    """(server_label, call) for every failed mcp_call in a recording, in order."""
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    found = []
    for response in timeline.state.responses:
        for item in response.items:
            if item.type == "mcp_call" and item.failed and item.name:
                arguments, problem = parse_arguments(item.arguments)
                found.append((item.server_label, PlannedCall(
                    tool=item.name, arguments=arguments, source="recording",
                    arguments_problem=problem, recorded_error=item.error_text or None,
                    item_id=item.item_id)))
    return found


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Recorded argument JSON text → (arguments, None) or (None, why it cannot be used)."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except ValueError as exc:
        return None, f"the recorded arguments are not valid JSON ({exc}): {text[:80]!r}"
    if not isinstance(value, dict):
        return None, f"the recorded arguments are {type(value).__name__}, not a JSON object"
    return value, None


def plan_calls(entries: list[dict[str, Any]], *, recording: Loaded | None, tool: str | None,
               arguments: dict[str, Any] | None, notes: list[str]
               ) -> dict[int, list[PlannedCall]]:
    """The recorded calls per entry (by position). A named tool is planned once listed.

    With both a recording and a tool but no arguments, the tool's recorded failed calls are
    re-run with their recorded arguments (and the tool is called with {} where none was).
    """
    planned: dict[int, list[PlannedCall]] = {i: [] for i in range(len(entries))}
    if recording is None or (tool is not None and arguments is not None):
        return planned
    labels = {e.get("server_label"): i for i, e in reversed(list(enumerate(entries)))
              if isinstance(e.get("server_label"), str)}
    failures = recorded_failures(recording)
    if tool is not None:
        failures = [(label, call) for label, call in failures if call.tool == tool]
    if not failures:
        notes.append(f"the recording has no failed mcp_call{f' of {tool}' if tool else ''}: "
                     "nothing to re-run from it")
    for label, call in failures:
        index = labels.get(label) if label is not None else None
        if index is None:
            notes.append(f"recorded failed call {call.tool} on {label!r}: the request has no "
                         "mcp tool with that server_label; not called")
        else:
            planned[index].append(call)
    return planned


# -- probing -------------------------------------------------------------------------------------

async def probe(request: Mapping[str, Any], *, recording: Loaded | None = None,
                tool: str | None = None, arguments: dict[str, Any] | None = None,
                timeout: float = OPENAI_TIMEOUT, transport: str | None = None,
                on_progress: Progress | None = None) -> ProbeReport:
    """Connect to every mcp tool of `request`, list its tools, make the chosen calls, check all.

    Calls: with `tool`, that tool on every server that offers it (`arguments`, default {});
    with `recording`, every failed mcp_call whose server_label is in the request, with its
    recorded arguments; with neither, none. Servers are probed one after another.
    """
    report = ProbeReport()
    entries = mcp_entries(request)
    if not entries:
        report.problems.append('the request has no MCP tools (tools[] entries with "type": '
                               '"mcp"): nothing to probe')
        return report
    plans = plan_calls(entries, recording=recording, tool=tool, arguments=arguments,
                       notes=report.notes)
    for index, entry in enumerate(entries):
        named = _named(tool, arguments, plans[index])
        report.servers.append(await _probe_entry(entry, plans[index], named, timeout=timeout,
                                                 transport=transport, progress=on_progress))
    called = any(c.tool == tool for s in report.servers for c in s.calls)
    if tool is not None and not called and any(s.reachable for s in report.servers):
        report.problems.append(f"no server offers the tool {tool!r} (see each server's tools, "
                               "and allowed_tools)")
    return report


def _named(tool: str | None, arguments: dict[str, Any] | None,
           planned: list[PlannedCall]) -> PlannedCall | None:
    if tool is None or any(call.tool == tool for call in planned):
        return None
    return PlannedCall(tool=tool, arguments=dict(arguments or {}), source="named")


async def probe_call(tool_entry: Mapping[str, Any], name: str, arguments: Any, *,
                     timeout: float = OPENAI_TIMEOUT, transport: str | None = None,
                     source: Source = "named", redacted: bool = False,
                     on_progress: Progress | None = None) -> ServerReport:
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
        parsed, problem = None, (f"the arguments are {type(arguments).__name__}, not a JSON "
                                 "object")
    call = PlannedCall(tool=name, arguments=parsed, source=source, arguments_problem=problem)
    return await _probe_entry(tool_entry, [call], None, timeout=timeout, transport=transport,
                              progress=on_progress, redacted_source=redacted)


def evidence_of(report: ServerReport) -> ProbeEvidence | None:
    """What one server's probe says for the likely-cause rules (`tui.model.causes`).

    Unreachable: the connection's kind (refused, http_401, ...); otherwise the first call's
    kind (None when it worked). None when nothing was probed.
    """
    from tui.model.causes import ProbeEvidence

    credentials_missing = any(c.code in ("redacted_headers", "redacted_source")
                              for c in report.checks)
    if not report.reachable:
        return ProbeEvidence(kind=report.kind, message=report.problem or "unreachable",
                             reachable=False, credentials_missing=credentials_missing)
    if not report.calls:
        return None
    call = report.calls[0]
    first = next((c for c in call.checks if c.severity in ("error", "warning")), None)
    message = first.message if first is not None else (
        call.checks[0].message if call.checks else "the call worked")
    return ProbeEvidence(kind=call.kind, message=message, reachable=True,
                         credentials_missing=credentials_missing)


async def _probe_entry(entry: Mapping[str, Any], planned: list[PlannedCall],
                       named: PlannedCall | None, *, timeout: float, transport: str | None,
                       progress: Progress | None, redacted_source: bool = False
                       ) -> ServerReport:
    label = str(entry.get("server_label") or "?")
    url = entry.get("server_url")
    headers, redacted = entry_headers(entry)
    scrub = _Scrub(headers.values())
    server = ServerReport(server_label=label, url=url if isinstance(url, str) else None,
                          headers=sorted(headers))
    if redacted:
        server.checks.append(Check(
            "warning", "redacted_headers",
            f"header values were redacted in the source ({', '.join(redacted)}): sent without "
            "them, so the server may refuse the connection or the call"))
    elif redacted_source:
        server.checks.append(Check(
            "info", "redacted_source",
            "the tool entry comes from a redacted recording: any credential it had is gone, "
            "so the server may refuse the connection or the call"))
    if not server.url:
        connector = entry.get("connector_id")
        server.kind = "no_url"
        server.problem = (f"connector {connector!r}: only OpenAI can reach its connectors"
                          if connector else "the tool entry has no server_url")
        return server
    try:
        link = McpLink(server.url, headers=headers, timeout=timeout, transport=transport)
    except ValueError as exc:
        server.kind, server.problem = "bad_transport", str(exc)
        return server
    server.transport = link.transport
    try:
        await _use_link(server, link, entry, planned, named, timeout, progress, scrub)
    except McpUnavailable as exc:
        server.reachable = False
        server.kind = exc.kind
        message = str(exc)
        if server.initialize_seconds is not None and "list tools" not in message:
            message = f"listing tools failed: {message}"
        server.problem = scrub.text(message)
        server.cause = scrub.text(exc.cause)
    return server


async def _use_link(server: ServerReport, link: McpLink, entry: Mapping[str, Any],
                    planned: list[PlannedCall], named: PlannedCall | None, timeout: float,
                    progress: Progress | None, scrub: _Scrub) -> None:
    say = progress or (lambda _line: None)
    say(f"connecting to {server.server_label} at {server.url}")
    started = time.monotonic()
    async with link:
        server.initialize_seconds = time.monotonic() - started
        server.protocol_version = link.protocol_version
        if link.server_info is not None:
            server.server_name = scrub.text(link.server_info.name)
            server.server_version = scrub.text(link.server_info.version or "") or None
        say(f"listing the tools of {server.server_label}")
        started = time.monotonic()
        tools = await link.list_tools()
        server.list_seconds = time.monotonic() - started
        server.reachable = True
        by_name = _sort_tools(server, tools, parse_allowed_tools(entry.get("allowed_tools")),
                              scrub)
        calls = list(planned)
        if named is not None:
            if named.tool in by_name and named.tool not in server.skipped_tools:
                calls.append(named)
            elif named.tool in server.skipped_tools:
                server.checks.append(Check(
                    "warning", "tool_not_allowed",
                    f"{named.tool} is listed but excluded by allowed_tools: OpenAI never "
                    "offers it to the model; not called"))
        for call in calls:
            if call.arguments is None:
                server.calls.append(_not_called(server.server_label, call, scrub))
                continue
            say(f"calling {call.tool} on {server.server_label}")
            outcome = await link.call(call.tool, call.arguments, timeout=timeout)
            server.calls.append(_call_report(server.server_label, call, outcome,
                                             by_name.get(call.tool), timeout, scrub))


def _sort_tools(server: ServerReport, tools: list[mcp.types.Tool], allowed: AllowedTools,
                scrub: _Scrub) -> dict[str, mcp.types.Tool]:
    """Fill the server's tools, skipped and missing tools; every listed tool by name."""
    by_name = {tool.name: tool for tool in tools}
    for tool in tools:
        read_only = tool.annotations.read_only_hint if tool.annotations else None
        if not allowed.allows(tool.name, read_only):
            server.skipped_tools.append(tool.name)
            continue
        server.tools.append(tool_report(tool.name, scrub.maybe(tool.description),
                                        tool.input_schema, tool.output_schema))
    if allowed.names is not None:
        server.missing_tools = sorted(allowed.names - set(by_name))
    if server.missing_tools:
        server.checks.append(Check(
            "warning", "missing_tools",
            "allowed_tools names tools the server does not list: "
            + ", ".join(server.missing_tools)))
    if not tools:
        server.checks.append(Check("warning", "no_tools", "the server lists no tools"))
    elif not server.tools:
        server.checks.append(Check("warning", "no_allowed_tools",
                                   "allowed_tools excludes every listed tool: the model gets "
                                   "none"))
    return by_name


def _not_called(label: str, call: PlannedCall, scrub: _Scrub) -> CallReport:
    return CallReport(server_label=label, tool=call.tool, arguments=None, source=call.source,
                      recorded_error=scrub.maybe(call.recorded_error), item_id=call.item_id,
                      kind="bad_arguments",
                      checks=[Check("error", "bad_arguments",
                                    f"not called: {scrub.text(call.arguments_problem or '')}")])


def _call_report(label: str, call: PlannedCall, outcome: CallOutcome,
                 tool: mcp.types.Tool | None, timeout: float, scrub: _Scrub) -> CallReport:
    result = outcome.result if isinstance(outcome.result, mcp.types.CallToolResult) else None
    preview = outcome.output if outcome.output is not None else (
        _result_text(result) if result is not None else None)
    checks = outcome_checks(outcome, tool.output_schema if tool else None, timeout)
    if tool is None:
        checks.insert(0, Check("warning", "unknown_tool",
                               f"the server does not list {call.tool}"))
    else:
        checks[:0] = arguments_checks(tool.input_schema, call.arguments)
    if len(checks) > 1:
        checks = [c for c in checks if c.severity != "ok"]
    checks = [Check(c.severity, c.code, scrub.text(c.message)) for c in checks]
    return CallReport(
        server_label=label, tool=call.tool, arguments=scrub.deep(call.arguments),
        source=call.source, recorded_error=scrub.maybe(call.recorded_error),
        item_id=call.item_id, seconds=outcome.seconds, ok=outcome.ok,
        openai_error=scrub.deep(outcome.error), cause=scrub.maybe(outcome.cause),
        kind=outcome.kind, is_error=bool(result is not None and result.is_error),
        output_preview=scrub.maybe(_preview(preview)),
        size_bytes=result_size(result) if result is not None else None, checks=checks)


