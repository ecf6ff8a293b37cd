"""Redaction: the one function every writer and exporter passes data through.

Requests carry API keys and MCP credentials (`tools[].headers`, `tools[].authorization`), and
recordings, reports, logs and screenshots get shared in forum posts. Names and structure stay so
a reader can still see *that* a header was sent; values become `<redacted>`.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "<redacted>"

CREDENTIAL_KEYS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "api_key",
        "apikey",
        "openai-api-key",
        "cookie",
        "set-cookie",
        "x-auth-token",
        "access_token",
        "refresh_token",
        "client_secret",
        "password",
        "secret",
    }
)
"""Keys whose values are credentials wherever they appear (compared case-insensitively)."""

_API_KEY = re.compile(r"(?<![A-Za-z0-9_\-])sk-[A-Za-z0-9_\-]{10,}")
# "Bearer"/"Basic" as headers spell them take any token; lower-case "bearer" only a token with
# a digit in it ("bearer instruments" is prose).
_BEARER = re.compile(
    r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{12,}"
    r"|\b(bearer)\s+(?=[A-Za-z._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{12,}"
)


def redact(value: Any) -> Any:
    """A copy of `value` with every credential replaced by `<redacted>`.

    Covers credential-named keys at any depth, every value under an MCP tool's `headers`, the
    tool's `authorization`, and API-key-like or bearer strings anywhere.
    """
    return _redact(value, in_headers=False)


def redact_text(text: str) -> str:
    """Redact key-like and bearer strings in free text (log lines, error messages)."""
    if "sk-" in text:
        text = _API_KEY.sub(REDACTED, text)
    if "earer" in text or "Basic" in text:
        text = _BEARER.sub(lambda m: f"{m.group(1) or m.group(2)} {REDACTED}", text)
    return text


def redact_headers(headers: Any) -> dict[str, str]:
    """HTTP headers with credential values hidden, e.g. for a recording's response headers."""
    return {str(k): (REDACTED if str(k).lower() in CREDENTIAL_KEYS else redact_text(str(v)))
            for k, v in dict(headers).items()}


def needs_redaction(serialized: str) -> bool:
    """Cheap pre-check on serialized JSON: could `redact` change anything?

    Lets a writer skip the deep copy on the hot path: most stream events hold no credentials.
    """
    lowered = serialized.lower()
    return (
        "sk-" in serialized
        or "earer" in lowered
        or "basic " in lowered
        or '"headers"' in lowered
        or any(f'"{key}"' in lowered for key in CREDENTIAL_KEYS)
    )


def _redact(value: Any, *, in_headers: bool) -> Any:
    if isinstance(value, dict):
        # An MCP tool's headers are all credentials as far as we can know; other `headers`
        # (HTTP response headers) keep their harmless values such as x-request-id.
        is_tool = value.get("type") == "mcp" or "server_url" in value
        out: dict[str, Any] = {}
        for key, item in value.items():
            lowered = key.lower() if isinstance(key, str) else key
            if in_headers:
                out[key] = _redact(item, in_headers=True) if isinstance(item, dict | list) else (
                    None if item is None else REDACTED)
            elif lowered in CREDENTIAL_KEYS:
                out[key] = _redact_leaf(item)
            elif lowered == "headers" and is_tool:
                out[key] = _redact(item, in_headers=True)
            else:
                out[key] = _redact(item, in_headers=False)
        return out
    if isinstance(value, list):
        return [_redact(item, in_headers=in_headers) for item in value]
    if isinstance(value, str):
        return REDACTED if in_headers else redact_text(value)
    return value


def _redact_leaf(value: Any) -> Any:
    """Hide a credential's value (None stays None: nothing was sent).

    A structured value under a credential-like name (an input schema's `api_key` property,
    say) is not itself a credential: it is searched like any other value.
    """
    if value is None:
        return None
    if isinstance(value, dict | list):
        return _redact(value, in_headers=False)
    return REDACTED
