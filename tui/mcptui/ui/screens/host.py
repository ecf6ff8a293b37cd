"""What the inspector screen's collaborators may ask of the screen that holds them: `Host`.

Each collaborator (playback.py, clock.py, diagnosing.py, loading.py, detail_view.py,
tree_filter.py, file_actions.py, live_actions.py, cause_actions.py, share_actions.py) is handed
its host as this Protocol, never as the InspectorScreen class: so none of them imports
inspector.py (not even for its types), the screen can be swapped for a stub in a test of one
collaborator, and what a collaborator leans on is written down here, in one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast, overload

from textual.app import App
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.worker import Worker, WorkType
from textual.worker_manager import WorkerManager

if TYPE_CHECKING:
    from mcptui.sources.live import LiveRun
    from mcptui.sources.session import Session
    from mcptui.ui.gc_pacing import CollectorPacer
    from mcptui.ui.screens.cause_actions import CauseActions
    from mcptui.ui.screens.clock import HeaderClock
    from mcptui.ui.screens.detail_view import DetailView
    from mcptui.ui.screens.diagnosing import Diagnosing
    from mcptui.ui.screens.live_actions import LiveActions
    from mcptui.ui.screens.loading import Loading
    from mcptui.ui.screens.playback import Playback
    from mcptui.ui.screens.resend import Resend
    from mcptui.ui.screens.tool_actions import ToolActions
    from mcptui.ui.screens.tree_filter import TreeFilter
    from mcptui.ui.widgets.detail import DetailPane
    from mcptui.ui.widgets.event_tree import EventTree

OpenAt = int | Literal["failure", "end"] | None
"""Where a screen opens, paused: at a step, on the first failure, at the end with the first
failure selected, or (None) as usual."""

W = TypeVar("W", bound=Widget)
R = TypeVar("R")


class Host(Protocol):
    """The screen as its collaborators see it: the session, the widgets they draw on, the
    other collaborators they hand work to, and the few Textual calls they make."""

    session: Session
    clock: Callable[[], float]
    collector: CollectorPacer
    open_at: OpenAt
    opened_at: int

    playback: Playback
    header_clock: HeaderClock
    diagnosing: Diagnosing
    rest_reader: Loading
    detail_view: DetailView
    tree_filter: TreeFilter
    live_actions: LiveActions
    cause_actions: CauseActions
    resend: Resend
    tools: ToolActions

    @property
    def tree(self) -> EventTree: ...

    @property
    def detail(self) -> DetailPane: ...

    @property
    def view(self) -> str: ...

    def _open_at(self, where: OpenAt) -> None: ...

    # -- the Textual calls a collaborator makes on its screen -------------------------------

    @property
    def app(self) -> App[Any]: ...

    @property
    def workers(self) -> WorkerManager: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def run_worker(
        self,
        work: WorkType[R],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[R]: ...

    async def run_action(
        self, action: str, namespaces: Mapping[str, DOMNode] | None = None
    ) -> None: ...

    @overload
    def query_one(self, selector: type[W]) -> W: ...

    @overload
    def query_one(self, selector: str, expect_type: type[W]) -> W: ...

    def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...

    def refresh_bindings(self) -> None: ...

    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None: ...

    def after_frame(self, callback: Callable[[], object]) -> None: ...

    def mount_hidden(self) -> None: ...


class HostApp(Protocol):
    """The app as the collaborators see it (ui/app.py's McptuiApp): the live run and the
    requests sent to it, the secrets a shared file hides, a file opened in place."""

    live: LiveRun | None

    def send(self, request: dict[str, Any]) -> None: ...

    def run_live(self, work: Awaitable[Any], name: str) -> None: ...

    def session_secrets(self) -> list[str]: ...

    def open_path(self, path: str) -> None: ...

    def live_for_replay(self, now: float) -> str | None: ...

    def can_go_back(self) -> bool: ...


def host_app(host: Host) -> HostApp:
    """The host's app, as a HostApp: a cast, not a check (the inspector runs in McptuiApp),
    so that no collaborator imports ui/app.py, which imports the screen."""
    return cast("HostApp", host.app)
