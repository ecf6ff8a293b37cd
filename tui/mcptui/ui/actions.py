"""Every key of the inspector, declared once: the bindings, the footer's order, the help
screen (`?`), the command palette and README's key tables all come from `ACTIONS`.

Four hand-kept tables (the Binding list, the help texts, the palette's list and the footer's
priorities) drifted apart: an action missing from one was silently dropped from `?`, and `?`
omitted `q Quit`. A row here is the whole truth about a key; `tests/app/test_actions.py` checks
README against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding, BindingType


@dataclass(frozen=True, slots=True)
class Action:
    """One action: what runs it, how it is shown, and what it does."""

    name: str
    """The Textual action (`action_<name>`)."""
    keys: str
    """Textual key names, comma-separated: the first is the one shown."""
    label: str
    """The footer's short text."""
    title: str
    """The palette's and the help screen's name for it."""
    does: str
    """What it does, for the help screen, the palette and README."""
    owner: str
    """Who runs it: `app`, `screen`, or the inspector screen's collaborator of that name."""
    rank: int | None = None
    """The footer keeps the lowest ranks when the line is short; None: never in the footer."""
    palette: bool = True
    """Offered in the command palette (ctrl+p)."""
    priority: bool = False
    """A priority binding: acts before the focused widget sees the key (see the notes)."""
    key_display: str | None = None
    live: bool = False
    """Only where a live run can act on it: README lists it with the live keys."""
    readme_keys: str = ""
    """How README names the keys (default: each key in backticks)."""
    when: Literal["", "live", "cause", "probe", "resend", "tools", "filter"] = ""
    """When it is available (the inspector screen's `check_action` asks its collaborators):
    always (""), when the live run offers it now (`live`), when the selected request can be
    sent again changed that way (`cause`), when a failed MCP call is selected (`probe`), when
    this session can send an edited request or compare one (`resend`), when it names an MCP
    server to call (`tools`), when there is a filter to clear or no list to go back to
    (`filter`: Escape is `back` otherwise)."""

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.name,
            self.label,
            show=self.rank is not None,
            priority=self.priority,
            key_display=self.key_display,
            id=self.name,
        )


ACTIONS: tuple[Action, ...] = (
    # The app's own: help and quitting work on every screen.
    Action(
        "help",
        "question_mark,f1",
        "Keys",
        "Keys",
        "Show this list of keys: what each does and whether it works now",
        "app",
        rank=0,
        palette=False,
        key_display="?",
    ),
    # Priority, like `s` and `o`, so that `q` followed at once by another key quits rather
    # than letting that key act first; in a dialog or a text box it is text (check_action).
    Action(
        "quit",
        "q",
        "Quit",
        "Quit",
        "Quit (a live run's recording is already complete on disk)",
        "app",
        rank=1,
        palette=False,
        priority=True,
    ),
    # Ctrl+C quits as in any terminal program (Textual only hints at ctrl+q), from anywhere.
    Action(
        "interrupt",
        "ctrl+c",
        "Quit",
        "Quit",
        "Quit from anywhere, a text box or a dialog too",
        "app",
        palette=False,
        priority=True,
    ),
    # `mcptui watch`: Escape in a recording opened from the list goes back to it, once
    # there is no filter to clear (`clear_filter` comes first, and is off then).
    Action(
        "back_to_list",
        "escape",
        "Back",
        "Back to the list",
        "Back to the list of recordings, from one opened there (`mcptui watch` only; a "
        "filter is cleared first)",
        "app",
        rank=1,
        palette=False,
    ),
    # Playback. Priority: the tree would take the arrows and home/end for its cursor.
    Action(
        "toggle_play",
        "space",
        "Play",
        "Play / pause",
        "Start or stop playback (live: pause following, or follow again)",
        "playback",
        rank=15,
        priority=True,
        key_display="␣",
    ),
    Action(
        "step_forward",
        "right,n",
        "Step",
        "Step forward",
        "Apply the next event",
        "playback",
        rank=2,
        priority=True,
        key_display="→",
    ),
    Action(
        "step_back",
        "left,b",
        "Back",
        "Step back",
        "Undo the last event",
        "playback",
        rank=12,
        priority=True,
        key_display="←",
    ),
    Action(
        "first",
        "home,g",
        "First",
        "First step",
        "Go back to the start of the stream",
        "playback",
        rank=19,
        priority=True,
        key_display="⇤",
    ),
    Action(
        "last",
        "end,G",
        "Last",
        "Last step",
        "Jump to the end of the stream",
        "playback",
        rank=20,
        priority=True,
        key_display="⇥",
    ),
    Action(
        "next_failure",
        "f",
        "Fail▸",
        "Next failure",
        "Select the next failed call or "
        "error, stepping to it if it is not reached yet (wraps around)",
        "playback",
        rank=3,
    ),
    Action(
        "previous_failure",
        "F",
        "◂Fail",
        "Previous failure",
        "Select the previous failure (wraps around)",
        "playback",
        rank=13,
    ),
    Action(
        "faster",
        "plus,equals_sign",
        "Fast",
        "Faster",
        "Replay faster",
        "playback",
        rank=22,
        key_display="+",
    ),
    Action(
        "slower", "minus", "Slow", "Slower", "Replay slower", "playback", rank=23, key_display="-"
    ),
    Action("instant", "i", "Instant", "Instant", "Apply every event at once", "playback", rank=21),
    # Priority, so `/` opens the box before the keys typed after it are routed: a burst like
    # `/search` is the filter's text, not `s`ave (the filter box takes focus at once).
    Action(
        "filter",
        "slash",
        "Filter",
        "Filter events",
        "Show only events whose type or content matches (Enter applies)",
        "tree_filter",
        rank=14,
        priority=True,
        key_display="/",
    ),
    Action(
        "clear_filter",
        "escape",
        "Clear filter",
        "Clear filter",
        "Show every event again",
        "tree_filter",
        when="filter",
    ),
    Action(
        "cycle_view",
        "v",
        "View",
        "Cycle view",
        "Right pane: detail, findings, waterfall",
        "screen",
        rank=4,
    ),
    Action(
        "cycle_layout",
        "z",
        "Layout",
        "Cycle layout",
        "Tree and detail side by side, the detail wide (the tree a narrow column), or the "
        "tree alone",
        "screen",
    ),  # not in the footer: at 140 columns it holds every other key of a replay exactly
    Action(
        "probe",
        "p",
        "Probe",
        "Probe",
        "Call the selected failed mcp_call's tool directly "
        "and show what it answers (failed calls only)",
        "diagnosing",
        rank=8,
        palette=False,
        when="probe",
    ),
    Action(
        "copy",
        "c",
        "Copy",
        "Copy event JSON",
        "Copy the selected event's JSON to the clipboard (OSC 52)",
        "files",
        rank=18,
    ),
    Action(
        "more",
        "m",
        "More",
        "Show more",
        "Show five times as much of a long text or JSON "
        "in the detail pane (it shows the first 20,000 characters)",
        "detail_view",
    ),
    # Priority for the same reason as `/`: a path pasted right after `s` / `o` is the prompt's.
    Action(
        "save",
        "s",
        "Save",
        "Save recording",
        "Save this session as an mcptui recording (an existing file is overwritten only after y)",
        "files",
        rank=16,
        priority=True,
    ),
    Action(
        "open",
        "o",
        "Open",
        "Open recording",
        "Open another recording or stream dump (Tab completes the path; ↓ lists the files "
        "opened lately), or a stored response by its id (resp_…: fetched with GET "
        "/responses/{id})",
        "files",
        rank=17,
        priority=True,
    ),
    Action(
        "report",
        "R",
        "Report",
        "Write report",
        "Write a redacted Markdown report of the "
        "session (`<recording>-report.md`, as `mcptui report` makes it, with the probes run "
        "here as evidence) next to the recording",
        "share_actions",
        rank=24,
    ),
    Action(
        "export",
        "E",
        "Export",
        "Export request",
        "Write the request next to the recording as a curl command (`<recording>-request.sh`), "
        "a Python (openai SDK) snippet (`.py`) and a request file (`.json`), secrets as "
        "${VAR} placeholders",
        "share_actions",
    ),
    # Live runs only (hidden otherwise).
    Action(
        "approve",
        "a",
        "Approve",
        "Approve",
        "Approve the selected (or newest) "
        "mcp_approval_request: the follow-up streams into the same session",
        "live_actions",
        rank=5,
        palette=False,
        live=True,
        when="live",
    ),
    Action(
        "deny",
        "d",
        "Deny",
        "Deny",
        "Deny the selected (or newest) approval request",
        "live_actions",
        rank=6,
        palette=False,
        live=True,
        when="live",
    ),
    Action(
        "cancel_run",
        "x",
        "Cancel run",
        "Cancel run",
        "Cancel the background run being followed",
        "live_actions",
        rank=7,
        palette=False,
        live=True,
        when="live",
    ),
    Action(
        "rerun",
        "r",
        "Re-run",
        "Re-run",
        "Send the same request again as a new response, to compare attempts",
        "live_actions",
        rank=11,
        palette=False,
        live=True,
        when="live",
    ),
    # Where a failure's likely cause can be acted on from a live run (hidden otherwise).
    Action(
        "rerun_foreground",
        "u",
        "Foreground",
        "Re-run in foreground",
        "On a background "
        "response that failed bare: send the request again with background off, so the "
        "mcp_call's own error shows",
        "cause_actions",
        rank=9,
        live=True,
        when="cause",
    ),
    Action(
        "rerun_only_tool",
        "t",
        "Only tool",
        "Re-run with only this tool",
        "On a failed "
        "mcp_call: send the request again allowing only that tool on its server, to "
        "isolate it",
        "cause_actions",
        rank=10,
        live=True,
        when="cause",
    ),
    Action(
        "tool_workspace",
        "w",
        "Tools",
        "Tool workspace",
        "Call a tool of the session's MCP servers from a form made from its input schema "
        "(pre-filled from the selected failed call): the answer, its cause, a history",
        "tools",
        rank=25,
        when="tools",
    ),
    Action(
        "edit_request",
        "e",
        "Edit",
        "Edit and re-send",
        "Open the selected response's request as JSON: change it (checked as you type against "
        "the openai SDK's types; toggles for background, stream, require_approval, each tool "
        "in allowed_tools, each header), ctrl+s sends it as a new response, compared with this "
        "one when it ends",
        "resend",
        rank=9,
        live=True,
        when="resend",
    ),
    Action(
        "diff_edited",
        "D",
        "Diff",
        "Diff with the edited re-send",
        "Show an edited re-send and the response it was edited from side by side (the "
        "`mcptui diff` screen)",
        "resend",
        rank=10,
        live=True,
        when="resend",
    ),
)

BY_NAME = {action.name: action for action in ACTIONS}

FOCUS_AT_ONCE: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]
"""Tab in a screen of fields (the request editor, the tool workspace): as priority bindings
they move the focus as the app reads the key, so the keys sent right after a Tab go to the
field it names. As Textual's own (screen) bindings they ran after those keys had been handed
to the field being left: a terminal test failed 2 runs in 5 under load, 20 of 20 passed."""


def available_when(when: str) -> frozenset[str]:
    """The actions available only under the condition `when` (see `Action.when`)."""
    return frozenset(action.name for action in ACTIONS if action.when == when)


def bindings(*, app: bool) -> list[BindingType]:
    """The app's bindings, or the inspector screen's."""
    return [a.binding() for a in ACTIONS if (a.owner == "app") == app]


def footer_ranks() -> dict[str, int]:
    return {a.name: a.rank for a in ACTIONS if a.rank is not None}


def readme_key(key: str) -> str:
    names = {
        "question_mark": "?",
        "slash": "/",
        "plus": "+",
        "equals_sign": "=",
        "minus": "-",
        "right": "→",
        "left": "←",
        "escape": "esc",
    }
    return f"`{names.get(key, key)}`"


def readme_table(*, live: bool) -> str:
    """README's key table: the replay keys, or the keys only a live run has."""
    rows = ["| key | what it does |", "| --- | --- |"]
    for action in ACTIONS:
        if action.live == live:
            keys = " ".join(readme_key(k) for k in action.keys.split(","))
            rows.append(f"| {keys} | {action.does} |")
    return "\n".join(rows) + "\n"
