"""A Responses request being edited, checked as it is typed: what would make it fail to send
or be refused, said with where.

Three kinds of problem, worst first: text that is not JSON (with its line and column), a value
of the wrong type for the openai SDK's `ResponseCreateParams` (with its JSON path: a `"true"`
where `background` takes a boolean, an `mcp` tool's `require_approval` of an unknown word), and
top-level keys the SDK does not know (a warning: they go as `extra_body`, and a newer API may
take them; a misspelt `backgroud` is the usual case). The types are the installed SDK's own,
checked strictly (pydantic would otherwise take `"yes"` for `true`), so the check follows the
SDK the user has. `${NAME}` placeholders are strings like any other here: what they stand for
is only known when the request is sent.
"""

from __future__ import annotations

import collections.abc
import functools
import json
import typing
from dataclasses import dataclass
from typing import Any

from mcptui.model.jsonsafe import loads

EXTRA_KEYS = frozenset({"stream"})
"""Top-level keys of a request that the SDK's base params leave to its two variants."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the request."""

    message: str
    path: str = ""
    """The JSON path (`tools[0].require_approval`), "" for the whole text."""
    line: int | None = None
    column: int | None = None
    error: bool = True
    """False: a warning (the request can still be sent)."""

    def text(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line is not None else ""
        path = f"{self.path}: " if self.path else ""
        return f"{where}{path}{self.message}"


@dataclass(frozen=True, slots=True)
class RequestCheck:
    """The text's request (None when it is not a JSON object) and its problems."""

    request: dict[str, Any] | None
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.error]

    @property
    def sendable(self) -> bool:
        return self.request is not None and not self.errors


def check_request_text(text: str) -> RequestCheck:
    """The request in `text`, checked (JSON, then the SDK's types, then unknown keys)."""
    try:
        value = loads(text)  # (deeper than 100 levels is refused: every later step recurses)
    except json.JSONDecodeError as exc:
        return RequestCheck(None, (Problem(f"not JSON: {exc.msg}", "", exc.lineno, exc.colno),))
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        return RequestCheck(None, (Problem(f"a request is a JSON object, not {kind}"),))
    return RequestCheck(value, tuple(check_request(value)))


def check_request(request: dict[str, Any]) -> list[Problem]:
    """Problems of a request object: missing model or input, wrong types, unknown keys."""
    problems: list[Problem] = []
    for key in ("model", "input"):
        if key not in request and not request.get("previous_response_id"):
            problems.append(Problem("missing: every request names it", key))
    if "stream" in request and not isinstance(request["stream"], bool):
        problems.append(Problem("should be true or false", "stream"))
    problems += type_problems(request)
    known = known_keys()
    for key in request:
        if key not in known:
            problems.append(
                Problem(
                    "not a field the openai SDK knows: sent as extra_body, which the API may "
                    "refuse (a typo?)",
                    _path((key,)),
                    error=False,
                )
            )
    return problems


@functools.cache
def known_keys() -> frozenset[str]:
    from openai.types.responses import response_create_params

    return frozenset(response_create_params.ResponseCreateParamsBase.__annotations__) | EXTRA_KEYS


@functools.cache
def _adapter() -> Any:
    """The SDK's request type as a pydantic validator (0.05 s to build, once).

    The SDK types `tools` and a few others as `Iterable[...]`, which pydantic checks only as
    something iterates the result: those become lists here, so each tool is checked now."""
    import pydantic
    import typing_extensions
    from openai.types.responses import response_create_params

    hints = typing.get_type_hints(
        response_create_params.ResponseCreateParamsBase, include_extras=True
    )
    fields = {key: _listed(hint) for key, hint in hints.items()}
    make: Any = typing_extensions.TypedDict  # built from the SDK's fields: no literal to check
    checked = make("ResponseCreateParams", fields, total=False)
    return pydantic.TypeAdapter(checked)


def _listed(hint: Any) -> Any:
    """`hint` with each `Iterable[X]` a `list[X]` (through unions and `Required`)."""
    import typing_extensions

    origin = typing.get_origin(hint)
    if origin is collections.abc.Iterable:
        return list[typing.get_args(hint)[0]]  # type: ignore[misc]
    if origin is typing.Union:
        return typing.Union[tuple(_listed(arg) for arg in typing.get_args(hint))]  # noqa: UP007
    if origin in (typing_extensions.Required, typing_extensions.NotRequired):
        return origin[_listed(typing.get_args(hint)[0])]
    return hint


def type_problems(request: dict[str, Any]) -> list[Problem]:
    """Each value the SDK's types reject, once per path.

    A value checked against a union (a tool is one of many tool types) fails once per member.
    Only the member meant is kept (`_chosen`), so an `mcp` tool with a bad `require_approval`
    says that, not also that it lacks a function tool's `name`."""
    import pydantic

    known = known_keys()
    checked = {key: value for key, value in request.items() if key in known - EXTRA_KEYS}
    try:
        _adapter().validate_python(checked, strict=True)
    except pydantic.ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
    else:
        return []
    problems: dict[str, list[str]] = {}
    for where, message in _chosen(checked, [(tuple(e["loc"]), e) for e in errors], ()):
        messages = problems.setdefault(_path(where), [])
        if message not in messages:
            messages.append(message)
    return [Problem(_joined(messages), path) for path, messages in problems.items()]


_Located = tuple[tuple[Any, ...], Any]
"""An error's `loc` still to walk, and the error."""


def _chosen(data: Any, errors: list[_Located], at: tuple[Any, ...]) -> list[tuple[Any, str]]:
    """(data path, message) of the errors left once each union's member is chosen.

    Walking each error's `loc` through `data`: a part that names no place in it names a union
    member. At a union, the member meant is the one whose `type` tag matched (when the value
    has a `type`); else those that got past the value itself (an `input` list is not "not a
    string"), the fewest missing fields first. Members that all failed on the value itself
    are said together ("none of its allowed types")."""
    out: list[tuple[Any, str]] = []
    members: dict[Any, list[_Located]] = {}
    deeper: dict[Any, list[_Located]] = {}
    for loc, error in errors:
        if not loc:
            out.append((at, _message(error)))
            continue
        part, rest = loc[0], loc[1:]
        if _has(data, part):
            deeper.setdefault(part, []).append((rest, error))
        elif error["type"] == "missing" and not rest:
            out.append(((*at, part), _message(error)))
        else:
            members.setdefault(part, []).append((rest, error))
    for part, inner in deeper.items():
        out += _chosen(data[part], inner, (*at, part))
    if not members:
        return out
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        tagged = {
            member: found
            for member, found in members.items()
            if not any(loc[:1] == ("type",) for loc, _ in found)
        }
        if not tagged:
            return [*out, ((*at, "type"), f"no type the SDK knows here is {data['type']!r}")]
        members = tagged
    past = {member: found for member, found in members.items() if any(loc for loc, _ in found)}
    if not past:
        return out + [(at, _message(error)) for found in members.values() for _, error in found]
    best = min(
        past.values(),
        key=lambda found: (
            sum(e["type"] == "missing" and len(loc) == 1 for loc, e in found),
            len(found),
        ),
    )
    return out + _chosen(data, best, at)


def _has(data: Any, part: Any) -> bool:
    if isinstance(data, dict):
        return part in data
    return isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)


def _message(error: Any) -> str:
    if error["type"] == "missing":
        return "missing: this type needs it"
    if error["type"] == "literal_error" and len(str(error["msg"])) > 80:
        return "not one of the values the SDK lists"  # (a model's every name)
    message = str(error["msg"])
    return message[:1].lower() + message[1:]


def _joined(messages: list[str]) -> str:
    if len(messages) == 1:
        return messages[0]
    return "none of its allowed types: " + "; or ".join(messages[:3])


def _path(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out
