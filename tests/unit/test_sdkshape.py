"""The shape key that lets `check_stream` validate an item-bearing event once per shape.

What matters to a user: an event is judged as pydantic judges it, cached or not. So the test
is that two values with the same `shape_of` validate alike, over every object-valued field of
the real streams, each changed leaf by leaf in ways that keep or change its validity.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support import FIXTURES, read_chunks
from mcptui.model.sdkshape import Uncacheable, shape_of
from mcptui.model.sdktypes import event_models
from pydantic import ValidationError


def valid(raw: dict[str, Any]) -> bool:
    try:
        event_models()[raw["type"]].model_validate(raw, strict=True)
    except ValidationError:
        return False
    return True


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from leaves(item, (*path, n))
    else:
        yield path


def changed(raw: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    out = copy.deepcopy(raw)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return out


def variants(value: Any) -> list[Any]:
    """Other values for a leaf: of the same class (text, numbers), and of others."""
    if isinstance(value, bool):
        return [not value, 1, "true"]
    if isinstance(value, int):
        return [value + 1, float(value), str(value), None]
    if isinstance(value, float):
        return [value * 2, int(value), None]
    if isinstance(value, str):
        return [value + " more", value.upper(), "", "completed", "message", 7, None]
    return ["text", 0, [], {}]


def object_fields(raw: dict[str, Any]) -> list[str]:
    return [key for key, value in raw.items() if isinstance(value, dict | list) and value]


@pytest.mark.parametrize("name", FIXTURES)
def test_values_of_one_shape_validate_alike(upstream_dir: Path, name: str):
    model_of = event_models()
    compared = 0
    for raw in read_chunks(upstream_dir / name):
        model = model_of.get(raw.get("type"))  # type: ignore[arg-type]
        if model is None:
            continue
        for key in object_fields(raw):
            annotation = model.model_fields[key].annotation if key in model.model_fields else None
            if annotation is None:
                continue
            try:
                base = shape_of(raw[key], annotation)
            except Uncacheable:
                continue
            for path in leaves(raw[key]):
                for new in variants(_at(raw[key], path)):
                    other = changed(raw, (key, *path), new)
                    try:
                        same = shape_of(other[key], annotation) == base
                    except Uncacheable:
                        continue
                    if same:
                        compared += 1
                        assert valid(other) == valid(raw), (name, key, path, new)
    assert compared or name.endswith(("error.1.chunks.txt", "failed-only.1.chunks.txt"))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def test_message_items_that_differ_in_text_share_a_shape_and_a_status_does_not():
    annotation = event_models()["response.output_item.done"].model_fields["item"].annotation
    item = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hello", "annotations": [], "logprobs": []}],
    }
    other = changed({"item": item}, ("item", "content", 0, "text"), "a much longer answer")
    assert shape_of(other["item"], annotation) == shape_of(item, annotation)
    for path, new in (
        (("item", "status"), "done"),
        (("item", "role"), "user"),
        (("item", "content", 0, "text"), 7),
        (("item", "id"), None),
    ):
        other = changed({"item": item}, path, new)
        assert shape_of(other["item"], annotation) != shape_of(item, annotation), path


def test_a_constrained_type_is_never_vouched_for():
    """A pydantic constraint (a future SDK's `max_length`, say) depends on the value: such a
    value is validated whole every time, nested or not."""
    from typing import Annotated

    from pydantic import BaseModel, Field

    class Limited(BaseModel):
        name: Annotated[str, Field(max_length=3)]

    for value, annotation in (
        (["abc"], list[Annotated[str, Field(max_length=3)]]),
        ({"name": "abc"}, Limited),
    ):
        with pytest.raises(Uncacheable):
            shape_of(value, annotation)
