"""Small modal questions: a one-line answer (a path to save to or open), and a yes/no."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{ width: 80; max-width: 100%; height: auto; border: round $accent;
                    padding: 1 2; background: $surface; }}
{name} Label {{ width: 1fr; }}
"""


class PromptScreen(ModalScreen[str | None]):
    """Answered with Enter, dismissed with Esc."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel")]
    DEFAULT_CSS = DIALOG_CSS.format(name="PromptScreen")
    AUTO_FOCUS = "#answer"
    """Focus by selector, not a query in on_mount: a prompt opened while the app is quitting
    may never be composed."""

    def __init__(self, question: str, default: str) -> None:
        super().__init__()
        self.question = question
        self.default = default
        self._replaced = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.question))
            yield Input(value=self.default, id="answer")

    def on_key(self, event: events.Key) -> None:
        """Keys typed (or pasted) right after `s` / `o` arrive before the box has focus and
        would be lost, or taken as commands (`q` quits): they are the answer's text. The box
        keeps every key sent to it, so only those early ones reach the screen."""
        if not (event.is_printable and event.character):
            return
        event.stop()
        event.prevent_default()
        answer = self.query_one("#answer", Input)
        if not self._replaced:  # as typing over the selected default does
            self._replaced = True
            answer.value = ""
        answer.insert_text_at_cursor(event.character)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: `y` says yes, `n` or Esc says no (Enter does nothing, so a second
    Enter after typing a path cannot overwrite a file by accident)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="yes"),
        Binding("n,escape", "answer(False)", "No", id="no"),
    ]
    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmScreen")

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.question))
            yield Label(Text("y: yes   n / Esc: no", "dim"))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
