"""W3C trace context a caller sent: a `traceparent` (and `tracestate`) in HTTP headers, or in
an MCP request's `params._meta` (the keys SEP-414 and the OpenTelemetry MCP conventions name).

The proxy keeps an app's `traceparent` so mcptui's spans join the app's trace; the tap keeps
what OpenAI's client sent an MCP server, so a call's span can link to the server's own spans.
Only well-formed values are kept: a trace id and a span id are not secrets, but a malformed
header could be anything, so it is dropped rather than recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

TRACEPARENT = re.compile(r"^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$")
"""A W3C `traceparent` (version, trace id, parent id, flags; all-zero ids are invalid)."""
TRACESTATE = re.compile(r"^[\x20-\x2b\x2d-\x3c\x3e-\x7e]*=[\x20-\x2b\x2d-\x3c\x3e-\x7e]*(,.*)?$")
"""A W3C `tracestate`: `key=value` list members (checked loosely; kept at most 512 chars)."""
MAX_TRACESTATE = 512


def valid_traceparent(value: Any) -> str | None:
    """`value`, lower-cased and trimmed, when it is a well-formed traceparent; else None."""
    if not isinstance(value, str):
        return None
    value = value.strip().lower()
    return value if TRACEPARENT.match(value) else None


def carried(carrier: Mapping[str, Any], source: str) -> dict[str, str] | None:
    """The trace context in a carrier (lower-cased headers, or `_meta`): `traceparent`,
    `tracestate` when well-formed, and `carrier` (where it came from); None without a valid
    traceparent."""
    parent = valid_traceparent(carrier.get("traceparent"))
    if parent is None:
        return None
    found = {"traceparent": parent, "carrier": source}
    state = carrier.get("tracestate")
    if isinstance(state, str) and len(state) <= MAX_TRACESTATE and TRACESTATE.match(state.strip()):
        found["tracestate"] = state.strip()
    return found


def in_message(message: Mapping[str, Any]) -> dict[str, str] | None:
    """The trace context in a JSON-RPC request's `params._meta`, if any."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return carried(meta, "_meta") if isinstance(meta, Mapping) else None


def of_note(raw: Mapping[str, Any]) -> dict[str, str] | None:
    """What a tap's `mcp` note of a request says the caller sent: the context it recorded
    (`trace_context`), else one in the message's `_meta` (a tap from before it recorded it)."""
    kept = raw.get("trace_context")
    if isinstance(kept, Mapping) and valid_traceparent(kept.get("traceparent")):
        return {str(k): str(v) for k, v in kept.items()}
    message = raw.get("jsonrpc")
    return in_message(message) if isinstance(message, Mapping) else None
