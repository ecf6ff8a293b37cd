"""The inspector screen: tree, detail, header; views, filter, copy, save and open.

Its other jobs are mixed in from their own modules: playback and failure stops
(tui/mcptui/ui/screens/playback.py), diagnosis and probes (diagnosing.py), live-run keys
(live_actions.py), re-runs that act on a likely cause (cause_actions.py).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, Tree
from textual.widgets.tree import TreeNode
from textual.worker import Worker, WorkerState, get_current_worker

from mcptui.io.recording import (
    DEFAULT_RECORD_DIR,
    make_header,
    recording_name,
    save_recording,
    unused_path,
)
from mcptui.model.diagnosis import Diagnosis, ItemKey
from mcptui.model.reducer import is_failure_event
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import item_status
from mcptui.model.textsafe import visible
from mcptui.model.timing import item_timing
from mcptui.sources.session import Session
from mcptui.ui.gc_pacing import CHECK_SECONDS, CollectorPacer
from mcptui.ui.screens.cause_actions import CAUSE_BINDINGS, CauseActionsMixin
from mcptui.ui.screens.clock import CLOCK_SECONDS, ClockMixin
from mcptui.ui.screens.diagnosing import DIAGNOSE_EVERY, DiagnosisMixin
from mcptui.ui.screens.live_actions import LiveActionsMixin
from mcptui.ui.screens.loading import LoadingMixin
from mcptui.ui.screens.playback import TICK_SECONDS, PlaybackMixin
from mcptui.ui.screens.share_actions import SHARE_BINDINGS, ShareActionsMixin
from mcptui.ui.widgets.detail import MAX_JSON_CHARS, DetailPane, pretty_json
from mcptui.ui.widgets.event_tree import EventTree, NodeRef
from mcptui.ui.widgets.findings import FindingsList
from mcptui.ui.widgets.footer import FittingFooter
from mcptui.ui.widgets.status import StatusHeader
from mcptui.ui.widgets.waterfall import Waterfall

OpenAt = int | Literal["failure", "end"] | None
"""Where a screen opens, paused: at a step, on the first failure, at the end with the first
failure selected, or (None) as usual."""

SIDE_VIEWS = {"detail": "Detail", "findings": "Findings", "waterfall": "Waterfall"}
"""The right pane's views, in the order `v` cycles through them."""


class InspectorScreen(
    PlaybackMixin,
    ClockMixin,
    DiagnosisMixin,
    LiveActionsMixin,
    CauseActionsMixin,
    ShareActionsMixin,
    LoadingMixin,
    Screen[None],
):
    """One session, shown as it stood at the current step."""

    BINDINGS = [
        # Short footer texts; the footer shows what fits, essentials first (widgets/footer.py).
        Binding("space", "toggle_play", "Play", priority=True, id="toggle_play", key_display="␣"),
        Binding(
            "right,n", "step_forward", "Step", priority=True, id="step_forward", key_display="→"
        ),
        Binding("left,b", "step_back", "Back", priority=True, id="step_back", key_display="←"),
        Binding("home,g", "first", "First", priority=True, id="first", key_display="⇤"),
        Binding("end,G", "last", "Last", priority=True, id="last", key_display="⇥"),
        Binding("f", "next_failure", "Fail▸", id="next_failure"),
        Binding("F", "previous_failure", "◂Fail", id="previous_failure"),
        Binding("plus,equals_sign", "faster", "Fast", id="faster", key_display="+"),
        Binding("minus", "slower", "Slow", id="slower", key_display="-"),
        Binding("i", "instant", "Instant", id="instant"),
        # Priority, so `/` opens the box before the keys typed after it are routed: a burst
        # like `/search` is the filter's text, not `s`ave (action_filter focuses at once).
        Binding("slash", "filter", "Filter", priority=True, id="filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
        Binding("v", "cycle_view", "View", id="cycle_view"),
        Binding("p", "probe", "Probe", id="probe"),
        Binding("c", "copy", "Copy", id="copy"),
        Binding("m", "more", "More", show=False, id="more"),
        # Priority for the same reason: a path pasted right after `s` / `o` goes to the prompt.
        Binding("s", "save", "Save", priority=True, id="save"),
        Binding("o", "open", "Open", priority=True, id="open"),
        *SHARE_BINDINGS,
        # Live runs only (hidden otherwise):
        Binding("a", "approve", "Approve", id="approve"),
        Binding("d", "deny", "Deny", id="deny"),
        Binding("x", "cancel_run", "Cancel run", id="cancel_run"),
        Binding("r", "rerun", "Re-run", id="rerun"),
        # Where a failure's likely cause can be acted on from a live run (hidden otherwise):
        *CAUSE_BINDINGS,
    ]

    def __init__(
        self,
        session: Session,
        *,
        paused: bool = False,
        clock: type[time.monotonic] | None = None,  # type: ignore[valid-type]
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
        self.follow = True
        """Keep the cursor on the newest event; off once the user moves it in the tree."""
        self._placed: TreeNode[NodeRef] | None = None
        """The node the cursor was last put on by following (its highlight is not the user's)."""
        self._moves_seen = 0
        """The tree's count of user moves, as of the last UserMoved message handled."""
        self.filter_text = ""
        self.answered: set[str] = set()
        """Approval requests answered from this screen (each is answered once)."""
        self._shown_live_keys: frozenset[str] = frozenset()
        self.diagnosis: Diagnosis | None = None
        """Findings, timing and likely causes of the events so far; None until checked."""
        self._diagnosed_total = -1
        self._diagnose_again = False
        self.probes: dict[ItemKey, object] = {}
        """Probe reports (mcptui.probe.ServerReport) of failed calls, by (response, item) key."""
        self.probing: set[ItemKey] = set()
        self._can_probe = False
        self._detail_ref: NodeRef | None = None
        """What the detail pane shows (`m` shows more of it until the selection changes)."""
        self.detail_step: int | None = None
        """The step the detail pane was last drawn at (None: not yet drawn)."""
        self.land_from = 0
        """Failures from this event on are landed on when the run ends (see playback)."""
        self.collector = CollectorPacer()
        """Keeps the collector's full pass out of steps (tui/mcptui/ui/gc_pacing.py)."""

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="status")
        with Horizontal(id="panes"):
            yield EventTree(self.session.timeline, id="tree")
            # A ContentSwitcher, not TabbedContent: measured, the tabs' extra layout levels
            # cost every step about 1.5 ms (bench/tui_open.py).
            with ContentSwitcher(id="side", initial="detail"):
                yield DetailPane(id="detail")
                yield FindingsList(id="findings")
                yield Waterfall(id="waterfall")
        yield Input(
            placeholder="filter: event type or content; Enter to apply, Esc to clear", id="filter"
        )
        yield FittingFooter()  # ctrl+p still opens the command palette

    def _open_at(self, where: OpenAt) -> None:
        if where in ("failure", "end"):
            self.open_on_failure(whole=where == "end")
        elif isinstance(where, int):
            self.go_to(where)

    @property
    def tree(self) -> EventTree:
        return self.query_one(EventTree)

    @property
    def detail(self) -> DetailPane:
        return self.query_one(DetailPane)

    def on_mount(self) -> None:
        self.query_one("#filter", Input).display = False
        self.tree.rebuild()
        self.tree.focus()
        reading = self.start_loading()  # a recording's rest, read between frames
        where = self.open_at
        if not self.start_paused:
            self.session.player.play(self.session.timeline.position, self.clock())
        elif where is not None and (
            not reading or (type(where) is int and where <= self.session.timeline.total)
        ):
            self.open_at = None  # there now, not again once all is read
            self.call_after_refresh(self._open_at, where)  # once laid out
        self.opened_at = self.session.timeline.position
        self.refresh_header()
        self.set_interval(TICK_SECONDS, self._tick, name="playback")
        self.set_interval(CLOCK_SECONDS, self.advance_clock, name="clock")
        self.query_one(FindingsList).show([], pending=True)
        self.show_view("detail")
        self.diagnose()
        self.set_interval(DIAGNOSE_EVERY, self.diagnose, name="diagnose")
        self.collector.hold()
        self.set_interval(CHECK_SECONDS, self.collector.check, name="collector")

    def on_unmount(self) -> None:
        self.collector.release()

    # -- detail ------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[NodeRef]) -> None:
        self.collector.stepped()
        # Our own moves are shown already; a highlight the cursor has left since is stale (it
        # came after a failure stop had put the cursor and detail elsewhere: a CI flake).
        if event.node is not self._placed and event.node is self.tree.cursor_node:
            self.show_detail(event.node)

    @on(EventTree.UserMoved)
    def _user_moved(self) -> None:
        self.follow = False
        self._placed = None
        self._moves_seen = self.tree.user_moves

    def show_detail(self, node: TreeNode[NodeRef] | None) -> None:
        ref = node.data if node is not None else None
        self.detail_step = self.session.timeline.position
        self.detail.zero = self.session.player.zero or 0.0
        if ref != self._detail_ref:  # a new selection starts with the first screenfuls
            self._detail_ref = ref
            self.detail.limit = MAX_JSON_CHARS
            self.detail.scroll_home(animate=False, immediate=True)
        if ref is None:
            self.detail.show_nothing()
            return
        state = self.session.timeline.state
        if ref.response >= len(state.responses):
            return
        resp = state.responses[ref.response]
        group = self.tree.group_of(ref)
        index = self._event_index(ref)
        diagnosis = self.diagnosis
        self._update_probe_key()
        self._update_cause_keys()
        if ref.kind == "response" or (ref.kind == "error" and ref.item is None):
            self.detail.show_response(
                resp,
                causes=diagnosis.causes(resp.key) if diagnosis and resp.failed else [],
                actions=self.response_actions(),
            )
        elif index is not None and (group is None or group.count == 1):
            events = self.session.timeline.events
            event = events[index]
            self.detail.show_event(
                event,
                events[index - 1] if index else None,
                is_failure_event(event),
                diagnosis.by_event.get(index, []) if diagnosis else [],
            )
        elif ref.item is not None and ref.item < len(resp.items):
            item = resp.items[ref.item]
            if group is not None:
                self.detail.show_group(group, self.session.timeline.events, item)
            else:
                self.show_item(resp, item)

    def show_item(self, resp: ResponseState, item: ItemState) -> None:
        """An item with, for a failure, its likely causes and the probe's result."""
        key = (resp.key, item.key)
        diagnosis = self.diagnosis
        shown = item_status(resp, item)
        # As of this step (the checks' timing is the whole stream's), running on with the clock.
        timing = item_timing(item, self.session.timeline.events, shown.word).until(self.tree.now)
        probe = None
        if key in self.probes:
            # Imported only once there is a report: it loads the mcp SDK (measured 1.4 s),
            # which showing the first failed item must not wait for.
            from mcptui.probe.view import render as render_probe

            probe = render_probe(self.probes[key])  # type: ignore[arg-type]
        elif key in self.probing:
            probe = self.probing_note(item.name)
        self.detail.show_item(
            item,
            shown,
            causes=diagnosis.causes(*key) if diagnosis and item.failed else [],
            timing=timing,
            probe=probe,
            can_probe=self._probe_target() is not None,
            no_probe=self.no_probe_reason(),
            actions=self.item_actions() if item.failed else [],
        )

    def _event_index(self, ref: NodeRef) -> int | None:
        """The timeline event a node stands for: itself, or the first of its group."""
        if ref.kind == "group":
            group = self.tree.group_of(ref)
            return group.first if group is not None else None
        return ref.event

    def selected_event_json(self) -> str | None:
        node = self.tree.cursor_node
        ref = node.data if node is not None else None
        if ref is None:
            return None
        index = self._event_index(ref)
        if index is not None:
            return pretty_json(self.session.timeline.events[index].raw)
        resp = self.session.timeline.state.responses[ref.response]
        if ref.kind == "response":  # the Response object as last sent (created → completed)
            events = self.session.timeline.events
            bodies = [
                events[i].raw["response"]
                for i in resp.events
                if isinstance(events[i].raw.get("response"), dict)
            ]
            return pretty_json(bodies[-1]) if bodies else None
        if ref.kind == "error":
            error = resp.items[ref.item].error if ref.item is not None else resp.error
            return pretty_json(error)
        if ref.kind == "item" and ref.item is not None:
            item = resp.items[ref.item]
            return pretty_json(item.final or item.added or {})
        return None

    # -- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys typed into the filter box are text, not commands; live keys need a live run;
        probing needs a failed MCP call selected; cause actions, a request they can change."""
        if action in self.LIVE_ACTIONS and action not in self._live_keys():
            return False
        if action in self.CAUSE_ACTIONS and action not in self._cause_keys:
            return False
        if action == "probe" and not self._can_probe:
            return False
        focused = self.focused  # (asked for every key at every refresh of the footer: no query)
        return not (focused is not None and focused.id == "filter" and action != "clear_filter")

    # -- views -------------------------------------------------------------------------------

    @property
    def view(self) -> str:
        """The right pane's current view: `detail`, `findings` or `waterfall`."""
        return self.query_one(ContentSwitcher).current or "detail"

    def show_view(self, name: str) -> None:
        self.query_one(ContentSwitcher).current = name
        side = self.query_one("#side")
        title = Text()
        for key, label in SIDE_VIEWS.items():
            title.append(f" {label} ", "reverse bold" if key == name else "dim")
        side.border_title = title
        self.refresh_waterfall()

    def action_cycle_view(self) -> None:
        """Detail → Findings → Waterfall → Detail."""
        views = list(SIDE_VIEWS)
        self.show_view(views[(views.index(self.view) + 1) % len(views)])

    @on(FindingsList.Chosen)
    def _finding_chosen(self, event: FindingsList.Chosen) -> None:
        index = event.finding.event_index
        if index is None:
            return
        self._manual()
        self.go_to(index + 1)
        self.follow = False  # the cursor goes to the finding's event, not the newest node
        self.show_view("detail")
        self.tree.focus()
        self.move_cursor(self.tree.reveal(index))

    def action_more(self) -> None:
        """Five times as much of the long texts and JSON of the selection."""
        self.detail.limit *= 5
        self.show_detail(self.tree.cursor_node)

    def action_copy(self) -> None:
        text = self.selected_event_json()
        if text is None:
            self.notify("Select an event, item or response to copy its JSON.", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters of JSON.")

    def default_save_path(self) -> Path:
        """Named as automatic recordings are, in the same folder; never an existing file."""
        resp = self.session.timeline.state.current
        name = recording_name(resp.id if resp else None, datetime.now())
        return unused_path(DEFAULT_RECORD_DIR / name)

    def save_to(self, path: Path, *, overwrite: bool = False) -> Path:
        header = make_header("saved", original=self.session.source)
        if self.session.header:
            for key in ("request", "endpoint", "http"):
                if key in self.session.header:
                    header[key] = self.session.header[key]
        return save_recording(path, header, self.session.timeline.events, overwrite=overwrite)

    def action_save(self) -> None:
        from mcptui.ui.screens.prompt import ConfirmScreen, PromptScreen

        def write(path: Path, overwrite: bool = False) -> None:
            try:
                written = self.save_to(path, overwrite=overwrite)
            except OSError as exc:
                self.notify(f"Could not save: {exc}", severity="error")
                return
            self.notify(f"Saved {self.session.timeline.total:,} events to {written}")

        def answered(answer: str | None) -> None:
            if not answer:
                return
            path = Path(answer).expanduser()
            if not path.exists():
                write(path)
                return
            question = f"{visible(str(path))} exists. Overwrite it?"
            self.app.push_screen(
                ConfirmScreen(question),
                lambda yes: (
                    write(path, overwrite=True)
                    if yes
                    else self.notify(f"Not saved: {path} is unchanged.", severity="warning")
                ),
            )

        self.app.push_screen(
            PromptScreen("Save recording as", str(self.default_save_path())), answered
        )

    def action_open(self) -> None:
        from mcptui.ui.screens.prompt import PromptScreen

        def done(answer: str | None) -> None:
            if answer:
                self.app.open_path(answer)  # type: ignore[attr-defined]

        self.app.push_screen(PromptScreen("Open recording or stream dump", ""), done)

    # -- filter ------------------------------------------------------------------------------

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.value = self.filter_text
        # Now, not after the next refresh (box.focus() is deferred): keys typed in the same
        # burst as `/` (a fast typist, a paste) belong to the filter, not to `s`ave or `c`opy.
        self.set_focus(box)

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = False
        if self.filter_text:
            self.filter_text = ""
            self.tree.set_filter("")
            self.refresh_header()
        self.tree.focus()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.filter_text = event.value.strip()
        event.input.display = False
        self.tree.focus()
        if not self.filter_text:
            self._apply_filter("")
            return
        # The events' texts are written in a thread: the app answers keys (q) meanwhile.
        wanted = self.filter_text
        tree = self.tree

        def prepare() -> str | None:
            worker = get_current_worker()
            return wanted if tree.prepare_filter(lambda: worker.is_cancelled) else None

        self.run_worker(prepare, thread=True, group="filter", exclusive=True, exit_on_error=False)

    @on(Worker.StateChanged)
    def _filter_prepared(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "filter" or event.state != WorkerState.SUCCESS:
            return
        if worker.result is not None and worker.result == self.filter_text:
            self._apply_filter(worker.result)

    def _apply_filter(self, text: str) -> None:
        self.tree.set_filter(text)
        self.refresh_header()
        if text:
            shown = self.tree.filter_matches
            self.notify(Text(f"{shown:,} events match {visible(text)!r}"))
