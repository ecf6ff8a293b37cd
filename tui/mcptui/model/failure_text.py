"""Say in one line why something failed, from under exception groups and cause chains.

anyio wraps the real error of an MCP call in ExceptionGroups, and httpx2 re-raises transport
errors `from None`: the message a user needs (ConnectionRefusedError, a missing structured
content, a pydantic error on a content block) sits at the bottom. The MCP client and live runs
describe failures with the same functions.
"""

from __future__ import annotations

from typing import Any

import pydantic


def unwrap(exc: BaseException) -> BaseException:
    """The innermost cause, through exception groups and explicit `__cause__` links."""
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = _first_real(exc)
        elif exc.__cause__ is not None:
            exc = exc.__cause__
        else:
            break
    return exc


def _first_real(group: BaseExceptionGroup[Any]) -> BaseException:
    """The first ordinary sub-exception: cancellations (BaseExceptions) are side effects."""
    for sub in group.exceptions:
        if isinstance(sub, Exception):
            return sub
    return group.exceptions[0]


def ungroup(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = _first_real(exc)
    return exc


def root_cause(exc: BaseException) -> BaseException:
    """The bottom of the cause/context chain (where e.g. ConnectionRefusedError hides).

    Suppressed contexts count too: httpx re-raises its transport errors `from None`.
    """
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        nxt = exc.__cause__ or exc.__context__
        if nxt is None:
            break
        exc = ungroup(nxt)
    return exc


def _one(exc: BaseException) -> str:
    name = type(exc).__name__
    if isinstance(exc, pydantic.ValidationError):
        return f"{name}: {_summarize_validation(exc)}"
    text = _first_line(exc)
    return f"{name}: {text}" if text else name


def _first_line(exc: BaseException) -> str:
    """The headline: httpx and jsonschema add lines of links and schema dumps after it."""
    for line in str(exc).splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def _summarize_validation(exc: pydantic.ValidationError) -> str:
    """One line instead of one error per union member and field."""
    count = exc.error_count()
    head = f"{count} validation error{'s' if count != 1 else ''} for {exc.title}"
    errors = exc.errors(include_url=False)
    if not errors:
        return head
    # A wrong block type fails every union member; its "type" error says what was sent.
    first = next((e for e in errors if e["loc"] and e["loc"][-1] == "type"), errors[0])
    loc = ".".join(str(part) for part in first["loc"])
    given = repr(first.get("input"))
    if len(given) > 60:
        given = given[:57] + "..."
    return f"{head}: {loc}: {first['msg']} (input {given})"


def describe_exception(exc: BaseException) -> str:
    """ "ConnectError: All connection attempts failed" style, for the real error inside groups.

    When the bottom of its cause chain says something new (say, ConnectionRefusedError under
    httpx's ConnectError), that is added in parentheses.
    """
    real = ungroup(exc)
    text = _one(real)
    root = root_cause(real)
    if root is not real:
        detail = _first_line(root)
        if detail and detail not in text:
            text += f" ({_one(root)})"
    return text
