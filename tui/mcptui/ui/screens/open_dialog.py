"""The open dialog (`o`): a path with completion, and the files opened lately.

Typing shows the path's completion greyed after the cursor (Textual's suggester; → takes it).
Tab completes as a shell does: as far as every candidate agrees, and lists the candidates
when several remain (mcptui/io/path_completion.py). Below, the recent files (io/recent.py),
the newest first; one that has gone is greyed and cannot be chosen. ↓ moves into the list,
Enter opens the path typed or the file chosen, Esc cancels.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
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


def only_completion(typed: str) -> str | None:
    """The one path `typed` can become, if there is exactly one."""
    if not typed:
        return None
    found = candidates(typed)
    return found[0] if len(found) == 1 else None


class PathSuggester(Suggester):
    """The greyed completion after the cursor: what Tab would make of the path."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # the folder may change

    async def get_suggestion(self, value: str) -> str | None:
        return only_completion(value)


class PathInput(Input):
    """A path box whose Tab completes the path (io/path_completion.py).

    Tab is taken in the box's own key handler, not by a binding: Textual checks a binding
    once the key has bubbled up to the app, while the box goes on with the keys after it, so
    `ru` Tab `a` typed at once became `rua`, and a priority binding acts as the key arrives,
    before the keys typed just before it reach the box."""

    class Completed(Message):
        """A Tab left these names to choose from (none: the path is whole, or matches nothing)."""

        def __init__(self, names: tuple[str, ...]) -> None:
            super().__init__()
            self.names = names

    async def _on_key(self, event: events.Key) -> None:
        """(Textual then runs Input's own `_on_key`, unless the default is prevented.)"""
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            self.complete()

    def complete(self) -> None:
        done = complete(self.value)
        if done.text != self.value:
            self.value = done.text
            self.cursor_position = len(done.text)
        self.post_message(self.Completed(done.names))


class OpenScreen(PromptScreen):
    """Answered with the path typed (Enter) or a recent file (Enter on it); Esc: None."""

    BINDINGS = [Binding("down", "recent", "Recent files", id="recent", show=False)]
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
            yield PathInput(value=self.default, id="answer", suggester=PathSuggester())
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

    def on_path_input_completed(self, event: PathInput.Completed) -> None:
        """The candidates left after a Tab, under the box (hidden when none is)."""
        shown = self.query_one("#candidates", Label)
        shown.display = bool(event.names)
        if event.names:
            names = "  ".join(event.names[:SHOWN_NAMES])
            more = len(event.names) - SHOWN_NAMES
            shown.update(Text(names + (f"  … and {more} more" if more > 0 else "")))

    def action_recent(self) -> None:
        """↓ from the box: into the list, at once (`Screen.set_focus`, not `focus()`, which
        moves it a moment later): keys typed in the same burst (a second ↓, Enter) then
        reach the list, not the box (seen in tmux under load: the path typed opened instead
        of the recent file chosen)."""
        found = self.query("#recent")
        if not found:
            return
        recent = found.first(OptionList)
        self.set_focus(recent)
        recent.highlighted = 0

    def on_key(self, event: events.Key) -> None:
        """Keys the box does not have: typing while the list has the focus types into the
        path (PromptScreen.on_key runs next, as Textual calls each class's handler), and a
        Tab sent right after `o`, before the box had the focus, completes what came before
        it (handled here, in order: a binding would act after the keys that follow it)."""
        answer = self.query_one("#answer", PathInput)
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            answer.focus()
            answer.complete()
        elif event.is_printable and self.focused is not None and self.focused.id == "recent":
            answer.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter opens the path as shown: with its greyed completion when what is typed names
        nothing (`runs/alpha-r` shown as `runs/alpha-run.jsonl` opens that file)."""
        typed = event.value.strip()
        suggestion = only_completion(typed)
        if (
            suggestion
            and not suggestion.endswith(os.sep)  # a folder is no file to open
            and not os.path.lexists(os.path.expanduser(typed))
        ):
            event.stop()
            event.prevent_default()  # (PromptScreen's own handler would answer `typed`)
            self.dismiss(suggestion)

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
