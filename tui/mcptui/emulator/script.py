"""The emulator's stand-in for the model: tool calls read from the input, no LLM.

Every input line `call <tool_name> <json arguments>` is one tool call, in order. With no such
line the "model" calls the first allowed tool with arguments built from its input schema, so a
plain question still exercises a tool. The answer text says what the calls returned.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcptui.model.jsonsafe import loads_request

CALL_LINE = re.compile(r"^\s*call\s+(\S+)\s*(.*?)\s*$")
WAIT_LINE = re.compile(r"^\s*wait\s+(\d+(?:\.\d+)?)\s*s?\s*$")
"""`wait S`: the model thinks S seconds before its next call (a server restarted meanwhile
loses the session OpenAI's client holds: how tests reproduce it)."""


class ScriptError(ValueError):
    """The input asks for something the scripted model cannot do (a 400 for the caller)."""


@dataclass(frozen=True)
class PlannedCall:
    tool: str
    arguments: str
    """Compact JSON text, as a model streams it."""
    pause: float = 0.0
    """Seconds the model thinks before it makes the call (`wait S` lines before it)."""


def input_text(value: Any) -> str:
    """All user-visible text of a request's `input` (a string or a list of input items)."""
    if isinstance(value, str):
        return value
    parts: list[str] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict) or item.get("type") not in (None, "message"):
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                str(block.get("text", ""))
                for block in content
                if isinstance(block, dict) and block.get("type") == "input_text"
            )
    return "\n".join(parts)


def planned_calls(text: str) -> list[PlannedCall]:
    """The `call` lines of the input, checked to be valid JSON objects."""
    calls: list[PlannedCall] = []
    pause = 0.0
    for number, line in enumerate(text.splitlines(), start=1):
        waits = WAIT_LINE.match(line)
        if waits is not None:
            pause += float(waits.group(1))
            continue
        match = CALL_LINE.match(line)
        if match is None:
            continue
        tool, raw = match.groups()
        try:
            arguments = loads_request(raw or "{}")
        except ValueError as exc:
            raise ScriptError(
                f"input line {number}: arguments of `call {tool}` are not valid JSON ({exc})"
            ) from None
        if not isinstance(arguments, dict):
            raise ScriptError(
                f"input line {number}: arguments of `call {tool}` must be a JSON object"
            )
        calls.append(PlannedCall(tool, compact(arguments), pause))
        pause = 0.0
    return calls


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def default_arguments(schema: dict[str, Any] | None, question: str) -> dict[str, Any]:
    """Arguments for a tool from its input schema: required properties, defaults where given.

    The first required string property gets the user's question, the way a model would pass
    the query on.
    """
    schema = schema or {}
    properties = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    question_used = False
    for name in schema.get("required") or []:
        spec = properties.get(name) or {}
        if "default" in spec:
            arguments[name] = spec["default"]
        elif spec.get("enum"):
            arguments[name] = spec["enum"][0]
        elif spec.get("type") == "string" and not question_used:
            arguments[name] = question.strip().splitlines()[0] if question.strip() else "test"
            question_used = True
        else:
            arguments[name] = example_value(spec)
    return arguments


def example_value(spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if not isinstance(kind, str):  # absent, or not a JSON type name (a dict is unhashable)
        return None
    if kind in ("integer", "number"):
        low = spec.get("minimum", 1)
        return int(low) if kind == "integer" else float(low)
    return {"string": "example", "boolean": False, "array": [], "object": {}}.get(kind)


def answer(outcomes: list[tuple[str, str | None, Any]]) -> str:
    """What the "model" says after its calls: (tool, output, error) for each."""
    if not outcomes:
        return "No MCP tool was available, so I answered without one."
    sentences: list[str] = []
    for tool, output, error in outcomes:
        if error is None:
            text = " ".join((output or "").split())
            if len(text) > 160:
                text = text[:157] + "..."
            sentences.append(f"The {tool} tool returned: {text or '(no text)'}")
        else:
            message = error.get("message") if isinstance(error, dict) else error
            kind = error.get("type") if isinstance(error, dict) else "error"
            sentences.append(
                f"The {tool} tool call failed ({kind}" + (f": {message}" if message else "") + ")."
            )
    return " ".join(sentences)
