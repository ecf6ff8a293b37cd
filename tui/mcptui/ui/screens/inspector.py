"""The inspector screen: the header, the event tree, the right pane's views and the footer,
and the collaborators that do its jobs (playback.py, clock.py, diagnosing.py, loading.py,
detail_view.py, tree_filter.py, file_actions.py, live_actions.py, cause_actions.py,
share_actions.py, resend.py, tool_actions.py), each owning its state. The screen composes
them and routes to them the keys (from the action table, ui/actions.py) and the messages that
reach a screen.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Click
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Input, Tree
from textual.worker import Worker

from mcptui.model.textsafe import visible
from mcptui.sources.follow import POLL_SECONDS
from mcptui.sources.session import Session
from mcptui.ui.actions import ACTIONS, BY_NAME, bindings
from mcptui.ui.gc_pacing import CHECK_SECONDS, CollectorPacer
from mcptui.ui.screens.cause_actions import CauseActions
from mcptui.ui.screens.clock import CLOCK_SECONDS, HeaderClock
from mcptui.ui.screens.detail_view import DetailView
from mcptui.ui.screens.diagnosing import DIAGNOSE_EVERY, Diagnosing
from mcptui.ui.screens.file_actions import FileActions
from mcptui.ui.screens.host import OpenAt
from mcptui.ui.screens.live_actions import LiveActions
from mcptui.ui.screens.loading import Loading
from mcptui.ui.screens.playback import TICK_SECONDS, Playback
from mcptui.ui.screens.resend import Resend
from mcptui.ui.screens.share_actions import ShareActions
from mcptui.ui.screens.tool_actions import ToolActions
from mcptui.ui.screens.tree_filter import TreeFilter
from mcptui.ui.widgets.detail import DetailPane
from mcptui.ui.widgets.event_tree import EventTree, NodeRef
from mcptui.ui.widgets.findings import FindingsList
from mcptui.ui.widgets.footer import FittingFooter
from mcptui.ui.widgets.status import StatusHeader
from mcptui.ui.widgets.waterfall import Waterfall

if TYPE_CHECKING:
    from mcptui.ui.safe_app import SafeApp

SIDE_VIEWS = {"detail": "Detail", "findings": "Findings", "waterfall": "Waterfall"}
"""The right pane's views, in the order `v` cycles through them."""
LAYOUTS = {"split": "tree and detail", "detail": "wide detail", "tree": "tree only"}
"""The split of the screen, in the order `z` cycles through them (each but `split` a class
`-layout-NAME` of the screen: app.tcss says what each does)."""
FRAME_SECONDS = 1 / 240
"""The shortest time between two frames of the inspector (Textual's screens: 1/60 s). Textual
draws a screen's frames on a fixed grid of that period, so a change asked for just after a
frame waited for the next grid point: a key pressed right after a step was drawn (a key held
down, or bench/terminal_steps.py) waited 10-15 ms for its frame, more than the step took. A
frame is drawn only when something changed, and draws only the lines that did."""


class InspectorScreen(Screen[None]):
    """One session, shown as it stood at the current step.

    The screen lays out the widgets and routes keys and messages; each job is a collaborator
    that owns its state: `playback` (stepping, following, failure stops), `header_clock`,
    `diagnosing` (checks and probes), `rest_reader` (a recording's rest), `detail_view`,
    `tree_filter`, `files` (copy, save, open), `live_actions`, `cause_actions`,
    `share_actions`, `resend` (edit and re-send) and `tools` (the tool workspace). Each is
    handed the screen as a `Host` (host.py), the Protocol that says what they may ask of it.
    Which one runs a key is said once, in the action table (ui/actions.py).
    """

    BINDINGS = bindings(app=False)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Below 100 columns the detail pane takes more of the width (app.tcss)."""

    def __init__(
        self,
        session: Session,
        *,
        paused: bool = False,
        clock: Callable[[], float] | None = None,
        open_at: OpenAt = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.start_paused = paused or open_at is not None
        self.open_at = open_at
        """Where to open that is not read yet: gone to once all is read (`all_read`)."""
        self.opened_at = 0
        """The step shown at mount: a step taken since means the user has moved on."""
        self.clock = clock or time.monotonic
        self.collector = CollectorPacer()
        """Keeps the collector's full pass out of steps (tui/mcptui/ui/gc_pacing.py)."""
        self.playback = Playback(self)
        self.header_clock = HeaderClock(self)
        self.diagnosing = Diagnosing(self)
        self.rest_reader = Loading(self)
        self.detail_view = DetailView(self)
        self.tree_filter = TreeFilter(self)
        self.files = FileActions(self)
        self.live_actions = LiveActions(self)
        self.cause_actions = CauseActions(self)
        self.share_actions = ShareActions(self)
        self.resend = Resend(self)
        self.tools = ToolActions(self)
        self._hidden_mounted = False

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="status")
        with Horizontal(id="panes"):
            yield EventTree(self.session.timeline, id="tree")
            # A ContentSwitcher, not TabbedContent: measured, the tabs' extra layout levels
            # cost every step about 1.5 ms (bench/tui_open.py).
            with ContentSwitcher(id="side", initial="detail"):
                yield DetailPane(id="detail")
        yield FittingFooter()  # ctrl+p still opens the command palette

    def mount_hidden(self) -> None:
        """Mount what the first screen does not show: the findings and waterfall views and
        the filter box. Done once its first frame is drawn (or when one is asked for before
        that): composing and styling them and reading their CSS was ~20 ms of CPU of the
        ~0.45 s first screen of a small recording (bench/cold_start.py)."""
        if self._hidden_mounted:
            return
        self._hidden_mounted = True
        findings, waterfall = FindingsList(id="findings"), Waterfall(id="waterfall")
        box = Input(
            placeholder="filter: event type or content; Enter to apply, Esc to clear", id="filter"
        )
        for widget in (findings, waterfall, box):
            widget.display = False  # as the ContentSwitcher and `action_filter` have them
        self.query_one(ContentSwitcher).mount(findings, waterfall)
        self.mount(box, before=self.query_one(FittingFooter))
        findings.show([], pending=True)

    def _open_at(self, where: OpenAt) -> None:
        if where in ("failure", "end"):
            self.playback.open_on_failure(whole=where == "end")
        elif isinstance(where, int):
            self.playback.go_to(where)

    def _tell_problems(self) -> None:
        """What reading the file left out or could not read (a paste's prose, Node's cuts, a
        bad line), once, as `inspect` lists it under "Problems reading the input"."""
        problems = self.session.problems
        if not problems:
            return
        shown = "; ".join(visible(str(problem)) for problem in problems[:3])
        more = (
            f" (+{len(problems) - 3} more: `mcptui inspect` lists them)"
            if len(problems) > 3
            else ""
        )
        self.notify(
            f"Reading the input: {shown}{more}", severity="warning", markup=False, timeout=8
        )

    @property
    def tree(self) -> EventTree:  # type: ignore[override]  # DOMNode.tree: a debug view
        return self.query_one(EventTree)

    @property
    def detail(self) -> DetailPane:
        return self.query_one(DetailPane)

    def on_mount(self) -> None:
        self.after_frame(self.mount_hidden)  # first: the checks started after it fill them
        self._tell_problems()
        self.tree.rebuild()
        self.tree.focus()
        reading = self.rest_reader.start_loading()  # a recording's rest, read between frames
        where = self.open_at
        if not self.start_paused:
            self.session.player.play(self.session.timeline.position, self.clock())
        elif where is not None and (
            not reading or (type(where) is int and where <= self.session.timeline.total)
        ):
            self.open_at = None  # there now, not again once all is read
            self.call_after_refresh(self._open_at, where)  # once laid out
        self.opened_at = self.session.timeline.position
        self.header_clock.refresh_header()
        self.set_interval(TICK_SECONDS, self.playback._tick, name="playback")
        self.set_interval(CLOCK_SECONDS, self.header_clock.advance_clock, name="clock")
        self.show_view("detail")
        player = self.session.player
        if player.instant and player.playing and not reading:
            self._jump_at_mount()
        else:
            self.diagnosing.diagnose()
        self.set_interval(DIAGNOSE_EVERY, self.diagnosing.diagnose, name="diagnose")
        if (follower := self.session.follower) is not None:
            self.set_interval(POLL_SECONDS, follower.poll, name="follow")
        self.collector.hold()
        self.set_interval(CHECK_SECONDS, self.collector.check, name="collector")

    def _jump_at_mount(self) -> None:
        """An instant replay of a file read whole: the first frame shows its end (landed on
        the first failure), not step 0 and then the end one tick later (on a small recording
        that second frame was ~55 ms of a ~0.5 s first screen in a real terminal,
        bench/cold_start.py). The checks start once that frame is drawn, not beside it (a
        thread competing for the GIL), as after a recording's rest is read
        (Loading.all_read)."""
        self.playback._tick()
        self.after_frame(lambda: self.diagnosing.diagnose(force=True))

    def on_unmount(self) -> None:
        self.collector.release()

    _frame_timer: Timer | None = None

    @property
    def _update_timer(self) -> Timer:
        """Textual's screen update timer (its `Screen._update_timer`, made the same way), with
        a shorter period: `FRAME_SECONDS`."""
        if self._frame_timer is None:
            self._frame_timer = self.set_interval(
                FRAME_SECONDS, self._on_timer_update, name="screen_update", pause=True
            )
        return self._frame_timer

    def after_frame(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the next frame is drawn (ui/safe_app.py says why not
        `call_after_refresh`)."""
        cast("SafeApp", self.app).after_frame(callback)

    # -- detail ------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[NodeRef]) -> None:
        self.collector.stepped()
        # Our own moves are shown already; a highlight the cursor has left since is stale (it
        # came after a failure stop had put the cursor and detail elsewhere: a CI flake).
        if event.node is not self.playback._placed and event.node is self.tree.cursor_node:
            self.detail_view.show_detail(event.node)

    @on(EventTree.UserMoved)
    def _user_moved(self) -> None:
        self.playback.follow = False
        self.playback._placed = None
        self.playback._moves_seen = self.tree.user_moves

    # -- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys typed into the filter box are text, not commands; an action of the table with
        a condition (`Action.when`: a live key, a cause key, probe) asks the collaborator that
        knows whether it holds now."""
        row = BY_NAME.get(action)
        if row is not None and row.when and not self._available(row.when, action):
            return False
        focused = self.focused  # (asked for every key at every refresh of the footer: no query)
        return not (focused is not None and focused.id == "filter" and action != "clear_filter")

    def _available(self, when: str, action: str) -> bool:
        if when == "live":
            return action in self.live_actions._live_keys()
        if when == "cause":
            return action in self.cause_actions._cause_keys
        if when == "resend":
            return self.resend.available(action)
        if when == "tools":
            return self.tools.available()
        if when == "filter":  # (an app of a test may show the screen: no list below it)
            goes_back = getattr(self.app, "can_go_back", None)
            return self.tree_filter.showing() or not (goes_back is not None and goes_back())
        return self.diagnosing._can_probe  # "probe"

    # -- views -------------------------------------------------------------------------------

    @property
    def view(self) -> str:
        """The right pane's current view: `detail`, `findings` or `waterfall`."""
        return self.query_one(ContentSwitcher).current or "detail"

    def show_view(self, name: str) -> None:
        if name != "detail":
            self.mount_hidden()
        self.query_one(ContentSwitcher).current = name
        side = self.query_one("#side")
        title = Text()
        for key, label in SIDE_VIEWS.items():
            title.append(f" {label} ", "reverse bold" if key == name else "dim")
        side.border_title = title
        self.header_clock.refresh_waterfall()

    @property
    def layout_name(self) -> str:
        """The split shown: `split`, `detail` (wide detail) or `tree` (tree only)."""
        return next((name for name in LAYOUTS if self.has_class(f"-layout-{name}")), "split")

    def action_cycle_layout(self) -> None:
        """Tree and detail → wide detail → tree only → tree and detail."""
        names = list(LAYOUTS)
        wanted = names[(names.index(self.layout_name) + 1) % len(names)]
        for name in names:
            self.set_class(name == wanted, f"-layout-{name}")
        self.notify(f"Layout: {LAYOUTS[wanted]}", timeout=2)

    @on(Click, "#side")
    def _title_clicked(self, event: Click) -> None:
        """A click on the right pane's title row picks the view named under it (`v` cycles)."""
        if event.widget is not self.query_one("#side") or event.y != 0:
            return
        start = 1  # the title follows the border's first cell
        for key, label in SIDE_VIEWS.items():
            width = len(label) + 2
            if start <= event.x < start + width:
                self.show_view(key)
                return
            start += width

    def action_cycle_view(self) -> None:
        """Detail → Findings → Waterfall → Detail."""
        views = list(SIDE_VIEWS)
        self.show_view(views[(views.index(self.view) + 1) % len(views)])

    @on(FindingsList.Chosen)
    def _finding_chosen(self, event: FindingsList.Chosen) -> None:
        index = event.finding.event_index
        if index is None:
            return
        self.playback._manual()
        self.playback.go_to(index + 1)
        self.playback.follow = False  # the cursor goes to the finding's event, not the newest node
        self.show_view("detail")
        self.tree.focus()
        self.playback.move_cursor(self.tree.reveal(index))

    # -- filter ------------------------------------------------------------------------------

    # -- routing -----------------------------------------------------------------------------

    async def run_palette_action(self, action: str) -> None:
        """An action chosen in the command palette. A cause action runs even where its key is
        hidden, so that it says why it cannot (Textual would drop it without a word)."""
        if action in self.cause_actions.CAUSE_ACTIONS:
            getattr(self.cause_actions, f"action_{action}")()
        else:
            await self.run_action(action)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.tree_filter.submitted(event)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.diagnosing.worker_changed(event)
        self.tree_filter.prepared(event)


def _routed(owner: str, name: str) -> Callable[[InspectorScreen], Awaitable[Any] | Any]:
    def action(screen: InspectorScreen) -> Awaitable[Any] | Any:
        return getattr(getattr(screen, owner), f"action_{name}")()

    action.__name__ = action.__qualname__ = f"action_{name}"
    action.__doc__ = f"The `{name}` key, run by the screen's `{owner}`."
    return action


for _action in ACTIONS:  # each key's `action_…` runs on the collaborator the table names
    if _action.owner not in ("app", "screen"):
        setattr(InspectorScreen, f"action_{_action.name}", _routed(_action.owner, _action.name))
