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


def status_text(status: str | None) -> Text:
    status = status or "unknown"
    return Text(status, style=STATUS_STYLE.get(status, "white"))


def seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}s"
