"""The installed openai SDK's stream event models, looked up by their `type` literal.

The SDK parses events leniently (an unknown `type` becomes the first union member that fits),
so anything that wants to know whether an event really conforms validates the raw JSON itself.
`TypeAdapter(ResponseStreamEvent)` would try every union member; a dict from `type` to model is
both exact and fast.
"""

from __future__ import annotations

import typing
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel


@cache
def event_models() -> dict[str, type[BaseModel]]:
    """The SDK's event model for each `type` literal of the ResponseStreamEvent union."""
    from openai.types.responses import ResponseStreamEvent

    union = typing.get_args(ResponseStreamEvent)[0]  # Annotated[Union[...], discriminator]
    models: dict[str, type[BaseModel]] = {}
    for model in typing.get_args(union):
        for literal in typing.get_args(model.model_fields["type"].annotation):
            models[literal] = model
    return models


def validation_errors(raw: dict[str, Any]) -> list[str]:
    """Why `raw` is not a valid event for the installed SDK (empty when it is).

    Strict about the type name and the declared fields; extra fields such as `obfuscation`
    are allowed, as the SDK's models allow them.
    """
    from pydantic import ValidationError

    kind = raw.get("type")
    model = event_models().get(kind) if isinstance(kind, str) else None
    if model is None:
        return [f"unknown event type {kind!r}"]
    try:
        model.model_validate(raw, strict=False)
    except ValidationError as exc:
        return [
            f"{'.'.join(str(part) for part in error['loc']) or '(event)'}: {error['msg']}"
            for error in exc.errors()
        ]
    return []


def response_errors(response: dict[str, Any]) -> list[str]:
    """Why a Response object does not validate against the SDK's `Response` model."""
    from openai.types.responses import Response
    from pydantic import ValidationError

    try:
        Response.model_validate(response)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return []
