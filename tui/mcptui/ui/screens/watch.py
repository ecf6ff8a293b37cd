"""`mcptui watch DIR`'s list: the folder's recordings, newest first, each with its status, its
responses, failures and when it began, kept up to date as files appear and grow.

The folder is polled every `POLL_SECONDS` in a thread (tui/mcptui/io/folder_watch.py: a stat
a file, and a read only of what changed), one poll at a time; the table is touched only when a
row changed, and rebuilt only when the rows' order did, the selected recording kept selected.
Enter opens the selected recording in the inspector, above this screen (the app's
`open_recording`); Escape there comes back here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from mcptui.io.folder_watch import FolderWatch, Row
from mcptui.model.recording_status import Status
from mcptui.model.textsafe import visible
from mcptui.ui.widgets.footer import FittingFooter

POLL_SECONDS = 0.5
COLUMNS = ("status", "began", "responses", "failures", "recording")
STATUS_LOOK: dict[Status, tuple[str, str]] = {
    "writing": ("… writing", "cyan"),
    "never finished": ("! never finished", "yellow"),
    "failed": ("✗ failed", "bold red"),
    "completed": ("✓ completed", "green"),
}
"""Each status as the list shows it: its mark and word, and its colour (share/status_marks.py's
colours for the same states)."""
WAITING = (
    "No recordings here yet. Waiting for the *.jsonl recordings that `mcptui run`, `demo`, "
    "`proxy` and `tap` write (by default into mcptui-recordings/): each is listed as it appears."
)


class Opener(Protocol):
    """What the list asks of its app (ui/watch_app.py): show a recording in the inspector."""

    def open_recording(self, path: Path, *, writing: bool = False) -> None: ...


def row_cells(row: Row, today: datetime) -> tuple[Text, Text, Text, Text, Text]:
    """The cells of one recording's row: file names and times are shown literally."""
    summary = row.summary
    word, style = STATUS_LOOK[summary.status]
    return (
        Text(word, style),
        Text(began(row, today)),
        Text(str(summary.responses), justify="right"),
        Text(str(summary.failures), "bold red" if summary.failures else "dim", justify="right"),
        Text(visible(row.path.name)),
    )


def began(row: Row, today: datetime) -> str:
    """When the recording began, in local time: the time alone when that is `today`."""
    when = datetime.fromtimestamp(row.when).astimezone()
    if when.date() == today.date():
        return when.strftime("%H:%M:%S")
    return when.strftime("%Y-%m-%d %H:%M")


class WatchScreen(Screen[None]):
    """The recordings of a folder, kept up to date; Enter opens one."""

    BINDINGS = [
        Binding(
            "enter",
            "open_selected",
            "Open",
            tooltip="Open the selected recording in the inspector (Esc comes back here)",
            id="open_selected",
            priority=True,
        )
    ]
    DEFAULT_CSS = """
    WatchScreen #watch-status { height: auto; padding: 0 1; background: $boost; }
    WatchScreen #recordings { height: 1fr; }
    """

    def __init__(
        self,
        watch: FolderWatch,
        *,
        clock: Callable[[], float] = time.time,
        every: float = POLL_SECONDS,
    ) -> None:
        super().__init__()
        self.folder_watch = watch
        self.clock = clock
        """Seconds since the epoch: what file times are compared with (quiet or growing)."""
        self.every = every
        self.rows: list[Row] = []
        """The rows shown, in order."""
        self.polls = 0
        """Polls done: a test waits for one more to know the folder was looked at again."""
        self.problem: str | None = None
        """Why the folder could not be listed at the last poll (it went, its rights)."""
        self._polling = False

    def compose(self) -> ComposeResult:
        yield Static(id="watch-status")
        yield DataTable(id="recordings", cursor_type="row", zebra_stripes=True)
        yield FittingFooter()

    @property
    def table(self) -> DataTable[Text]:
        return cast("DataTable[Text]", self.query_one("#recordings", DataTable))

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.table.add_column(name, key=name)
        self._say()
        self.table.focus()
        self.poll()
        self.set_interval(self.every, self.poll, name="watch")

    def poll(self) -> None:
        """Look at the folder again, in a thread, unless the last look is still going."""
        if self._polling:
            return
        self._polling = True
        now = self.clock()
        self.run_worker(
            lambda: self.folder_watch.poll(now), thread=True, group="watch", exit_on_error=False
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "watch" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        self._polling = False
        self.polls += 1
        if event.state == WorkerState.ERROR:
            error = worker.error
            reason = getattr(error, "strerror", None) or str(error)
            self.problem = f"cannot list the folder: {reason}"
        else:
            self.problem = None
            if worker.result:
                self.show(self.folder_watch.rows())
        self._say()

    def show(self, rows: list[Row]) -> None:
        """Put `rows` on the table: cells changed in place, or the table made again when the
        order changed (a new recording at the top). A cursor on the top row stays on the top
        row (it follows the newest recording, as a new run starts); elsewhere it stays on its
        recording."""
        table = self.table
        today = datetime.now().astimezone()
        if [row.path for row in rows] == [row.path for row in self.rows]:
            for old, new in zip(self.rows, rows, strict=True):
                if old != new:
                    for column, cell in zip(COLUMNS, row_cells(new, today), strict=True):
                        table.update_cell(str(new.path), column, cell)
            self.rows = rows
            return
        selected = self.selected()
        on_top = table.cursor_row == 0
        self.rows = rows
        table.clear()
        for row in rows:
            table.add_row(*row_cells(row, today), key=str(row.path))
        paths = [row.path for row in rows]
        if selected is not None and selected.path in paths and not on_top:
            table.move_cursor(row=paths.index(selected.path), animate=False)

    def selected(self) -> Row | None:
        index = self.table.cursor_row
        return self.rows[index] if self.rows and 0 <= index < len(self.rows) else None

    def _say(self) -> None:
        text = Text("Watching ", "bold")
        text.append(visible(str(self.folder_watch.folder)), "bold")
        if self.problem is not None:
            text.append(f": {self.problem}; looking again every {self.every:g} s", "bold red")
        elif not self.polls:
            text.append(" · looking…", "dim")
        elif not self.rows:
            text.append(f"\n{WAITING}", "dim")
        else:
            writing = sum(row.summary.status == "writing" for row in self.rows)
            count = len(self.rows)
            text.append(f" · {count} recording{'s' if count != 1 else ''}")
            if writing:
                text.append(f" · {writing} being written", "cyan")
            text.append(" · Enter opens one, Esc comes back", "dim")
        self.query_one("#watch-status", Static).update(text)

    @on(DataTable.RowSelected, "#recordings")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_selected()

    def action_open_selected(self) -> None:
        row = self.selected()
        if row is not None:
            writing = row.summary.status == "writing"
            cast("Opener", self.app).open_recording(row.path, writing=writing)
