"""The Textual app: one inspector screen per session, plus command palette entries."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import SystemCommand
from textual.screen import ModalScreen, Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from mcptui.model.redaction import hide_known, merge_secrets, redact_text, request_secrets
from mcptui.model.summary import unfinished
from mcptui.sources.session import Session
from mcptui.ui.actions import ACTIONS, bindings
from mcptui.ui.safe_app import SafeApp
from mcptui.ui.screens.host import OpenAt
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.keys import KeysScreen
from mcptui.ui.screens.share_actions import share_folder, share_stem, write_beside

if TYPE_CHECKING:
    from mcptui.model.providers import Endpoint
    from mcptui.sources.live import LiveRun


class CaptureService(Protocol):
    """A relay beside the app (`mcptui proxy`, `mcptui tap`): started once the screen is up
    (its entries cross to the app's loop), stopped on quit."""

    def start(self, session: Session, loop: asyncio.AbstractEventLoop) -> None: ...
    def stop(self) -> None: ...


FIRST_MODE = "inspector"
"""The mode whose base screen (`get_default_screen`) is the first session's inspector."""


class McptuiApp(SafeApp):
    """Shows a session; `open_path` replaces it with another file's.

    With a `live` run, the first request is sent from a worker once the screen is up, and the
    events stream into the session as they arrive.
    """

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere too
    DEFAULT_MODE = FIRST_MODE
    TITLE = "mcptui"
    BINDINGS = bindings(app=True)  # help and quitting: ui/actions.py says why priority

    def __init__(
        self,
        session: Session,
        *,
        paused: bool = False,
        live: LiveRun | None = None,
        request: dict[str, Any] | None = None,
        attach: tuple[str, int | None] | None = None,
        proxy: CaptureService | None = None,
        open_at: OpenAt = None,
    ) -> None:
        super().__init__()
        self.open_at = open_at
        """Where a replay opens (paused): a step number, or "failure" for the first one."""
        self.proxy = proxy
        """With `mcptui proxy` or `mcptui tap`: started once the screen is up, stopped on
        quit."""
        self.session = session
        self.start_paused = paused
        self.live = live
        self.first_request = request
        self.attach_to = attach
        self._opened = 0
        self._left: list[LiveRun] = []
        """Live runs whose session was replaced by a file opened with `o`: closed on exit."""
        """Files opened in place (`o`): each has a mode of its own."""

    def get_default_screen(self) -> Screen[Any]:
        """The inspector is the first mode's base screen, mounted with the app, not pushed from
        `on_mount` over Textual's blank default screen: that one was composed, styled, laid
        out and drawn first, and the inspector mounted after the app's start-up batch: ~40 ms
        of CPU of a small recording's ~0.41 s first screen in tmux (bench/cold_start.py)."""
        return InspectorScreen(self.session, paused=self.start_paused, open_at=self.open_at)

    def on_mount(self) -> None:
        # Named as a mode only now that its screen is up, so that `open_path` can remove it:
        # a mode named before would have its screen made through `MODES`, which reparses all
        # the CSS, uncached (ui/css_cache.py).
        self.add_mode(FIRST_MODE, self.get_default_screen)
        if self.proxy is not None:
            self.proxy.start(self.session, asyncio.get_running_loop())
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
            self.notify(f"The request failed: {event.worker.error!r}", severity="error", timeout=30)
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR) and isinstance(
            self.screen, InspectorScreen
        ):
            self.screen.diagnosing.diagnose(
                force=True
            )  # the run ended: "no terminal event" may apply
            self.screen.playback.land_on_failure()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back_to_list":  # only where there is a list to go back to (`mcptui watch`)
            return self.can_go_back()
        # In a dialog or a text box `q` is theirs (text, or close); Ctrl+C still quits.
        return not (
            action == "quit"
            and (isinstance(self.screen, ModalScreen) or isinstance(self.focused, Input))
        )

    async def action_interrupt(self) -> None:
        await self.action_quit()

    async def action_quit(self) -> None:
        """Quit with the code `inspect` gives (README): 1 when what was shown holds a failure,
        0 when not; `proxy` and `tap` exit 0, what they relayed being data."""
        from mcptui.share.inspect_output import EXIT_CLEAN, EXIT_FAILURE  # with the checks

        failed = self.proxy is None and bool(self.session.timeline.failure_indexes)
        if not failed and self.proxy is None:
            failed = self._unfinished_at_end()
        self.exit(return_code=EXIT_FAILURE if failed else EXIT_CLEAN)

    def _unfinished_at_end(self) -> bool:
        """A whole file whose response never finished (a stream cut off): `inspect` counts
        that as a failure, so quitting says so too, wherever the replay stands (the view is
        folded to its end first: about 2 s for a million events, once, on the way out). Not
        while a file is still read or a live run goes on: that is not all there is."""
        session = self.session
        timeline = session.timeline
        if session.live or session.loading is not None:
            return False
        if not timeline.at_end:
            timeline.seek_end()
        return bool(unfinished(timeline.state, timeline.events))

    def can_go_back(self) -> bool:
        """Whether Escape leaves the inspector for a screen below it: not here (a subclass
        that shows one, ui/watch_app.py)."""
        return False

    def action_back_to_list(self) -> None:
        """Back to the screen below the inspector, where there is one (`can_go_back`)."""

    def action_help(self) -> None:
        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen(self.screen))

    async def on_unmount(self) -> None:
        for live in (*self._left, self.live):
            if live is not None:
                await live.aclose()
        if self.proxy is not None:
            self.proxy.stop()

    def open_path(self, path: str) -> None:
        """Show another file (`o`), or a stored response when `path` is a response id that
        names no file here (fetched from the API, tui/mcptui/sources/stored.py)."""
        from mcptui.sources.replay import open_session
        from mcptui.sources.stored import is_response_id

        if is_response_id(path) and not Path(path).exists():
            self._open_stored(path)
            return
        session = open_session(path)
        if not session.usable:
            problems = "; ".join(str(p) for p in session.problems[:3]) or "nothing usable"
            self.notify(f"Could not open {path}: {problems}", severity="error")
            return
        from mcptui.io.recent import note_opened

        note_opened(path)  # first in the dialog's recent files next time
        self._show(session)

    def live_for_replay(self, now: float) -> str | None:
        """Let a replay send (`e` on its request): a live run on this session with the
        environment's `OPENAI_API_KEY` and `OPENAI_BASE_URL` (else the recording's own
        endpoint and provider; Azure's key from `AZURE_OPENAI_API_KEY`), its responses
        recorded to a new file. None once it can; else why not."""
        if self.live is not None:
            return None
        import os

        from mcptui.model.providers import PROVIDERS
        from mcptui.sources.endpoints import EndpointError, live_target
        from mcptui.sources.live import Recorder, live_run_on, recorded_base_url

        recorded = (self.session.header or {}).get("provider")
        own = recorded if recorded in PROVIDERS and not os.environ.get("OPENAI_BASE_URL") else None
        try:
            target = live_target(
                None, own, os.environ, recorded=recorded_base_url(self.session.header)
            )
        except EndpointError as exc:
            return str(exc)
        if target.missing is not None:
            return (
                f"a replay sends with your key: {target.missing} (set OPENAI_BASE_URL for "
                "another server, e.g. `mcptui emulate`) before starting mcptui"
            )
        self.live = live_run_on(self.session, target.endpoint, target.api_key, Recorder(None))
        player = self.session.player
        player.instant = True
        if not player.playing:
            player.play(self.session.timeline.position, now)  # (`now`: the screen's clock)
        return None

    def _show(self, session: Session) -> None:
        # Shown whole at once, as `replay --instant` does, the cursor on its first failure
        # (an empty tree at step 0 would say nothing about the file just opened; a stored
        # response has no event to step to, only its items).
        session.player.instant = True
        self.leave_live(session)
        self.session = session
        self._opened += 1
        mode, previous = f"opened-{self._opened}", self.current_mode
        self.add_mode(mode, lambda: InspectorScreen(session, open_at="end"))
        self.switch_mode(mode)
        self.remove_mode(previous)  # its screens go: the file shown before, its timers

    def leave_live(self, session: Session | None) -> None:
        """`session` is shown next (None: none): a live run that does not feed it goes on into
        its own session and recording, closed on exit; its keys (r, e, a…) no longer act on
        what is shown."""
        if self.live is not None and self.live.session is not session:
            self._left.append(self.live)
            self.live = None

    def _open_stored(self, response_id: str) -> None:
        """Fetch a stored response with the live run's client settings, else the
        environment's (`OPENAI_API_KEY`, `OPENAI_BASE_URL`), off the app's loop."""
        import os

        from mcptui.sources.endpoints import EndpointError, live_target

        if self.live is not None:  # the run's own endpoint and key
            base, key = self.live.target, str(getattr(self.live.client, "api_key", ""))
        else:
            try:
                target = live_target(None, None, os.environ)
            except EndpointError as exc:
                self.notify(f"Cannot fetch {response_id}: {exc}", severity="error")
                return
            if target.missing is not None:
                self.notify(f"Cannot fetch {response_id}: {target.missing}.", severity="error")
                return
            base, key = target.endpoint, target.api_key
        self.notify(f"Fetching {response_id} (GET /responses/{response_id})…")
        self.run_worker(self._fetch_stored(response_id, base, key), exit_on_error=False)

    async def _fetch_stored(self, response_id: str, base: Endpoint, key: str) -> None:
        from mcptui.sources.stored import StoredError, fetch_stored

        try:
            loaded = await asyncio.to_thread(fetch_stored, response_id, base, key)
        except StoredError as exc:
            self.notify(f"Could not open {response_id}: {exc}", severity="error", timeout=15)
            return
        self._show(Session.from_loaded(loaded, instant=True))

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot: an SVG saved beside the session's recording or file
        (else in the recordings folder; not ~/Downloads, which may not exist), redacted as a
        recording is, and never over another file."""
        folder = Path(path) if path else share_folder(self.session)
        name = filename or f"{share_stem(self.session)}-screenshot.svg"
        svg = self.redacted_screenshot()
        try:
            target = write_beside(folder, name, svg)
        except OSError as exc:
            self.notify(
                f"Could not save the screenshot in {folder}: {exc.strerror or exc}",
                severity="error",
            )
            return None
        self.notify(f"Screenshot saved to {target}")
        return str(target)

    def redacted_screenshot(self) -> str:
        """The screen as SVG with anything secret-looking hidden, as in a recording, and the
        request's own secrets (tokens in its server URLs) wherever they show."""
        return hide_known(redact_text(self.export_screenshot()), self.session_secrets())

    def session_secrets(self) -> list[str]:
        session = getattr(self, "session", None)
        header = session.header if session is not None else None
        request = header.get("request") if isinstance(header, dict) else None
        known = request_secrets(request) if request else []
        live = getattr(self, "live", None)
        return merge_secrets(
            known,
            session.secrets if session is not None else [],
            live.secrets if live is not None else [],
        )

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, InspectorScreen):
            for action in ACTIONS:
                if action.palette and action.owner != "app":
                    yield SystemCommand(
                        action.title,
                        action.does,
                        lambda name=action.name: screen.run_palette_action(name),
                    )
