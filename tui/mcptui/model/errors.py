"""Turn the many shapes of an error (protocol.md §2) into one line a person can read.

Errors arrive as plain strings (older streams), as `{"type", "code", "message"}` objects, as
`mcp_tool_execution_error` objects carrying content blocks, as nested `{"error": {...}}` events
or flat `error` events. Parsing is lenient: an unknown shape is shown as compact JSON.
"""

from __future__ import annotations

import json
from typing import Any


def describe_error(error: Any) -> str:
    """One line for an error of any shape, e.g. `http_error 424: unhandled errors …`."""
    if error is None:
        return ""
    if isinstance(error, str):
        return error
    if not isinstance(error, dict):
        return json.dumps(error, ensure_ascii=False)
    if isinstance(error.get("error"), dict):  # nested error event or HTTP error body
        return describe_error(error["error"])
    kind = error.get("type") if isinstance(error.get("type"), str) else None
    if kind == "error":  # a flat `error` event: the type is the event's, not the error's
        kind = None
    code = error.get("code")
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = _content_text(error.get("content"))
    parts: list[str] = []
    if kind:
        parts.append(kind)
    if message:
        if code is not None and not message.startswith(str(code)) and str(code) != kind:
            parts.append(f"{code}: {message}")
        else:
            parts.append(message)
    elif code is not None:
        parts.append(str(code))
    if not parts:
        return json.dumps(error, ensure_ascii=False)
    return " ".join(parts)


def _content_text(content: Any) -> str:
    """The text of MCP content blocks, as `mcp_tool_execution_error` carries them."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if isinstance(block, dict):
            text = block.get("text")
            texts.append(text if isinstance(text, str) else json.dumps(block, ensure_ascii=False))
        else:
            texts.append(str(block))
    return " ".join(texts)
