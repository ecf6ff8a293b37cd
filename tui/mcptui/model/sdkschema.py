"""The installed openai SDK's stream events as a JSON Schema, and a checker that vouches for
events that are valid against it without importing the SDK.

Why: importing `openai.types.responses` and building the pydantic validators the conformance
check uses costs ~1.3 s of CPU (measured: 1.13 s for the import, ~0.1 s for each response-
carrying event type's first validation), nine tenths of `mcptui inspect`'s start on a small
file. What the check needs from the SDK for a valid event is only "valid, and which fields are
declared". That is derived once per SDK version (`derive`, which does import the SDK) and kept
as JSON (the io layer caches it on disk, `mcptui.io.sdk_schema_cache`); `QuickChecker` reads it
and answers `valid` only when it is sure strict pydantic validation would pass. Anything else,
an invalid event or a schema construct it does not know, is `None`: the caller validates with
the SDK itself, so every finding's wording still comes from pydantic.

Strict pydantic semantics, as checked by tests/unit/test_sdk_schema.py against the SDK: a
string is a `str`; an integer an `int` but not a `bool`; a number an `int` or `float` but not a
`bool`; an object a `dict` whose required keys are present and whose declared values are
valid (undeclared keys allowed where `additionalProperties` is true); a union (`anyOf`) valid
when one member is. Lists are checked on their first `CHECKED_ELEMENTS` elements, as the
conformance check validates them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

FORMAT = 1
"""Bumped when what `derive` writes changes, so an older cache is not read."""
CHECKED_ELEMENTS = 1000
"""Elements of a list checked against the SDK's models, the first ones: a listing of 200,000
tools took 21 s and gigabytes to validate (each element tried against every item type of the
union); the first thousand say as much about the stream's shape."""

_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})
_IGNORED = frozenset({"title", "description", "default", "examples"})
"""Keywords that say nothing about validity."""


_VERSION_FILES = {"openai": "_version.py", "pydantic": "version.py"}
_VERSION = re.compile(r"""^(?:__version__|VERSION)\s*=\s*["']([^"']+)["']""", re.MULTILINE)


def _version(package: str) -> str:
    """A package's version, read from its version module's text without importing it
    (`importlib.metadata` costs ~18 ms of a ~0.3 s start, importing openai ~1 s); from its
    metadata when that file says nothing."""
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.origin is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = Path(spec.origin).with_name(_VERSION_FILES[package]).read_text("utf-8")
            found = _VERSION.search(text)
            if found is not None:
                return found.group(1)
    from importlib import metadata

    return metadata.version(package)


def sdk_versions() -> tuple[str, str]:
    """The installed openai and pydantic versions, without importing either."""
    return _version("openai"), _version("pydantic")


def cache_key() -> str:
    """What a derived schema is valid for: this format and the installed SDK and pydantic."""
    openai, pydantic = sdk_versions()
    return f"{FORMAT}-openai-{openai}-pydantic-{pydantic}"


def derive() -> dict[str, Any]:
    """The SDK's stream events as JSON: each `type` literal's model name and definition."""
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    schema = TypeAdapter(ResponseStreamEvent).json_schema()
    union = typing.get_args(ResponseStreamEvent)[0]  # Annotated[Union[...], discriminator]
    members = typing.get_args(union)
    refs = [member["$ref"] for member in schema["anyOf"]]
    if len(refs) != len(members):
        raise ValueError("the SDK's event union and its JSON Schema do not line up")
    events: dict[str, dict[str, str]] = {}
    for model, ref in zip(members, refs, strict=True):
        for literal in typing.get_args(model.model_fields["type"].annotation):
            events[literal] = {"model": model.__name__, "ref": ref}
    return {"key": cache_key(), "events": events, "$defs": schema.get("$defs", {})}


class EventShape(NamedTuple):
    """What the check needs of one event type when the event is valid."""

    model: str
    """The SDK model's class name, which the extra-field finding names."""
    declared: frozenset[str]
    """The JSON names of its fields."""
    free: frozenset[str]
    """Fields whose validity depends only on the value's class (a scalar type or a union of
    them, no literal): the shape cache keys them on the class, not the value."""
    closed: bool
    """Whether undeclared fields must themselves validate (no result cache then)."""


Check = Callable[[Any], bool]


class _Unknown(Exception):
    """A schema construct this checker does not model: it cannot vouch for the value."""


class QuickChecker:
    """Validity of events against a derived schema, with each definition compiled once."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self._defs: dict[str, Any] = schema["$defs"]
        self._events: dict[str, dict[str, str]] = schema["events"]
        self._compiled: dict[str, Check] = {}
        self._shapes: dict[str, EventShape | None] = {}

    def shape(self, kind: str) -> EventShape | None:
        """The event type's shape, or None for a type the SDK does not know."""
        if kind in self._shapes:
            return self._shapes[kind]
        entry = self._events.get(kind)
        found = None
        try:
            if entry is not None:
                node = self._resolve(entry["ref"])
                properties: dict[str, Any] = node.get("properties", {})
                free = frozenset(k for k, v in properties.items() if self._is_free(v))
                closed = node.get("additionalProperties", True) is not True
                found = EventShape(entry["model"], frozenset(properties), free, closed)
        except (_Unknown, AttributeError, KeyError, TypeError):  # a schema not as derived
            found = None
        self._shapes[kind] = found
        return found

    def valid(self, raw: dict[str, Any]) -> bool:
        """True only if strict validation of `raw` against its type's model passes."""
        kind = raw.get("type")
        entry = self._events.get(kind) if type(kind) is str else None
        if entry is None:
            return False
        try:
            check = self._compiled.get(entry["ref"])
            if check is None:
                check = self._compiled[entry["ref"]] = self._compile_ref(entry["ref"])
            return check(raw)
        except (_Unknown, RecursionError):
            return False
        except (AttributeError, KeyError, TypeError):  # a schema not as `derive` writes one
            return False

    # compiling

    def _resolve(self, ref: str) -> dict[str, Any]:
        prefix = "#/$defs/"
        found = self._defs.get(ref[len(prefix) :]) if ref.startswith(prefix) else None
        if not isinstance(found, dict):
            raise _Unknown(ref)
        return found

    def _compile_ref(self, ref: str) -> Check:
        """A definition's check, compiled on first use (definitions may refer to themselves)."""
        compiled = self._compiled

        def by_ref(value: Any) -> bool:
            check = compiled.get(ref)
            if check is None or check is by_ref:
                check = compiled[ref] = self._compile(self._resolve(ref))
            return check(value)

        compiled.setdefault(ref, by_ref)
        return by_ref

    def _is_free(self, node: dict[str, Any]) -> bool:
        members = node["anyOf"] if set(node) - _IGNORED == {"anyOf"} else [node]
        return all(
            isinstance(m, dict)
            and set(m) - _IGNORED == {"type"}
            and isinstance(m["type"], str)
            and m["type"] in _SCALAR_TYPES
            for m in members
        )

    def _compile(self, node: Any) -> Check:
        if node is True:
            return _anything
        if not isinstance(node, dict):
            return _unknown
        keys = set(node) - _IGNORED
        if not keys:  # `object`, `Any`: only a title
            return _anything
        if "$ref" in node:
            if keys != {"$ref"}:
                return _unknown
            return self._compile_ref(node["$ref"])
        if "anyOf" in node:
            if keys != {"anyOf"}:
                return _unknown
            members = [self._compile(m) for m in node["anyOf"]]
            return lambda value: any(check(value) for check in members)
        if "const" in node or "enum" in node:
            if not keys <= {"const", "enum", "type"}:
                return _unknown
            allowed = [node["const"]] if "const" in node else list(node["enum"])
            pairs = frozenset((type(a), a) for a in allowed if isinstance(a, str | int | float))
            if len(pairs) != len(allowed):
                return _unknown
            return lambda value: (
                isinstance(value, str | int | float) and ((type(value), value) in pairs)
            )
        kind = node.get("type")
        if kind in _SCALAR_TYPES:
            if keys != {"type"}:
                return _unknown
            return _SCALAR_CHECKS[kind]
        if kind == "array":
            if not keys <= {"type", "items"}:
                return _unknown
            each = self._compile(node.get("items", True))
            return lambda value: (
                type(value) is list and all(each(item) for item in value[:CHECKED_ELEMENTS])
            )
        if kind == "object":
            if not keys <= {"type", "properties", "required", "additionalProperties"}:
                return _unknown
            return self._compile_object(node)
        return _unknown

    def _compile_object(self, node: dict[str, Any]) -> Check:
        properties = {k: self._compile(v) for k, v in node.get("properties", {}).items()}
        required = tuple(node.get("required", ()))
        extra = node.get("additionalProperties", True)
        other = None if extra is True else self._compile(extra)

        def check(value: Any) -> bool:
            if type(value) is not dict:
                return False
            for key in required:
                if key not in value:
                    return False
            for key, item in value.items():
                field = properties.get(key, other)
                if field is not None and not field(item):
                    return False
            return True

        return check


def _anything(value: Any) -> bool:
    return True


def _unknown(value: Any) -> bool:
    raise _Unknown


def _is_number(value: Any) -> bool:
    cls = type(value)
    return cls is int or cls is float


_SCALAR_CHECKS: dict[str, Check] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int,
    "number": _is_number,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
}


SchemaSource = Callable[[], "dict[str, Any] | None"]
_source: list[SchemaSource] = []
_checker: list[QuickChecker | None] = []


def provide(source: SchemaSource | None) -> None:
    """Where the derived schema comes from (the io layer's disk cache). Without a source (the
    default, or None) the conformance check validates every event with the SDK itself."""
    _source[:] = [] if source is None else [source]
    _checker.clear()


def quick_checker() -> QuickChecker | None:
    """The checker over the provided schema, made once; None when none is provided or it
    could not be had."""
    if not _checker:
        schema = _source[0]() if _source else None
        _checker.append(QuickChecker(schema) if schema is not None else None)
    return _checker[0]
