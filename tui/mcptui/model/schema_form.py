"""A form from a tool's `inputSchema`: one field per property, and the arguments it makes.

Each top-level property is a field of the kind its schema says: text, a number, an integer,
true/false, one of an `enum`'s values, or JSON text for what a single box cannot hold (an array,
an object, a union of types). Required properties are marked; an empty optional field is left
out of the arguments, an empty required one is a problem. What the form cannot express (a
schema with no properties, `oneOf` at the top) goes to the raw JSON mode, which the workspace
always offers. The arguments are then checked against the whole schema (jsonschema), each
problem with its JSON path. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcptui.model.jsonsafe import loads

KINDS = ("string", "number", "integer", "boolean", "enum", "json")


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: str
    """One of KINDS."""
    required: bool = False
    description: str = ""
    choices: tuple[Any, ...] = ()
    """An `enum`'s values (kind "enum")."""
    type_text: str = ""
    """The schema's type in a few characters (`string`, `array`, `object`, `a | b`)."""


def fields_of(schema: Any) -> list[Field] | None:
    """The form's fields, in the schema's order; None when no form can stand for it (not an
    object schema with properties: the raw JSON mode then)."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return None
    required = schema.get("required")
    wanted = set(required) if isinstance(required, list) else set()
    return [
        _field(str(name), sub if isinstance(sub, dict) else {}, name in wanted)
        for name, sub in properties.items()
    ]


def _field(name: str, schema: Mapping[str, Any], required: bool) -> Field:
    description = str(schema.get("description") or schema.get("title") or "")
    kind_of = schema.get("type")
    types = [t for t in kind_of if t != "null"] if isinstance(kind_of, list) else [kind_of]
    type_text = " | ".join(str(t) for t in types if t) or "any"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return Field(name, "enum", required, description, tuple(schema["enum"]), type_text)
    if len(types) == 1 and types[0] in ("string", "number", "integer", "boolean"):
        return Field(name, str(types[0]), required, description, type_text=type_text)
    return Field(name, "json", required, description, type_text=type_text)


def text_of(field: Field, value: Any) -> str:
    """What a field's box shows for `value` (a call's argument, to pre-fill it)."""
    if value is None:
        return ""
    if field.kind in ("string", "enum") and isinstance(value, str):
        return value
    if field.kind in ("number", "integer") and isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def value_of(field: Field, text: str) -> tuple[Any, str | None]:
    """The argument a field's text makes, or the problem with it; (None, None): left out."""
    if field.kind == "boolean":
        return (text == "true"), None
    if text == "" and field.kind != "string":
        return None, (f"{field.name}: required" if field.required else None)
    if field.kind == "string":
        if text == "":  # (an empty string on purpose: the raw JSON mode sends one)
            return None, (f"{field.name}: required" if field.required else None)
        return text, None
    if field.kind == "enum":
        for choice in field.choices:
            if text == (choice if isinstance(choice, str) else json.dumps(choice)):
                return choice, None
        return None, f"{field.name}: not one of its values"
    try:
        value = loads(text)  # (at most 100 levels: the form's later steps recurse)
    except json.JSONDecodeError as exc:
        return None, f"{field.name}: not JSON ({exc.msg}, column {exc.colno})"
    if field.kind == "integer" and not (isinstance(value, int) and not isinstance(value, bool)):
        return None, f"{field.name}: not an integer"
    if field.kind == "number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return None, f"{field.name}: not a number"
    return value, None


def arguments_of(fields: list[Field], texts: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The arguments the form's texts make (by field name), and the problems met."""
    arguments: dict[str, Any] = {}
    problems: list[str] = []
    for field in fields:
        value, problem = value_of(field, texts.get(field.name, ""))
        if problem is not None:
            problems.append(problem)
        elif value is not None or field.kind == "boolean":
            arguments[field.name] = value
    return arguments, problems


def schema_problems(schema: Any, arguments: Any, limit: int = 8) -> list[str]:
    """Each way `arguments` breaks `schema`, with its JSON path (`$.filters[0].from: …`);
    [] when it holds or the schema cannot be used."""
    if not isinstance(schema, dict):
        return []
    import jsonschema

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except Exception:  # a schema jsonschema cannot use: the server's own check will say
        return []
    return [f"{error.json_path}: {error.message}" for error in errors[:limit]]
