"""`--no-tui` progress lines: written to a file or a pipe (no colour), each line is what Rich's
`print` would have written, hostile text included (ProgressPrinter's plain path skips Rich)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from mcptui.model.events import Event, note
from mcptui.share.progress_lines import ProgressPrinter
from rich.console import Console

HOSTILE = "tab\there [bold]not markup[/] \x1b[31mred\x1b[0m cr\rline\nnext \u202e rtl é 表"


def events() -> list[Event]:
    def event(raw: dict[str, Any], t: float | None = 1.25) -> Event:
        return Event(raw, t=t)

    return [
        event({"type": "response.created", "response": {"id": "resp_1", "status": "queued"}}),
        event(
            {"type": "response.output_item.added", "item": {"type": "mcp_call", "name": HOSTILE}}
        ),
        event(
            {
                "type": "response.mcp_call.failed",
                "item": {"type": "mcp_call", "name": "search", "error": {"message": HOSTILE}},
            },
            None,
        ),
        event({"type": "error", "message": HOSTILE}),
        event({"type": "response.output_text.delta", "delta": "never printed"}),
        note("request", f"sent {HOSTILE}", t=2.5, level="warning"),
        note("proxy", HOSTILE, t=3.0, level="error"),
    ]


def printed(console: Console, plain: bool) -> str:
    printer = ProgressPrinter(console)
    assert printer.plain is plain
    for event in events():
        printer(event)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


@pytest.mark.parametrize("width", [40, 200])
def test_the_plain_path_writes_what_rich_would(width: int):
    fast = printed(Console(file=io.StringIO(), width=width, highlight=False), plain=True)
    rich = Console(file=io.StringIO(), width=width, highlight=False)
    for event in events():
        line = ProgressPrinter.__new__(ProgressPrinter)
        line.console, line.plain = rich, False
        line(event)
    assert fast == rich.file.getvalue()  # type: ignore[attr-defined]
    assert fast.count("\n") == 6  # one line an event but the delta
    assert "\x1b" not in fast and "[bold]" in fast  # no escape reaches the log; markup is text


def test_a_terminal_gets_rich_colour():
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard")
    text = printed(console, plain=False)
    assert "\x1b[" in text  # Rich's own styles
    assert "\x1b[31mred" not in text  # never the content's
