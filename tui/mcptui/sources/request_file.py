"""Read a Responses request body from a file, with messages a user can act on.

`mcptui run` must explain a bad request file in one line (missing, not JSON with the line and
column, not an object, no model or input, a variable that is not set) instead of a traceback
or an HTTP 400. String values may use `${NAME}` and `${NAME:-default}`, expanded from the
environment, so MCP tokens and URLs stay out of the JSON.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcptui.io.reading import read_source
from mcptui.model.jsonsafe import loads

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class RequestFileError(ValueError):
    """The request file cannot be used; the message says why and where."""


def load_request(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RequestFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RequestFileError(f"{path}: is a directory, not a request file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestFileError(f"{path}: cannot read it ({exc})") from None
    return parse_request(text, path)


@dataclass(frozen=True, slots=True)
class RequestOrDump:
    """A file read once that may be a request body (`run`'s) or anything `inspect` reads:
    `probe` and `export` take either."""

    source: str
    """The path as given, `<stdin>` for `-`."""
    data: bytes
    text: str
    whole: Any
    """The text as one JSON value, or None when it is not one (JSON lines, SSE, a paste)."""

    @property
    def is_request(self) -> bool:
        return looks_like_request(self.whole)


def read_request_or_dump(path: str, max_bytes: int, what: str) -> RequestOrDump:
    """Raises `InputError` (missing, a folder, too big, a silent pipe) with its message."""
    data = read_source(path, max_bytes, what=what)
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        whole = loads(text)
    except (ValueError, RecursionError):
        whole = None
    return RequestOrDump("<stdin>" if path == "-" else path, data, text, whole)


def looks_like_request(value: Any) -> bool:
    """A request body rather than a stream dump: `mcptui probe` takes either. Events have a
    `type`, a Response object has `object: "response"` or `output`; a request has neither."""
    return (
        isinstance(value, dict)
        and "type" not in value
        and "output" not in value
        and value.get("object") != "response"
        and any(key in value for key in ("model", "input", "tools", "previous_response_id"))
    )


def parse_request(text: str, path: str | Path) -> dict[str, Any]:
    """A request body from text already read (`path` names it in messages)."""
    text = text.removeprefix("\ufeff")
    try:
        request = loads(text)
    except json.JSONDecodeError as exc:
        raise RequestFileError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(request, dict):
        raise RequestFileError(
            f"{path}: a request must be a JSON object (a Responses API "
            f"request body), not {type(request).__name__}"
        )
    try:
        request = expand(request, os.environ)
    except KeyError as exc:
        name, where = exc.args
        raise RequestFileError(
            f"{path}: ${{{name}}} is not set (in {where}): export it, or write ${{{name}:-default}}"
        ) from None
    if not request.get("model"):
        raise RequestFileError(f'{path}: the request has no "model"')
    if request.get("input") in (None, "", []) and not request.get("previous_response_id"):
        raise RequestFileError(f'{path}: the request has no "input"')
    return request


def streams(request: dict[str, Any]) -> bool:
    """Whether the run streams: always, except a background run that asked not to (polled)."""
    return not (request.get("background") and request.get("stream") is False)


def expand(value: Any, env: Mapping[str, str], where: str = "") -> Any:
    """`value` with `${NAME}` / `${NAME:-default}` in every string replaced from `env`.

    A variable that is not set and has no default raises KeyError(name, where it was)."""
    if isinstance(value, dict):
        return {
            key: expand(item, env, f"{where}.{key}" if where else str(key))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [expand(item, env, f"{where}[{index}]") for index, item in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value

    def substitute(found: re.Match[str]) -> str:
        name, default = found.group(1), found.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise KeyError(name, where or "the request")

    return VARIABLE.sub(substitute, value)
