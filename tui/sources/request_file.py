"""Read a Responses request body from a file, with messages a user can act on.

`mcptui run` must explain a bad request file in one line (missing, not JSON with the line and
column, not an object, no model or input) instead of a traceback or an HTTP 400.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


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
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestFileError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                               f"{exc.msg}") from None
    if not isinstance(request, dict):
        raise RequestFileError(f"{path}: a request must be a JSON object (a Responses API "
                               f"request body), not {type(request).__name__}")
    if not request.get("model"):
        raise RequestFileError(f'{path}: the request has no "model"')
    if request.get("input") in (None, "", []) and not request.get("previous_response_id"):
        raise RequestFileError(f'{path}: the request has no "input"')
    return request


def streams(request: dict[str, Any]) -> bool:
    """Whether the run streams: always, except a background run that asked not to (polled)."""
    return not (request.get("background") and request.get("stream") is False)
