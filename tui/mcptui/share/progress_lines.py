"""Progress lines for `--no-tui` runs: one line per event that changes what a user knows.

Deltas are not printed one by one (a message can have hundreds); everything else is, with its
arrival time, so a CI log shows the run as it happened. Text from the network goes through
`visible()` and `rich.text.Text`, never markup.
"""

from __future__ import annotations

from rich.console import Console
from rich.control import strip_control_codes
from rich.text import Text

from mcptui.model.errors import describe_error
from mcptui.model.events import Event, is_wire_note
from mcptui.model.textsafe import one_line
from mcptui.share.status_marks import WIRE_PREFIX, note_text, wire_message

QUIET_SUFFIXES = (".delta",)


class ProgressPrinter:
    """Call with each timeline entry as it arrives."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.plain = console.color_system is None or console.no_color
        """No colour (not a terminal: a CI log, a file): each line is its text, written as
        Rich would write it. Rich's `print` costs 0.2-0.3 ms a line (it asks whether the file
        is a terminal and its size each time): the tap's recorder printed two lines a
        `tools/call`, a third of its CPU, on the core the relay and the server share."""

    def __call__(self, event: Event) -> None:
        if event.lite is not None:
            return  # a text delta read fast (most of a stream): never printed
        if self.plain:
            plain = plain_progress_line(event)
            if plain is not None:
                file = self.console.file
                file.write(plain + "\n")
                file.flush()  # as Rich does: a log shows each line as it happens
        elif (line := progress_line(event)) is not None:
            self.console.print(line, soft_wrap=True)


def plain_progress_line(event: Event) -> str | None:
    """`progress_line(event).plain`; a tap's message (`MCP → tools/call search`) spelled at
    once: building its styled `Text` to take the text back was a fifth of the tap's recorder's
    CPU, two lines a `tools/call`."""
    if event.is_note and is_wire_note(event.raw):
        message = wire_message(event.raw, MESSAGE_LIMIT)
        return strip_control_codes(_stamp(event) + WIRE_PREFIX + message)
    line = progress_line(event)
    return None if line is None else line.plain


MESSAGE_LIMIT = 300
"""Characters of a note's message a progress line shows."""


def _stamp(event: Event) -> str:
    return f"{event.t:7.3f}s " if event.t is not None else "         "


def progress_line(event: Event) -> Text | None:
    t = _stamp(event)
    if event.is_note and is_wire_note(event.raw):
        return Text.assemble((t, "dim"), note_text(event, MESSAGE_LIMIT))
    if event.is_note:
        level = str(event.raw.get("level", "info"))
        style = {"error": "bold red", "warning": "yellow"}.get(level, "cyan")
        return Text.assemble(
            (t, "dim"),
            (f"! {event.note_kind}: ", style),
            one_line(str(event.raw.get("message", "")), MESSAGE_LIMIT),
        )
    kind = event.type
    if kind.endswith(QUIET_SUFFIXES):
        return None
    raw = event.raw
    text = Text.assemble((t, "dim"), (one_line(kind, 80), "bold" if "failed" in kind else ""))
    item = raw.get("item")
    response = raw.get("response")
    if isinstance(item, dict):
        name = item.get("name") or item.get("server_label") or ""
        text.append(f"  {one_line(str(item.get('type', '?')), 40)} {one_line(str(name), 60)}")
        if item.get("error"):
            text.append(f"  error: {one_line(describe_error(item['error']), 200)}", "red")
    elif isinstance(response, dict):
        text.append(
            f"  {one_line(str(response.get('id', '')), 80)} "
            f"{one_line(str(response.get('status', '')), 20)}"
        )
        if response.get("error"):
            text.append(f"  error: {one_line(describe_error(response['error']), 200)}", "red")
    elif kind == "error":
        detail = raw.get("message") or raw.get("error")
        text.append(f"  {one_line(describe_error(detail), 200)}", "red")
    if "failed" in kind:
        text.stylize("red")
    return text
