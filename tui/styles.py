"""Colours and marks for statuses, shared by `inspect` output and the app (Rich only)."""

from __future__ import annotations

from rich.text import Text

STATUS_STYLE = {
    "completed": "green",
    "failed": "bold red",
    "incomplete": "yellow",
    "cancelled": "yellow",
    "in_progress": "cyan",
    "queued": "cyan",
}
STATUS_MARK = {"completed": "✓", "failed": "✗", "incomplete": "!", "cancelled": "!",
               "queued": "…", "in_progress": "…"}
ERROR_STYLE = "bold red"
FINDING_MARK = {"error": ("✗", "bold red"), "warning": ("!", "yellow"), "info": ("i", "blue")}
"""Mark and style of a finding by severity, in `inspect` and the app's findings list."""


def status_text(status: str | None) -> Text:
    status = status or "unknown"
    return Text(status, style=STATUS_STYLE.get(status, "white"))


def seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}s"
