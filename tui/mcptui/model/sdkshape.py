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
from collections.abc import Callable
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
    return shaper(annotation)(value)


Shaper = Callable[[Any], Any]
_shapers: dict[int, tuple[Any, Shaper]] = {}
"""Each annotation's shaper, by identity (an annotation need not be hashable), kept with it."""


def shaper(annotation: Any) -> Shaper:
    """The function giving `shape_of(value, annotation)`, built once per annotation: the
    typing introspection is done here, not for every value of every event."""
    found = _shapers.get(id(annotation))
    if found is not None and found[0] is annotation:
        return found[1]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_shaper(annotation)  # registers itself first: models may nest themselves
    made = _build(annotation)
    _shapers[id(annotation)] = (annotation, made)
    return made


def _build(annotation: Any) -> Shaper:
    if annotation in _SIMPLE:
        return type
    if annotation is object or annotation is Any:
        return _any_value
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return _literal
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        return shaper(inner) if all(map(_is_property_info, metadata)) else _uncacheable
    if origin is list:
        item = shaper(typing.get_args(annotation)[0])
        return lambda value: tuple(map(item, value)) if type(value) is list else type(value)
    if origin is dict:  # JSON keys are strings, as the SDK's are: the values decide
        entry = shaper(typing.get_args(annotation)[1])
        return lambda value: (
            tuple(map(entry, value.values())) if type(value) is dict else type(value)
        )
    if origin in (typing.Union, types.UnionType):
        return _union_shaper(typing.get_args(annotation))
    return _uncacheable


def _is_property_info(meta: Any) -> bool:
    """The openai SDK's own annotation (a discriminator, an alias), which constrains nothing
    that validation checks; any other (a pydantic constraint) makes a value uncacheable."""
    return type(meta).__name__ == "PropertyInfo"


def _any_value(value: Any) -> str:
    return ANY_VALUE


def _literal(value: Any) -> Any:
    if type(value) not in _SIMPLE:
        raise Uncacheable
    return type(value), value


def _uncacheable(value: Any) -> Any:
    raise Uncacheable


def _model_shaper(model: type[BaseModel]) -> Shaper:
    fields: dict[str, Shaper] = {}

    def shape(value: Any) -> Any:
        if type(value) is not dict:
            return type(value)
        return tuple(
            (key, fields[key](v) if key in fields else ANY_VALUE) for key, v in value.items()
        )

    _shapers[id(model)] = (model, shape)
    for name, annotation in json_fields(model).items():
        fields[name] = shaper(annotation)
    return shape


def _union_shaper(args: tuple[Any, ...]) -> Shaper:
    if object in args or Any in args:
        return _any_value
    simple = frozenset(arg for arg in args if arg in _SIMPLE)
    members = {kind: (model, shaper(model)) for kind, model in _members_by_type(args).items()}
    # Strictly, only a list type takes a list: the one there is decides (the same for an
    # object, when no `type` picks a member).
    takers = {cls: [arg for arg in args if _takes(arg, cls)] for cls in (list, dict)}
    sole = {cls: shaper(found[0]) for cls, found in takers.items() if len(found) == 1}

    def shape(value: Any) -> Any:
        cls = type(value)
        if cls in _SIMPLE:  # its class, when one it may be; else the value decides
            return cls if cls in simple else (cls, value)
        if cls is dict:
            kind = value.get("type")
            member = members.get(kind) if type(kind) is str else None
            if member is not None:
                return member[0], member[1](value)
        taker = sole.get(cls)
        if taker is None:
            raise Uncacheable
        return taker(value)

    return shape


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
        plain = all(map(_is_property_info, field.metadata))
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
