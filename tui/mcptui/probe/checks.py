"""Check a tool and a tools/call result as OpenAI's client would: pure functions, no network.

`mcptui.probe` connects, calls and reports; what it finds wrong is decided here, from plain values
(a schema, a result, a `CallOutcome`), so every rule is testable without a server and the probe
module keeps to connecting and collecting. `Check`, `Severity` and `worst` live here rather
than with the report dataclasses so that this module needs nothing from `mcptui.probe.probing`
(which imports it): no import cycle. `mcptui.probe.probing` re-exports every public name.

A schema comes from the network and may be anything: each check that uses one turns whatever
jsonschema raises (an unresolvable `$ref`, an unknown draft, ...) into a warning, never an
exception, so one odd tool cannot stop a probe.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote

import jsonschema
import mcp.types
import pydantic

from mcptui.mcpclient.link import INVALID_STRUCTURED, CallOutcome
from mcptui.model.results import (
    CONTENT_TYPES,
    bad_blocks,
    block_problem,
    exception_text,
    first_line,
    structured_problem,
    validation_text,
)
from mcptui.model.textsafe import one_line

Severity = Literal["ok", "info", "warning", "error"]

OPENAI_TIMEOUT = 60.0
"""Roughly when OpenAI gives up on a tools/call (undocumented; failures are reported ~60 s in)."""
SLOW_WARNING = 30.0
"""Calls slower than this are close enough to OpenAI's limit to fail on a bad day."""
SIZE_WARNING = 100 * 1024
"""Results larger than this (bytes of JSON) are worth a warning: they all go to the model."""
_BLOCK_MODELS = {
    "text": "TextContent",
    "image": "ImageContent",
    "audio": "AudioContent",
    "resource_link": "ResourceLink",
    "resource": "EmbeddedResource",
}
"""The mcp SDK's model per block type: how its pydantic errors name the union members."""
_SEVERITY_ORDER: dict[str, int] = {"ok": 0, "info": 1, "warning": 2, "error": 3}
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
"""Keywords whose values map names to subschemas: a name there is never a keyword."""
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
"""Keywords whose values are instances, not schemas: a `$ref` inside is just data."""
_NOWHERE = object()


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


# -- tool schemas ---------------------------------------------------------------------------------


def tool_checks(description: str | None, input_schema: Any, output_schema: Any) -> list[Check]:
    """The sanity checks of a listed tool: its description and both schemas."""
    checks = input_schema_checks(input_schema)
    if not (description or "").strip():
        checks.append(
            Check("info", "no_description", "no description: the model has only the name to go by")
        )
    if output_schema is not None:
        checks += _validity_checks("outputSchema", "output_schema_invalid", output_schema)
        checks.append(
            Check(
                "info",
                "output_schema",
                "declares an outputSchema: results must carry structuredContent matching it",
            )
        )
    return checks


def input_schema_checks(schema: Any) -> list[Check]:
    """What OpenAI's model needs from an inputSchema: an object schema that is valid JSON Schema."""
    try:
        return _input_schema_checks(schema)
    except Exception as exc:  # whatever a hostile schema makes the checks raise
        return [
            Check(
                "warning",
                "input_schema_unchecked",
                f"inputSchema could not be checked: {exception_text(exc)}",
            )
        ]


def _input_schema_checks(schema: Any) -> list[Check]:
    if not isinstance(schema, dict):
        return [
            Check(
                "error",
                "input_schema_not_object",
                f"inputSchema is {type(schema).__name__}, not a JSON Schema object",
            )
        ]
    checks: list[Check] = []
    if schema.get("type") != "object":
        checks.append(
            Check(
                "error",
                "input_schema_type",
                f"inputSchema has type {schema.get('type')!r}: it must be "
                '"object" (tool arguments are a JSON object)',
            )
        )
    checks += _validity_checks("inputSchema", "input_schema_invalid", schema)
    properties = schema.get("properties")
    required = schema.get("required")
    if isinstance(required, list):
        known = properties if isinstance(properties, dict) else {}
        unknown = [str(name) for name in required if not isinstance(name, str) or name not in known]
        if unknown:
            checks.append(
                Check(
                    "warning",
                    "required_not_in_properties",
                    "inputSchema requires properties it does not define: " + ", ".join(unknown),
                )
            )
    return checks


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not valid JSON Schema (for its own `$schema` draft), or None."""
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return first_line(exc.message)
    except Exception as exc:  # e.g. an unknown $schema URI, a schema that is not a mapping
        return exception_text(exc)
    return None


def _validity_checks(what: str, code: str, schema: Any) -> list[Check]:
    """An invalid schema is one error; a valid one still has its `$ref`s checked."""
    problem = schema_problem(schema)
    if problem is not None:
        return [Check("error", code, f"{what} is not valid JSON Schema: {problem}")]
    return _ref_checks(what, schema)


def _ref_checks(what: str, schema: Any) -> list[Check]:
    """A warning naming the local `$ref`s that point nowhere (validation raises on them)."""
    dangling = dangling_refs(schema)
    if not dangling:
        return []
    names = ", ".join(one_line(ref, 80) for ref in dangling[:5])
    more = f" (+{len(dangling) - 5} more)" if len(dangling) > 5 else ""
    return [
        Check(
            "warning",
            "dangling_ref",
            f"{what} has a $ref that points nowhere in it: {names}{more}: values there "
            "cannot be checked against it",
        )
    ]


def dangling_refs(schema: Any) -> list[str]:
    """The local `$ref`s (`#`, `#/json/pointer`) of `schema` that resolve to nothing in it.

    A subschema with its own `$id` is the base of the local refs inside it. Remote refs and
    anchors (`#name`) are not followed: OpenAI does not fetch them either way.
    """
    found: list[str] = []

    def walk(node: Any, base: Any, names: bool = False) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, base)
            return
        if not isinstance(node, dict):
            return
        if names:  # {name: subschema}: every value is a schema, whatever its name
            for value in node.values():
                walk(value, base)
            return
        if node is not schema and isinstance(node.get("$id"), str):
            base = node
        ref = node.get("$ref")
        if (
            isinstance(ref, str)
            and (ref == "#" or ref.startswith("#/"))
            and _resolve_pointer(base, ref[1:]) is _NOWHERE
            and ref not in found
        ):
            found.append(ref)
        for key, value in node.items():
            if key not in _DATA_KEYWORDS:
                walk(value, base, names=key in _SCHEMA_MAPS)

    walk(schema, schema)
    return found


def _resolve_pointer(document: Any, pointer: str) -> Any:
    """The value a JSON pointer (RFC 6901, URI-escaped as in a `$ref`) names, or `_NOWHERE`."""
    node = document
    for raw in unquote(pointer).split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _NOWHERE
    return node


# -- results --------------------------------------------------------------------------------------


def structured_checks(output_schema: Any, structured: Any) -> list[Check]:
    """structuredContent against a declared outputSchema, as OpenAI's client checks it."""
    problem = structured_problem(output_schema, structured)
    if problem is None:
        return []
    kind, detail = problem
    if kind == "missing_structured_content":
        return [missing_structured()]
    if kind == "invalid_structured_content":
        return [invalid_structured(detail)]
    return [
        Check(
            "warning", "output_schema_unusable", f"structuredContent could not be checked: {detail}"
        )
    ]


def arguments_checks(input_schema: Any, arguments: Any) -> list[Check]:
    """The arguments sent against the tool's inputSchema (a mismatch explains an isError)."""
    if not isinstance(input_schema, dict) or schema_problem(input_schema) is not None:
        return []
    try:
        validator = jsonschema.validators.validator_for(input_schema)(input_schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    except Exception as exc:  # e.g. a $ref that points nowhere, met while validating
        return [
            Check(
                "warning",
                "arguments_unchecked",
                f"the arguments could not be checked against the inputSchema: "
                f"{exception_text(exc)}",
            )
        ]
    if error is None:
        return []
    return [
        Check(
            "warning",
            "arguments_mismatch",
            f"the arguments do not match the inputSchema: {validation_text(error)}",
        )
    ]


def missing_structured() -> Check:
    return Check(
        "error",
        "missing_structured_content",
        "declares an outputSchema but the result has no structuredContent: OpenAI's "
        'MCP client rejects it, which surfaces as 424 "unhandled errors in a '
        'TaskGroup"',
    )


def invalid_structured(detail: str) -> Check:
    return Check(
        "error",
        "invalid_structured_content",
        f"structuredContent does not match the outputSchema: {detail}: OpenAI's MCP "
        "client rejects it (424)",
    )


def content_checks(blocks: Iterable[Any]) -> list[Check]:
    """Each content block must have one of the spec's types."""
    return [bad_block(index, given) for index, given in bad_blocks(blocks)]


def bad_block(index: int, given: Any) -> Check:
    return Check(
        "error",
        "invalid_content",
        f"{block_problem(index, given)}: OpenAI's MCP client cannot parse the result (424)",
    )


def content_error_checks(exc: BaseException | None, cause: str | None) -> list[Check]:
    """Name the bad block(s) from the pydantic error the SDK raised on the CallToolResult."""
    if isinstance(exc, pydantic.ValidationError):
        checks = []
        for index, given, detail in _bad_blocks(exc):
            if given not in CONTENT_TYPES:
                checks.append(bad_block(index, given))
            else:
                checks.append(
                    Check(
                        "error",
                        "invalid_content",
                        f"content block {index} ({given}) is malformed: {detail}: "
                        "OpenAI's MCP client cannot parse the result (424)",
                    )
                )
        if checks:
            return checks
    return [
        Check(
            "error",
            "invalid_result",
            f"the result is not a valid CallToolResult: {cause or exc}: OpenAI's MCP "
            "client cannot parse it (424)",
        )
    ]


def _bad_blocks(exc: pydantic.ValidationError) -> list[tuple[int, Any, str]]:
    """(index, the block's type, what is wrong) per content block the errors point at."""
    by_index: dict[int, list[dict[str, Any]]] = {}
    for error in exc.errors(include_url=False):
        loc = error["loc"]
        if loc and loc[0] == "CallToolResult":  # 2026-07-28: the result is a union's member
            loc = loc[1:]
        if len(loc) >= 2 and loc[0] == "content" and isinstance(loc[1], int):
            by_index.setdefault(loc[1], []).append({**error, "loc": loc})
    found = []
    for index, errors in sorted(by_index.items()):
        block = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)
        given = (
            block.get("type")
            if block is not None
            else next((e["input"] for e in errors if e["loc"][-1] == "type"), None)
        )
        model = _BLOCK_MODELS.get(given) if isinstance(given, str) else None
        own = [e for e in errors if len(e["loc"]) > 2 and e["loc"][2] == model]
        detail = (
            "; ".join(
                f"{'.'.join(str(p) for p in e['loc'][3:]) or 'block'}: {e['msg']}" for e in own[:3]
            )
            or errors[0]["msg"]
        )
        found.append((index, given, detail))
    return found


def latency_checks(seconds: float, timeout: float) -> list[Check]:
    """A result that came in, against the probe's timeout and OpenAI's (~60 s, undocumented)."""
    if seconds >= timeout:
        return [timeout_check(timeout)]
    if seconds >= OPENAI_TIMEOUT:
        return [
            Check(
                "error",
                "too_slow_for_openai",
                f"answered in {seconds:.1f} s: OpenAI gives up after about "
                f"{OPENAI_TIMEOUT:g} s and reports the 424",
            )
        ]
    if seconds >= SLOW_WARNING:
        return [
            Check("warning", "slow", f"answered in {seconds:.1f} s: close to OpenAI's ~60 s limit")
        ]
    return []


def timeout_check(timeout: float) -> Check:
    if timeout < OPENAI_TIMEOUT:  # the limit of a recorded run (the emulator's), or --timeout
        return Check(
            "error",
            "timeout",
            f"no answer within {timeout:g} s, the limit given (OpenAI's is about "
            f"{OPENAI_TIMEOUT:g} s): past the limit the API reports the 424",
        )
    return Check(
        "error",
        "timeout",
        f"no answer within {timeout:g} s: OpenAI gives up after about "
        f"{OPENAI_TIMEOUT:g} s and reports the 424",
    )


def outcome_checks(outcome: CallOutcome, output_schema: Any, timeout: float) -> list[Check]:
    """Every check of one call's outcome; a single "ok" when nothing is wrong."""
    checks = _failure_checks(outcome, timeout)
    result = outcome.result
    if isinstance(result, mcp.types.CallToolResult):
        blocks = [
            b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in result.content
        ]
        if result.is_error:
            text = first_line(result_text(result)) or "(no text)"
            checks.append(
                Check(
                    "warning",
                    "tool_error",
                    f"the tool reported an error (isError): {text!r}: OpenAI "
                    "reports mcp_tool_execution_error with that text, and skips "
                    "outputSchema validation",
                )
            )
        elif output_schema is not None:
            checks += structured_checks(output_schema, result.structured_content)
        checks += content_checks(blocks)
        size = result_size(result)
        if size > SIZE_WARNING:
            checks.append(
                Check(
                    "warning",
                    "large_result",
                    f"the result is {size / 1024:.0f} KB: all of it goes to the model's context",
                )
            )
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
        return [
            Check(
                "error",
                "session_terminated",
                f"the server no longer knows the session ({cause}): a stateful server "
                "that forgets sessions (restart, several replicas) fails OpenAI's calls",
            )
        ]
    if kind == "connection_lost":
        return [
            Check(
                "error",
                "connection_lost",
                f"the connection was lost during the call ({cause}): OpenAI reports the 424",
            )
        ]
    if kind == "protocol_error":
        return [
            Check(
                "error",
                "protocol_error",
                f"the server answered with a JSON-RPC error instead of a result "
                f"({cause}): OpenAI reports mcp_protocol_error",
            )
        ]
    if kind == "header_mismatch":
        return [
            Check(
                "error",
                "header_mismatch",
                f"the server refused the call's MCP routing headers ({cause}): under "
                "2026-07-28 MCP-Protocol-Version, Mcp-Method and Mcp-Name must repeat the "
                "body's; a proxy between may drop or rewrite them",
            )
        ]
    if kind == "protocol_version":
        return [
            Check(
                "error",
                "protocol_version",
                f"the server refused the protocol revision of the call ({cause})",
            )
        ]
    if kind == "missing_capability":
        return [
            Check(
                "error",
                "missing_capability",
                f"the server requires a client capability the call did not declare ({cause})",
            )
        ]
    return [Check("error", "unexpected", f"the call failed: {cause}: OpenAI reports the 424")]


def result_size(result: mcp.types.CallToolResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


def result_text(result: mcp.types.CallToolResult) -> str:
    """The text blocks of a result, one per line (what OpenAI shows for an isError result)."""
    return "\n".join(b.text for b in result.content if isinstance(b, mcp.types.TextContent))
