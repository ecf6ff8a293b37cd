"""A tools/call result checked as OpenAI's MCP client checks it: pure rules on plain JSON.

Both the probe (a result it got by calling the tool) and the likely-cause engine (a result a
tap saw on the wire) judge results here, so a probe and a tap can never disagree about one.
A schema comes from the network and may be anything: whatever jsonschema raises on it is a
problem to report, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mcptui.model.textsafe import one_line

if TYPE_CHECKING:
    import jsonschema

CONTENT_TYPES = ("text", "image", "audio", "resource_link", "resource")
"""The content block types of a tools/call result (MCP spec 2025-06-18)."""


def structured_problem(output_schema: Any, structured: Any) -> tuple[str, str] | None:
    """structuredContent against a declared outputSchema: None when it passes, else (kind,
    detail) with kind `missing_structured_content`, `invalid_structured_content` or
    `output_schema_unusable` (the schema itself could not be used)."""
    if structured is None:
        return "missing_structured_content", ""
    import jsonschema  # ~50 ms to import: only when there is a result to check

    try:
        validator = jsonschema.validators.validator_for(output_schema)(output_schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(structured))
    except Exception as exc:  # an invalid schema, a dangling $ref, ...
        return "output_schema_unusable", exception_text(exc)
    if error is not None:
        return "invalid_structured_content", validation_text(error)
    return None


def fits_schema(schema: Any, value: Any) -> bool | None:
    """Whether `value` passes `schema`: None when the schema cannot be used."""
    import jsonschema

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        return validator.is_valid(value)
    except Exception:  # an invalid schema, a dangling $ref, ...
        return None


def bad_blocks(blocks: Iterable[Any]) -> list[tuple[int, Any]]:
    """(position, the type it has) of each content block whose type MCP does not define."""
    found = []
    for index, block in enumerate(blocks):
        given = block.get("type") if isinstance(block, dict) else None
        if given not in CONTENT_TYPES:
            found.append((index, given))
    return found


def block_problem(index: int, given: Any) -> str:
    what = f"has type {given!r}" if isinstance(given, str) else "has no type"
    return f"content block {index} {what}, not one of {', '.join(CONTENT_TYPES)}"


def validation_text(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    text = first_line(error.message)
    return f"at /{where}: {text}" if where else text


def exception_text(exc: BaseException) -> str:
    """ "PointerToNowhere: '/$defs/x' does not exist" style, in one short line.

    jsonschema wraps referencing errors in private classes: the wrapped error is named instead.
    """
    while type(exc).__name__.startswith("_") and exc.__cause__ is not None:
        exc = exc.__cause__
    text = first_line(str(exc))
    if " does not exist within " in text:  # referencing's PointerToNowhere quotes the schema
        text = text.split(" within ", 1)[0]
    return one_line(f"{type(exc).__name__}: {text}", 200)


def first_line(text: str) -> str:
    """The first non-blank line of `text`, its whitespace collapsed."""
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""
