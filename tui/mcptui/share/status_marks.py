"""Colours and marks for statuses, shared by `inspect` output and the app (Rich only)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from mcptui.model.events import Event, is_wire_note
from mcptui.model.textsafe import one_line, visible

STATUS_STYLE = {
    "completed": "green",
    "failed": "bold red",
    "incomplete": "yellow",
    "cancelled": "yellow",
    "in_progress": "cyan",
    "queued": "cyan",
    "interrupted": "yellow",
    "awaiting approval": "bold magenta",
    "approved": "green",
    "denied": "yellow",
}
STATUS_MARK = {
    "completed": "✓",
    "failed": "✗",
    "incomplete": "!",
    "cancelled": "!",
    "queued": "…",
    "in_progress": "…",
    "interrupted": "!",
    "awaiting approval": "?",
    "approved": "✓",
    "denied": "!",
}
ERROR_STYLE = "bold red"
FINDING_MARK = {"error": ("✗", "bold red"), "warning": ("!", "yellow"), "info": ("i", "blue")}
"""Mark and style of a finding by severity, in `inspect` and the app's findings list."""


def status_text(status: str | None, reason: str | None = None) -> Text:
    """`completed` in its colour; with a reason, `interrupted (response cancelled)`."""
    status = status or "unknown"
    text = Text(visible(status), style=STATUS_STYLE.get(status, "white"))
    if reason:
        text.append(f" ({one_line(reason, 120)})", STATUS_STYLE.get(status, "white"))
    return text


def seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}s"


WIRE_PREFIX = "MCP "


def wire_message(raw: dict[str, Any], limit: int) -> str:
    """What a message a tap saw shows after `WIRE_PREFIX`: `→ tools/call broken_schema`."""
    return one_line(str(raw.get("message", "")), limit)


def note_text(event: Event, limit: int) -> Text:
    """A recording's note: `✗ note http_error: …` for errors, `⚠` warnings, `ℹ` the rest;
    a message a tap saw on the MCP wire as itself (`MCP → tools/call broken_schema`)."""
    level = event.raw.get("level")
    if is_wire_note(event.raw):
        rpc = event.raw.get("jsonrpc")
        refused = level == "warning" or (isinstance(rpc, dict) and "error" in rpc)
        style = (
            "yellow" if refused else "green" if event.raw.get("direction") == "received" else "cyan"
        )
        label = Text(WIRE_PREFIX, "dim")
        label.append(wire_message(event.raw, limit), style)
        return label
    mark = "✗" if level == "error" else "⚠" if level == "warning" else "ℹ"
    label = Text(
        f"{mark} note {visible(str(event.note_kind))}: ",
        style=ERROR_STYLE if level == "error" else "yellow",
    )
    label.append(one_line(str(event.raw.get("message", "")), limit))
    return label
