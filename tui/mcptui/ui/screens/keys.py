"""The help screen (`?`, F1): every key of the action table (ui/actions.py) and what it does.

The help screen lists the bindings of the screen under it as they stand now: keys that do
nothing at the moment (live keys in a replay, probe with no failed call selected) are listed
dimmed with the reason, so a person learns they exist without wondering why they do nothing.
"""

from __future__ import annotations

from dataclasses import replace

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from mcptui.ui.actions import ACTIONS, BY_NAME

NO_RANK = 1_000
"""Where keys kept out of the footer come: after those in it."""


def keys_table(screen: Screen[object]) -> Table:
    """Every action of the table that `screen` or the app has, with its keys, and whether it
    works now (the screen's and the app's `check_action`): a key that does nothing at the
    moment is listed dimmed, so a person learns it exists."""
    table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True, style="bold cyan")
    table.add_column("action", no_wrap=True)
    table.add_column("what it does")
    app = screen.app
    rows: list[tuple[bool, int, Text, Text, Text]] = []
    for action in ACTIONS:
        owner: DOMNode = app if action.owner == "app" else screen
        if not hasattr(owner, f"action_{action.name}"):
            continue  # another screen's (the diff view has keys of its own)
        enabled = bool(owner.check_action(action.name, ()))
        binding = action.binding()
        keys = [app.get_key_display(binding)] + [
            app.get_key_display(replace(binding, key=key, key_display=None))
            for key in action.keys.split(",")[1:]
        ]
        does = Text(action.does) if enabled else Text(f"{action.does}: not available now", "dim")
        rows.append(
            (
                enabled,
                NO_RANK if action.rank is None else action.rank,
                Text(" ".join(dict.fromkeys(keys)), "bold cyan" if enabled else "dim"),
                Text(action.title, "bold" if enabled else "dim"),
                does,
            )
        )
    for own in screen.BINDINGS:  # a screen's own keys (`watch`'s Enter), not the table's
        if isinstance(own, Binding) and own.action not in BY_NAME:
            shown = Text(app.get_key_display(own), "bold cyan")
            rows.append((True, -1, shown, Text(own.description, "bold"), Text(own.tooltip)))
    # What works now first, the footer's essentials first (its ranks): at 80x24 the keys a
    # person reaches for (quit, step, failure, view, filter) are on the first screen.
    for _, _, *cells in sorted(rows, key=lambda row: (not row[0], row[1])):
        table.add_row(*cells)
    return table


class KeysScreen(ModalScreen[None]):
    """The keys of the screen below, closed with Escape, `?`, F1 or `q`."""

    BINDINGS = [Binding("escape,question_mark,f1,q", "close", "Close", id="close")]
    DEFAULT_CSS = """
    KeysScreen { align: center middle; }
    KeysScreen > Vertical { width: 110; max-width: 100%; height: auto; max-height: 100%;
                            border: round $accent; background: $surface; padding: 0 1; }
    KeysScreen VerticalScroll { height: auto; max-height: 100%; }
    """

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self.below = below
        self.table = keys_table(below)
        """Made while `below` is the active screen: what works there, not in this dialog."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Keys"
            box.border_subtitle = "Esc closes"
            with VerticalScroll():
                yield Static(self.table)

    def action_close(self) -> None:
        self.dismiss(None)
