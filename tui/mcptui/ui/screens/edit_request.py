"""The request editor (`e`): a response's request as JSON to change and send again.

The text is checked as it is typed (tui/mcptui/model/request_check.py: JSON with line and
column, the openai SDK's types, unknown keys) and the problems are listed under it. Beside it
(under it below 100 columns) the quick toggles (tui/mcptui/model/request_toggles.py): flipping
one rewrites the text. Secrets are `${NAME}` placeholders (tui/mcptui/share/editable_request.py)
whose values never reach this screen's text; they are filled in only when it is sent. Ctrl+S
sends (Ctrl+Enter too, where the terminal tells it apart), Esc closes without sending.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static, TextArea
from textual.widgets.selection_list import Selection

from mcptui.model.request_check import Problem, RequestCheck, check_request_text
from mcptui.model.request_toggles import Toggle, flip, toggles
from mcptui.model.textsafe import visible
from mcptui.share.editable_request import EditableRequest, UnsetVariable, request_to_send
from mcptui.ui.actions import FOCUS_AT_ONCE

NARROW = 100
"""Below this many columns the toggles go under the text."""
MAX_PROBLEMS = 6


class EditRequestScreen(ModalScreen[dict[str, Any] | None]):
    """Dismissed with the request to send (secrets filled in), or None."""

    BINDINGS = [
        Binding("ctrl+s,ctrl+enter", "send", "Send", priority=True, id="send"),
        Binding("escape", "cancel", "Cancel", id="cancel"),
        *FOCUS_AT_ONCE,
    ]
    DEFAULT_CSS = """
    EditRequestScreen { align: center middle; }
    EditRequestScreen > Vertical { width: 100%; height: 100%; background: $surface;
                                   border: round $accent; padding: 0 1; }
    EditRequestScreen #edit-title { height: auto; }
    EditRequestScreen #edit-panes { height: 1fr; }
    EditRequestScreen #edit-text { width: 2fr; height: 1fr; }
    EditRequestScreen #edit-toggles { width: 1fr; height: 1fr; }
    EditRequestScreen.narrow #edit-panes { layout: vertical; }
    EditRequestScreen.narrow #edit-text { width: 1fr; height: 2fr; }
    EditRequestScreen.narrow #edit-toggles { width: 1fr; height: 1fr; }
    EditRequestScreen #edit-problems { height: auto; max-height: 8; }
    EditRequestScreen #edit-keys { height: 1; color: $text-muted; }
    """
    AUTO_FOCUS = "#edit-text"

    def __init__(
        self,
        editable: EditableRequest,
        title: str,
        listed: Mapping[str, Sequence[str]],
        preflight: Callable[[], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.preflight = preflight
        """Asked when Ctrl+S is pressed: why the request cannot be sent now (None: it can);
        the editor then stays open, the edit kept."""
        self.editable = editable
        self.title_text = title
        self.listed = listed
        self.original: dict[str, Any] = json.loads(editable.text)
        """The request edited from, placeholders and all: what a header switched back on
        comes from."""
        self.check: RequestCheck = check_request_text(editable.text)
        self._shown: list[Toggle] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title(), id="edit-title")
            with Horizontal(id="edit-panes"):
                yield TextArea.code_editor(
                    self.editable.text,
                    language="json",
                    id="edit-text",
                    soft_wrap=True,
                    tab_behavior="focus",  # tab goes to the toggles; JSON needs no tab
                )
                yield SelectionList[str](id="edit-toggles")
            yield Static(id="edit-problems")
            yield Static(
                Text("ctrl+s send · esc cancel · tab: the toggles (space flips one)", "dim"),
                id="edit-keys",
            )

    def _title(self) -> Text:
        title = Text.assemble(("Edit and re-send ", "bold"), (visible(self.title_text), "dim"))
        missing = self.editable.missing
        kept = [name for name in self.editable.meanings if name not in missing]
        if kept:
            names = ", ".join(f"${{{name}}}" for name in kept)
            title.append(
                f"\nhidden, kept from the original: {visible(names)}"
                " (remove one to send without it)",
                "dim",
            )
        if missing:
            names = ", ".join(f"${{{name}}}" for name in missing)
            title.append(
                f"\nredacted in the recording: {visible(names)}: set it in the environment "
                "before starting mcptui, type a value, or switch the header off",
                "yellow",
            )
        return title

    def on_mount(self) -> None:
        self.query_one("#edit-toggles", SelectionList).border_title = "toggles"
        self._narrow(self.app.size.width)
        self._refresh_checks()

    def on_resize(self, event: Resize) -> None:
        self._narrow(event.size.width)

    def _narrow(self, width: int) -> None:
        self.set_class(width < NARROW, "narrow")

    # -- checking as you type ----------------------------------------------------------------

    @on(TextArea.Changed, "#edit-text")
    def _changed(self) -> None:
        self.check = check_request_text(self.query_one("#edit-text", TextArea).text)
        self._refresh_checks()

    def _refresh_checks(self) -> None:
        problems = list(self.check.problems)
        if self.check.request is not None:
            try:
                request_to_send(self.check.request, self.editable.kept)
            except UnsetVariable as exc:
                problems.append(Problem(str(exc), error=False))
        out = Text()
        if not problems:
            out.append("✓ a valid request for the installed openai SDK", "green")
        for problem in problems[:MAX_PROBLEMS]:
            if out:
                out.append("\n")
            out.append("✗ " if problem.error else "! ", "red" if problem.error else "yellow")
            out.append(visible(problem.text()))
        if len(problems) > MAX_PROBLEMS:
            out.append(f"\n… and {len(problems) - MAX_PROBLEMS} more", "dim")
        self.query_one("#edit-problems", Static).update(out)
        if self.check.request is not None:
            self._refresh_toggles(self.check.request)

    def _refresh_toggles(self, request: dict[str, Any]) -> None:
        found = toggles(request, self.listed, self.original)
        listing = self.query_one("#edit-toggles", SelectionList)
        if [t.key for t in found] != [t.key for t in self._shown]:
            listing.clear_options()
            listing.add_options(
                [Selection(Text(visible(t.label)), t.key, t.on, id=t.key) for t in found]
            )
        else:
            for toggle in found:
                if toggle.on:
                    listing.select(toggle.key)
                else:
                    listing.deselect(toggle.key)
        self._shown = found

    def _restore_toggles(self) -> None:
        """Each toggle as it was before a flip that could not apply."""
        listing = self.query_one("#edit-toggles", SelectionList)
        for toggle in self._shown:
            if toggle.on:
                listing.select(toggle.key)
            else:
                listing.deselect(toggle.key)

    @on(SelectionList.SelectionToggled, "#edit-toggles")
    def _toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        key = event.selection.value
        request = self.check.request
        if request is None:
            self.notify("Fix the JSON first: the toggles change the request it holds.")
            self._restore_toggles()
            return
        changed = flip(request, key, self.listed, self.original)
        editor = self.query_one("#edit-text", TextArea)
        before = editor.text.splitlines()
        editor.text = json.dumps(changed, indent=2, ensure_ascii=False) + "\n"
        after = editor.text.splitlines()
        # The change in view (on 24 rows the editor shows a dozen lines), the focus kept.
        line = next(
            (n for n, (old, new) in enumerate(zip(before, after, strict=False)) if old != new),
            min(len(before), len(after)),
        )
        editor.move_cursor((line, 0), center=True)

    # -- sending -----------------------------------------------------------------------------

    def action_send(self) -> None:
        check = self.check
        if check.request is None or check.errors:
            first = check.errors[0].text() if check.errors else "not a request"
            self.notify(f"Not sent: {visible(first)}", severity="error")
            return
        try:
            request = request_to_send(check.request, self.editable.kept)
        except UnsetVariable as exc:
            self.notify(f"Not sent: {visible(str(exc))}", severity="error", timeout=15)
            return
        refused = self.preflight() if self.preflight is not None else None
        if refused is not None:
            self.notify(f"Not sent: {visible(refused)}.", severity="error", timeout=15)
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
