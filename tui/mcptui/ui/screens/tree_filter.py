"""The filter box: the tree shows only events whose type or content matches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.css.query import NoMatches
from textual.widgets import Input
from textual.worker import Worker, WorkerState, get_current_worker

from mcptui.model.textsafe import visible

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host


class TreeFilter:
    """The filter box: the tree shows only events whose type or content matches."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.filter_text = ""

    def action_filter(self) -> None:
        self.screen.mount_hidden()
        box = self.screen.query_one("#filter", Input)
        box.display = True
        box.value = self.filter_text
        # Now, not after the next refresh (box.focus() is deferred): keys typed in the same
        # burst as `/` (a fast typist, a paste) belong to the filter, not to `s`ave or `c`opy.
        self.screen.set_focus(box)

    def showing(self) -> bool:
        """Whether Escape has something to clear: a filter applied, or the box open."""
        if self.filter_text:
            return True
        try:
            return self.screen.query_one("#filter", Input).display
        except NoMatches:  # not mounted yet (`mount_hidden`): no box open
            return False

    def action_clear_filter(self) -> None:
        self.screen.mount_hidden()
        box = self.screen.query_one("#filter", Input)
        box.display = False
        if self.filter_text:
            self.filter_text = ""
            self.screen.tree.set_filter("")
            self.screen.header_clock.refresh_header()
        self.screen.tree.focus()

    def submitted(self, event: Input.Submitted) -> None:
        self.filter_text = event.value.strip()
        event.input.display = False
        self.screen.tree.focus()
        if not self.filter_text:
            self._apply_filter("")
            return
        # The events' texts are written in a thread: the app answers keys (q) meanwhile.
        wanted = self.filter_text
        tree = self.screen.tree

        def prepare() -> str | None:
            worker = get_current_worker()
            return wanted if tree.prepare_filter(lambda: worker.is_cancelled) else None

        self.screen.run_worker(
            prepare, thread=True, group="filter", exclusive=True, exit_on_error=False
        )

    def prepared(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "filter" or event.state != WorkerState.SUCCESS:
            return
        if worker.result is not None and worker.result == self.filter_text:
            self._apply_filter(worker.result)

    def _apply_filter(self, text: str) -> None:
        self.screen.tree.set_filter(text)
        self.screen.header_clock.refresh_header()
        if text:
            shown = self.screen.tree.filter_matches
            self.screen.notify(f"{shown:,} events match {visible(text)!r}", markup=False)
