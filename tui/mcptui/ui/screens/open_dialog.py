"""The open dialog (`o`): a path with completion, and the files opened lately.

Typing shows the path's completion greyed after the cursor (Textual's suggester; → takes it).
Tab completes as a shell does: as far as every candidate agrees, and lists the candidates
when several remain (mcptui/io/path_completion.py). Below, the recent files (io/recent.py),
the newest first; one that has gone is greyed and cannot be chosen. ↓ moves into the list,
Enter opens the path typed or the file chosen, Esc cancels.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from mcptui.io.path_completion import candidates, complete
from mcptui.io.recent import recent_files
from mcptui.model.textsafe import shown_path
from mcptui.ui.screens.prompt import DIALOG_CSS, PromptScreen

LABEL_WIDTH = 66
"""A recent file's line at most, so that none wraps in the dialog at 80 columns."""
SHOWN_NAMES = 40
"""Candidates listed after a Tab at most (the rest counted): a big folder stays one box."""


class PathSuggester(Suggester):
    """The greyed completion after the cursor: what Tab would make of the path."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # the folder may change

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        found = candidates(value)
        return found[0] if len(found) == 1 else None


class OpenScreen(PromptScreen):
    """Answered with the path typed (Enter) or a recent file (Enter on it); Esc: None."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", priority=True, id="complete"),
        Binding("down", "recent", "Recent files", id="recent", show=False),
    ]
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="OpenScreen")
        + """
    OpenScreen #hint { color: $text-muted; }
    OpenScreen #candidates { color: $text-muted; height: auto; max-height: 8; }
    OpenScreen #recent-title { margin-top: 1; }
    OpenScreen #recent { height: auto; max-height: 12; border: none; padding: 0; }
    """
    )

    def compose(self) -> ComposeResult:
        recent = recent_files()
        with Vertical():
            yield Label(Text(self.question))
            yield Input(value=self.default, id="answer", suggester=PathSuggester())
            yield Label(
                Text("Tab completes · ↓ recent files · Enter opens · Esc cancels"), id="hint"
            )
            yield Label("", id="candidates")
            if recent:
                yield Label(Text("Recent files"), id="recent-title")
                yield OptionList(
                    *(
                        Option(
                            recent_label(item.path, item.exists),
                            id=item.path,
                            disabled=not item.exists,
                        )
                        for item in recent
                    ),
                    id="recent",
                )

    def on_mount(self) -> None:
        self.query_one("#candidates", Label).display = False

    def action_complete(self) -> None:
        """Tab: the path completed as far as it goes, the candidates listed when several."""
        answer = self.query_one("#answer", Input)
        if self.focused is not answer:
            answer.focus()
            return
        done = complete(answer.value)
        if done.text != answer.value:
            answer.value = done.text
            answer.cursor_position = len(done.text)
        shown = self.query_one("#candidates", Label)
        shown.display = bool(done.names)
        if done.names:
            names = "  ".join(done.names[:SHOWN_NAMES])
            more = len(done.names) - SHOWN_NAMES
            shown.update(Text(names + (f"  … and {more} more" if more > 0 else "")))

    def action_recent(self) -> None:
        recent = self.query("#recent")
        if recent:
            recent.first(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """Typing while the list has the focus types into the path (as before it had)."""
        if event.is_printable and self.focused is not None and self.focused.id == "recent":
            self.query_one("#answer", Input).focus()
        # (PromptScreen.on_key runs next, as Textual calls each class's handler: it types it)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)


def recent_label(path: str, exists: bool) -> Text:
    """The file's name first, then its folder dimmed (its start cut, `…`, when long): the
    name is what one looks for; `(gone)` when it is no longer there."""
    folder, _, name = shown_path(path).rpartition("/")
    suffix = "" if exists else "  (gone)"
    name = name if len(name) <= LABEL_WIDTH // 2 else name[: LABEL_WIDTH // 2 - 1] + "…"
    room = LABEL_WIDTH - len(name) - len(suffix) - 2
    folder = folder or "/"
    if len(folder) > room:
        folder = "…" + folder[-(room - 1) :]
    return Text.assemble(name, "  ", (folder, "dim"), suffix)
