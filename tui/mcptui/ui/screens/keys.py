"""What every key does: one table for the help screen (`?`, F1) and the command palette.

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
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

ACTION_HELP: dict[str, tuple[str, str]] = {
    "help": ("Keys", "Show this list of keys"),
    "quit": ("Quit", "Quit (a live recording is complete on disk)"),
    "interrupt": ("Quit", "Quit from anywhere, a text box or a dialog too"),
    "toggle_play": ("Play / pause", "Start or stop playback"),
    "step_forward": ("Step forward", "Apply the next event"),
    "step_back": ("Step back", "Undo the last event"),
    "first": ("First step", "Go back to the start of the stream"),
    "last": ("Last step", "Jump to the end of the stream"),
    "next_failure": ("Next failure", "Select the next failed call or error (wraps around)"),
    "previous_failure": ("Previous failure", "Select the previous failure (wraps around)"),
    "faster": ("Faster", "Replay faster"),
    "slower": ("Slower", "Replay slower"),
    "instant": ("Instant", "Apply every event at once"),
    "filter": ("Filter events", "Show only events whose type or content matches"),
    "clear_filter": ("Clear filter", "Show every event again"),
    "cycle_view": ("Cycle view", "Right pane: detail, findings, waterfall"),
    "probe": ("Probe", "Call the selected failed mcp_call's tool directly (failed calls only)"),
    "copy": ("Copy event JSON", "Copy the selected event's JSON to the clipboard"),
    "more": ("Show more", "Show more of a long text or JSON in the detail pane"),
    "save": ("Save recording", "Save this session as an mcptui recording"),
    "open": ("Open recording", "Open another recording or stream dump"),
    "report": (
        "Write report",
        "Write a redacted Markdown report of the session (for an issue "
        "or a forum post) next to the recordings",
    ),
    "export": (
        "Export request",
        "Write the request as a curl command, a Python (openai SDK) "
        "snippet and a request file, secrets as ${VAR} placeholders",
    ),
    "approve": ("Approve", "Approve the selected approval request (live runs)"),
    "deny": ("Deny", "Deny the selected approval request (live runs)"),
    "cancel_run": ("Cancel run", "Cancel the running background response (live runs)"),
    "rerun": ("Re-run", "Send the request again as a new response (live runs)"),
    "rerun_foreground": (
        "Re-run in foreground",
        "Send the request again with background off, so a bare background "
        "failure shows the mcp_call's own error (live runs)",
    ),
    "rerun_only_tool": (
        "Re-run with only this tool",
        "Send the request again allowing only the selected failed call's tool "
        "on its server, to isolate it (live runs)",
    ),
}
"""action -> (title, what it does). Titles name palette entries; both texts fill the help."""

PALETTE_ACTIONS = (
    "toggle_play",
    "step_forward",
    "step_back",
    "first",
    "last",
    "next_failure",
    "previous_failure",
    "faster",
    "slower",
    "instant",
    "filter",
    "clear_filter",
    "cycle_view",
    "more",
    "copy",
    "save",
    "open",
    "report",
    "export",
    "rerun_foreground",
    "rerun_only_tool",
)
"""The inspector actions offered in the command palette (ctrl+p)."""


def keys_table(screen: Screen[object]) -> Table:
    """Every binding of `screen` and the app, grouped by action, with whether it works now."""
    table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True, style="bold cyan")
    table.add_column("action", no_wrap=True)
    table.add_column("what it does")
    seen: dict[str, list[str]] = {}
    order: list[tuple[str, bool]] = []
    app = screen.app
    for _, binding, enabled, _ in screen.active_bindings.values():
        if binding.action not in ACTION_HELP:
            continue
        keys = seen.setdefault(binding.action, [])
        if not keys:
            order.append((binding.action, enabled))
        # A binding of several keys carries one key_display for all of them: name each key.
        first = binding.key_display and not keys
        display = app.get_key_display(binding if first else replace(binding, key_display=None))
        if display not in keys:
            keys.append(display)
    for action, enabled in order:
        title, does = ACTION_HELP[action]
        row = Text(does) if enabled else Text(f"{does}: not available now", "dim")
        table.add_row(
            Text(" ".join(seen[action]), "bold cyan" if enabled else "dim"),
            Text(title, "bold" if enabled else "dim"),
            row,
        )
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

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Keys"
            box.border_subtitle = "Esc closes"
            with VerticalScroll():
                yield Static(keys_table(self.below))

    def action_close(self) -> None:
        self.dismiss(None)
