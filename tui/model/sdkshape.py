"""What a JSON value's validity against an SDK type depends on: its shape, not its text.

`check_stream` validates every event against the installed SDK's pydantic models (strict), and
caches the result by shape so that the 200k-th text delta costs a dict lookup. An event that
carries an object (`output_item.done` and its item, `content_part.done` and its part) was
validated whole every time: a third of the check's time on a long stream, for results that
are the same for every message item. `shape_of` gives a key that stands for everything strict
validation looks at in such a value: which keys an object has, the class of each value a
plain type takes (`str`, `int`, …, whatever its text), the value itself where a `Literal`
decides, the member of a union its `type` picks, recursively. Two values with the same key
validate alike; anything it cannot vouch for raises `Uncacheable`.
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel

_SIMPLE = (str, int, float, bool, type(None))
ANY_VALUE = "any value"
"""The shape of a value where the SDK takes any (`object`, an undeclared field)."""


class Uncacheable(Exception):
    """A value whose validity `shape_of` cannot stand for: validate it whole."""


def shape_of(value: Any, annotation: Any) -> Any:
    """A hashable key for `value` as validated strictly against `annotation`."""
    if annotation in _SIMPLE:
        return type(value)
    if annotation is object or annotation is Any:
        return ANY_VALUE
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        if type(value) not in _SIMPLE:
            raise Uncacheable
        return type(value), value
    if origin is typing.Annotated:
        return shape_of(value, typing.get_args(annotation)[0])
    if origin is list:
        if type(value) is not list:
            return type(value)  # not valid whatever it holds
        (item,) = typing.get_args(annotation)
        return tuple(shape_of(v, item) for v in value)
    if origin is dict:
        if type(value) is not dict:
            return type(value)
        item = typing.get_args(annotation)[1]  # JSON keys are strings, as the SDK's are
        return tuple(shape_of(v, item) for v in value.values())
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if object in args or Any in args:
            return ANY_VALUE
        if type(value) in _SIMPLE:  # its class, when one it may be; else the value decides
            return type(value) if type(value) in args else (type(value), value)
        if type(value) is dict:
            member = _members_by_type(args).get(value.get("type"))  # type: ignore[arg-type]
            if member is not None:
                return member, shape_of(value, member)
        # Strictly, only a list type takes a list: the one there is decides (the same for
        # an object, when no `type` picks a member).
        takers = [arg for arg in args if _takes(arg, type(value))]
        if len(takers) == 1:
            return shape_of(value, takers[0])
        raise Uncacheable
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if type(value) is not dict:
            return type(value)
        fields = json_fields(annotation)
        return tuple((key, shape_of(v, fields[key]) if key in fields else ANY_VALUE)
                     for key, v in value.items())
    raise Uncacheable


def _takes(annotation: Any, cls: type) -> bool:
    """Whether `annotation` may take a value of class `cls` (a list or a dict) strictly."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)
    if cls is list:
        return origin is list
    return origin is dict or (isinstance(annotation, type) and issubclass(annotation, BaseModel))


@cache
def json_fields(model: type[BaseModel]) -> dict[str, Any]:
    """Each field's annotation by its JSON name (`Uncacheable` for a field with constraints,
    which `shape_of` would not see)."""
    fields: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        plain = all(type(meta).__name__ == "PropertyInfo" for meta in field.metadata)
        fields[field.alias or name] = field.annotation if plain else _Constrained
    return fields


class _Constrained:
    """Stands for a field's annotation when the field has constraints: never vouched for."""


@cache
def _members_by_type(args: tuple[Any, ...]) -> dict[str, type[BaseModel]]:
    """The union's model for each `type` literal, when every member is a model that names its
    `type` by literals (else none: a member without one could take any object), and only
    literals one member has."""
    found: dict[str, list[type[BaseModel]]] = {}
    for arg in args:
        if arg is type(None):
            continue
        if typing.get_origin(arg) is typing.Annotated:
            arg = typing.get_args(arg)[0]
        if not (isinstance(arg, type) and issubclass(arg, BaseModel)):
            return {}
        kind = json_fields(arg).get("type")
        if typing.get_origin(kind) is not typing.Literal:
            return {}
        for literal in typing.get_args(kind):
            found.setdefault(literal, []).append(arg)
    return {literal: models[0] for literal, models in found.items() if len(models) == 1}
