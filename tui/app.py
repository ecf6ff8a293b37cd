"""The Textual app: one inspector screen per session, plus command palette entries."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from tui.screens.inspector import InspectorScreen
from tui.session import Session

if TYPE_CHECKING:
    from tui.sources.live import LiveRun

PALETTE = (
    ("Play / pause", "Start or stop playback", "toggle_play"),
    ("Step forward", "Apply the next event", "step_forward"),
    ("Step back", "Undo the last event", "step_back"),
    ("First step", "Go back to the start of the stream", "first"),
    ("Last step", "Jump to the end of the stream", "last"),
    ("Next failure", "Jump to the next failed call or error", "next_failure"),
    ("Previous failure", "Jump to the previous failure", "previous_failure"),
    ("Faster", "Replay faster", "faster"),
    ("Slower", "Replay slower", "slower"),
    ("Instant", "Apply every event at once", "instant"),
    ("Filter events", "Show only events whose type or content matches", "filter"),
    ("Clear filter", "Show every event again", "clear_filter"),
    ("Copy event JSON", "Copy the selected event's JSON to the clipboard", "copy"),
    ("Save recording", "Save this session as an mcptui recording", "save"),
    ("Open recording", "Open another recording or stream dump", "open"),
)


class McptuiApp(App[None]):
    """Shows a session; `open_path` replaces it with another file's.

    With a `live` run, the first request is sent from a worker once the screen is up, and the
    events stream into the session as they arrive.
    """

    CSS_PATH = "app.tcss"
    TITLE = "mcptui"
    BINDINGS = [Binding("q", "quit", "Quit", id="quit")]

    def __init__(self, session: Session, *, paused: bool = False, live: LiveRun | None = None,
                 request: dict[str, Any] | None = None,
                 attach: tuple[str, int | None] | None = None) -> None:
        super().__init__()
        self.session = session
        self.start_paused = paused
        self.live = live
        self.first_request = request
        self.attach_to = attach

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.session, paused=self.start_paused))
        if self.live is not None and self.first_request is not None:
            self.send(self.first_request)
        elif self.live is not None and self.attach_to is not None:
            self.run_live(self.live.attach(*self.attach_to), "attach")

    def send(self, request: dict[str, Any]) -> None:
        """Send a request from a worker; its events stream into the session as they come.
        Sends queue behind each other (LiveRun serialises them), so responses never mix."""
        assert self.live is not None
        self.run_live(self.live.send(request), "send")

    def run_live(self, work: Awaitable[Any], name: str) -> None:
        self.run_worker(work, name=name, group="live", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "live":
            return
        if event.state == WorkerState.ERROR:
            self.notify(f"The request failed: {event.worker.error!r}", severity="error",
                        timeout=30)
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR) and \
                isinstance(self.screen, InspectorScreen):
            self.screen.diagnose(force=True)  # the run ended: "no terminal event" may apply

    async def on_unmount(self) -> None:
        if self.live is not None:
            await self.live.aclose()

    def open_path(self, path: str) -> None:
        from tui.sources.replay import open_session

        session = open_session(path)
        if not session.usable:
            problems = "; ".join(str(p) for p in session.problems[:3]) or "nothing usable"
            self.notify(f"Could not open {path}: {problems}", severity="error")
            return
        self.session = session
        self.switch_screen(InspectorScreen(session, paused=True))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, InspectorScreen):
            for title, help_text, action in PALETTE:
                yield SystemCommand(title, help_text,
                                    lambda action=action: screen.run_action(action))
