"""The inspector screen: tree, detail, header; stepping, playback, failures, filter, save.

Playback runs on a 30 Hz timer that asks the session's `Player` where the cursor should be and
applies the steps in between as one batch: the tree then fixes only the nodes those steps
touched. Jumps longer than `REBUILD_AFTER` steps seek directly and rebuild the (small, lazily
filled) tree instead.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Input, Tree
from textual.widgets.tree import TreeNode
from textual.worker import Worker, WorkerState

from tui.model.causes import ProbeEvidence, mcp_entries
from tui.model.diagnosis import Diagnosis, ItemKey, diagnose_events, diagnose_path
from tui.model.reducer import is_failure_event
from tui.model.state import ItemState, ResponseState, parse_json_text
from tui.model.summary import failures
from tui.model.textsafe import visible
from tui.recording import make_header, save_recording
from tui.session import Session
from tui.widgets.detail import DetailPane, pretty_json
from tui.widgets.event_tree import EventTree, NodeRef
from tui.widgets.findings import FindingsList
from tui.widgets.status import StatusHeader
from tui.widgets.waterfall import Waterfall

if TYPE_CHECKING:
    from tui.sources.live import LiveRun

APPROVAL_REQUEST = "mcp_approval_request"

REBUILD_AFTER = 400
TICK_SECONDS = 1 / 30
DIAGNOSE_EVERY = 1.0
"""Seconds between re-running the checks while events keep arriving (in a thread)."""
CHILD_AFTER = 20_000
"""A replayed file with this many events is diagnosed in a child process, which costs the UI's
stepping nothing (a thread would compete with it for the GIL): see tui/child.py."""
PROBE_TIMEOUT = 60.0
"""The probe waits as long as OpenAI would (about 60 s) before calling a tool timed out."""
SIDE_VIEWS = {"detail": "Detail", "findings": "Findings", "waterfall": "Waterfall"}
"""The right pane's views, in the order `v` cycles through them."""


def probe_evidence(report: object) -> ProbeEvidence | None:
    """What a probe report (tui.probe.ServerReport) says, for the likely-cause rules."""
    from tui.probe import evidence_of

    return evidence_of(report)  # type: ignore[arg-type]


class InspectorScreen(Screen[None]):
    """One session, shown as it stood at the current step."""

    BINDINGS = [
        # Short footer texts so that every binding fits on a 120-column line.
        Binding("space", "toggle_play", "Play", priority=True, id="toggle_play", key_display="␣"),
        Binding("right,n", "step_forward", "Step", priority=True, id="step_forward",
                key_display="→"),
        Binding("left,b", "step_back", "Back", priority=True, id="step_back", key_display="←"),
        Binding("home,g", "first", "First", priority=True, id="first", key_display="⇤"),
        Binding("end,G", "last", "Last", priority=True, id="last", key_display="⇥"),
        Binding("f", "next_failure", "Fail▸", id="next_failure"),
        Binding("F", "previous_failure", "◂Fail", id="previous_failure"),
        Binding("plus,equals_sign", "faster", "Fast", id="faster", key_display="+"),
        Binding("minus", "slower", "Slow", id="slower", key_display="-"),
        Binding("i", "instant", "Instant", id="instant"),
        Binding("slash", "filter", "Filter", id="filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
        Binding("v", "cycle_view", "View", id="cycle_view"),
        Binding("p", "probe", "Probe", id="probe"),
        Binding("c", "copy", "Copy", id="copy"),
        Binding("s", "save", "Save", id="save"),
        Binding("o", "open", "Open", id="open"),
        # Live runs only (hidden otherwise):
        Binding("a", "approve", "Approve", id="approve"),
        Binding("d", "deny", "Deny", id="deny"),
        Binding("x", "cancel_run", "Cancel run", id="cancel_run"),
        Binding("r", "rerun", "Re-run", id="rerun"),
    ]
    LIVE_ACTIONS = frozenset({"approve", "deny", "cancel_run", "rerun"})

    def __init__(self, session: Session, *, paused: bool = False,
                 clock: type[time.monotonic] | None = None) -> None:  # type: ignore[valid-type]
        super().__init__()
        self.session = session
        self.start_paused = paused
        self.clock = clock or time.monotonic
        self.follow = True
        """Keep the cursor on the newest event; off once the user moves it in the tree."""
        self._placed: TreeNode[NodeRef] | None = None
        """The node the cursor was last put on by following (its highlight is not the user's)."""
        self.filter_text = ""
        self.answered: set[str] = set()
        """Approval requests answered from this screen (each is answered once)."""
        self._shown_live_keys: frozenset[str] = frozenset()
        self.diagnosis: Diagnosis | None = None
        """Findings, timing and likely causes of the events so far; None until checked."""
        self._diagnosed_total = -1
        self._diagnose_again = False
        self.probes: dict[ItemKey, object] = {}
        """Probe reports (tui.probe.ServerReport) of failed calls, by (response, item) key."""
        self.probing: set[ItemKey] = set()
        self._can_probe = False

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
        yield Input(placeholder="filter: event type or content; Enter to apply, Esc to clear",
                    id="filter")
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p still opens it

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
        if not self.start_paused:
            self.session.player.play(self.session.timeline.position, self.clock())
        self.refresh_header()
        self.set_interval(TICK_SECONDS, self._tick, name="playback")
        self.query_one(FindingsList).show([], pending=True)
        self.show_view("detail")
        self.diagnose()
        self.set_interval(DIAGNOSE_EVERY, self.diagnose, name="diagnose")

    # -- diagnosis ---------------------------------------------------------------------------

    def diagnose(self, *, force: bool = False) -> None:
        """Check the events so far, when there are new ones (or `force`): in a thread, or in a
        child process for a big replay."""
        timeline = self.session.timeline
        if timeline.total == self._diagnosed_total and not force:
            return
        if any(w.group == "diagnose" and w.is_running for w in self.workers):
            self._diagnose_again = True  # when the running check ends: nothing is dropped
            return
        self._diagnose_again = False
        self._diagnosed_total = timeline.total
        events = list(timeline.events)
        request = (self.session.header or {}).get("request")
        probes = {key: evidence for key, report in self.probes.items()
                  if (evidence := probe_evidence(report)) is not None}
        options = {"complete": not self._live_running(), "probes": probes,
                   "request": request if isinstance(request, dict) else None}
        source = self.session.source
        if not self.session.live and len(events) >= CHILD_AFTER and Path(source).is_file():
            from tui.child import in_child

            self.run_worker(in_child(diagnose_path, source, **options), group="diagnose",
                            exit_on_error=False)
            return

        def work() -> Diagnosis:
            return diagnose_events(events, timeline.snapshots, **options)

        self.run_worker(work, thread=True, group="diagnose", exit_on_error=False)

    def _live_running(self) -> bool:
        return self.live is not None and any(
            w.group == "live" and w.is_running for w in self.app.workers)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "diagnose":
            return
        if event.state == WorkerState.SUCCESS:
            self.diagnosed(worker.result)  # type: ignore[arg-type]
        elif event.state == WorkerState.ERROR:
            self.notify(f"Checking the stream failed: {worker.error!r}", severity="error")
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR) and self._diagnose_again:
            self.diagnose(force=True)

    def diagnosed(self, diagnosis: Diagnosis) -> None:
        self.diagnosis = diagnosis
        self.tree.set_diagnosis(diagnosis)
        self.query_one(FindingsList).show(diagnosis.findings)
        self.query_one(Waterfall).show(diagnosis.timing)
        self.refresh_header()
        self.show_detail(self.tree.cursor_node)

    # -- playback ----------------------------------------------------------------------------

    def _tick(self) -> None:
        player = self.session.player
        timeline = self.session.timeline
        player.extend(timeline.events)
        if not player.playing:
            return
        target = min(player.target(timeline.position, self.clock()), timeline.total)
        if target > timeline.position:
            self.go_to(target)
        elif timeline.at_end and not player.instant:
            player.pause()
            self.refresh_header()

    def go_to(self, target: int) -> None:
        """Move to step `target`, updating only what changed (or rebuilding after a jump)."""
        timeline = self.session.timeline
        target = max(0, min(target, timeline.total))
        if abs(target - timeline.position) > REBUILD_AFTER:
            timeline.seek(target)
            self.tree.rebuild()
        else:
            responses: set[ResponseState] = set()
            items: set[ItemState] = set()
            while timeline.position != target:
                forward = timeline.position < target
                touched = timeline.step_forward() if forward else timeline.step_back()
                if touched is None:
                    break
                resp, item = touched
                if resp is not None:
                    responses.add(resp)
                if item is not None:
                    items.add(item)
            self.tree.sync(responses, items)
        self.after_step()

    def after_step(self) -> None:
        self.refresh_header()
        if self.live is not None and self._live_keys() != self._shown_live_keys:
            self._shown_live_keys = self._live_keys()
            self.refresh_bindings()
        if self.follow:
            self.call_after_refresh(self._follow_newest)
        else:
            self.show_detail(self.tree.cursor_node)

    def _follow_newest(self) -> None:
        timeline = self.session.timeline
        node = self.tree.node_for_event(timeline.position - 1) if timeline.position else None
        self.move_cursor(node)

    def move_cursor(self, node: TreeNode[NodeRef] | None) -> None:
        tree = self.tree
        tree._tree_lines  # noqa: B018 -- build line numbers for freshly added nodes
        if node is not None:
            self._placed = node
            tree.move_cursor(node)
        self.show_detail(node or tree.cursor_node)

    def refresh_header(self) -> None:
        player = self.session.player
        timeline = self.session.timeline
        if self.session.live:
            mode = "live: following" if player.playing else "live: paused (space follows)"
        else:
            mode = ("playing " if player.playing else "paused ") + player.label
        if self.filter_text:
            mode += f"  filter: {visible(self.filter_text)}"
        found = failures(timeline.state, timeline.events)
        self.query_one(StatusHeader).show(
            self.session, len(found), mode,
            None if self.diagnosis is None else self.diagnosis.findings)

    # -- detail ------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[NodeRef]) -> None:
        if event.node is not self._placed:  # our own moves are shown already
            self.show_detail(event.node)

    @on(EventTree.UserMoved)
    def _user_moved(self) -> None:
        self.follow = False
        self._placed = None

    def show_detail(self, node: TreeNode[NodeRef] | None) -> None:
        ref = node.data if node is not None else None
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
        if ref.kind == "response":
            self.detail.show_response(
                resp, causes=diagnosis.causes(resp.key) if diagnosis and resp.failed else [])
        elif index is not None and (group is None or group.count == 1):
            events = self.session.timeline.events
            event = events[index]
            self.detail.show_event(event, events[index - 1] if index else None,
                                   is_failure_event(event),
                                   diagnosis.by_event.get(index, []) if diagnosis else [])
        elif ref.item is not None and ref.item < len(resp.items):
            item = resp.items[ref.item]
            if group is not None:
                self.detail.show_group(group, self.session.timeline.events, item)
            else:
                self.show_item(resp, item)

    def show_item(self, resp: ResponseState, item: ItemState) -> None:
        """An item with, for a failure, its likely causes and the probe's result."""
        from tui.probe_view import render as render_probe

        key = (resp.key, item.key)
        diagnosis = self.diagnosis
        timing = diagnosis.item_timing.get(key) if diagnosis else None
        probe = None
        if key in self.probes:
            probe = render_probe(self.probes[key])  # type: ignore[arg-type]
        elif key in self.probing:
            probe = Text(f"probing {visible(item.name or 'the tool')}… (up to "
                         f"{PROBE_TIMEOUT:g} s, as long as OpenAI waits)", "cyan")
        self.detail.show_item(
            item, causes=diagnosis.causes(*key) if diagnosis and item.failed else [],
            tool_seconds=timing.tool_seconds if timing else None, probe=probe,
            can_probe=self._probe_target() is not None)

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
        if ref.kind == "item" and ref.item is not None:
            item = self.session.timeline.state.responses[ref.response].items[ref.item]
            return pretty_json(item.final or item.added or {})
        return None

    # -- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys typed into the filter box are text, not commands; live keys need a live run;
        probing needs a failed MCP call selected."""
        if action in self.LIVE_ACTIONS and action not in self._live_keys():
            return False
        if action == "probe" and not self._can_probe:
            return False
        boxes = self.query("#filter")
        return not (boxes and boxes.first().has_focus and action != "clear_filter")

    @property
    def live(self) -> LiveRun | None:
        return getattr(self.app, "live", None)

    def _live_keys(self) -> frozenset[str]:
        """Live actions that make sense now: the footer shows only these."""
        live = self.live
        if live is None:
            return frozenset()
        keys = {"rerun"}
        if self.pending_approval() is not None:
            keys |= {"approve", "deny"}
        if live.current.background and live.current.id and not live.current.terminal:
            keys.add("cancel_run")
        return frozenset(keys)

    def pending_approval(self) -> tuple[ResponseState, ItemState] | None:
        """The selected approval request, else the newest one not answered yet."""
        state = self.session.timeline.state
        node = self.tree.cursor_node
        ref = node.data if node is not None else None
        if ref is not None and ref.item is not None and ref.response < len(state.responses):
            resp = state.responses[ref.response]
            item = resp.items[ref.item] if ref.item < len(resp.items) else None
            if item is not None and item.type == APPROVAL_REQUEST and \
                    item.item_id not in self.answered:
                return resp, item
        for resp in reversed(state.responses):
            for item in reversed(resp.items):
                if item.type == APPROVAL_REQUEST and item.item_id not in self.answered:
                    return resp, item
        return None

    def _answer(self, approve: bool) -> None:
        live, pending = self.live, self.pending_approval()
        if live is None:
            return
        if pending is None or pending[0].id is None or pending[1].item_id is None:
            self.notify("No approval request to answer.", severity="warning")
            return
        resp, item = pending
        self.answered.add(item.item_id)
        self.follow = True
        self.app.send(live.approval_request(resp.id, item.item_id, approve))
        verb = "Approved" if approve else "Denied"
        self.notify(f"{verb} {visible(item.name or 'the call')}: sending the follow-up.")

    # -- probe -------------------------------------------------------------------------------

    def _probe_target(self) -> tuple[ResponseState, ItemState] | None:
        """The selected node's item when it is a failed mcp_call."""
        node = self.tree.cursor_node
        ref = node.data if node is not None else None
        state = self.session.timeline.state
        if ref is None or ref.item is None or ref.response >= len(state.responses):
            return None
        resp = state.responses[ref.response]
        item = resp.items[ref.item] if ref.item < len(resp.items) else None
        if item is None or item.type != "mcp_call" or not item.failed or not item.name:
            return None
        return resp, item

    def _update_probe_key(self) -> None:
        can_probe = self._probe_target() is not None
        if can_probe != self._can_probe:
            self._can_probe = can_probe
            self.refresh_bindings()

    def tool_entry(self, server_label: str | None) -> tuple[dict[str, object], bool] | None:
        """The request's `mcp` tool entry for a server, and whether its secrets were redacted
        (a recording keeps no header values; a live run has the real request)."""
        live = self.live
        sources: list[tuple[object, bool]] = []
        if live is not None and live.first_request is not None:
            sources.append((live.first_request, False))
        sources.append(((self.session.header or {}).get("request"), True))
        for request, redacted in sources:
            for tool in mcp_entries(request):
                if tool.get("server_label") == server_label:
                    return tool, redacted
        return None

    def action_probe(self) -> None:
        target = self._probe_target()
        if target is None:
            self.notify("Select a failed mcp_call to probe it.", severity="warning")
            return
        resp, item = target
        key = (resp.key, item.key)
        if key in self.probing:
            return
        found = self.tool_entry(item.server_label)
        if found is None:
            self.notify(f"The request has no mcp tool for server "
                        f"{visible(item.server_label or '?')!r}: nothing to probe.",
                        severity="warning")
            return
        entry, redacted = found
        arguments = parse_json_text(item.arguments or "{}")
        self.probing.add(key)
        self.probes.pop(key, None)
        self.show_detail(self.tree.cursor_node)
        self.run_worker(self._probe(key, entry, item.name or "", arguments, redacted),
                        group="probe", exit_on_error=False)

    async def _probe(self, key: ItemKey, entry: dict[str, object], name: str, arguments: object,
                     redacted: bool) -> None:
        from tui.probe import probe_call

        try:
            report = await probe_call(entry, name, arguments, timeout=PROBE_TIMEOUT,
                                      redacted=redacted)
        finally:
            self.probing.discard(key)
        self.probes[key] = report
        self.diagnose(force=True)  # the probe's evidence may confirm a cause
        self.show_detail(self.tree.cursor_node)

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

    def action_approve(self) -> None:
        self._answer(True)

    def action_deny(self) -> None:
        self._answer(False)

    def action_cancel_run(self) -> None:
        if self.live is not None:
            self.app.run_live(self.live.cancel(), "cancel")

    def action_rerun(self) -> None:
        live = self.live
        if live is None or live.first_request is None:
            self.notify("Nothing to re-run.", severity="warning")
            return
        self.follow = True
        self.app.send(live.first_request)
        self.notify("Sending the request again: a new response root.")

    def action_toggle_play(self) -> None:
        player = self.session.player
        timeline = self.session.timeline
        if player.playing:
            player.pause()
        else:
            if timeline.at_end and not self.session.live:
                self.go_to(0)
            self.follow = True
            player.play(timeline.position, self.clock())
        self.refresh_header()

    def _manual(self) -> None:
        self.session.player.pause()
        self.follow = True

    def action_step_forward(self) -> None:
        self._manual()
        self.go_to(self.session.timeline.position + 1)

    def action_step_back(self) -> None:
        self._manual()
        self.go_to(self.session.timeline.position - 1)

    def action_first(self) -> None:
        self._manual()
        self.go_to(0)

    def action_last(self) -> None:
        self._manual()
        self.go_to(self.session.timeline.total)

    def action_next_failure(self) -> None:
        timeline = self.session.timeline
        ahead = [i for i in timeline.failure_indexes if i + 1 > timeline.position]
        if not ahead:
            self.notify("No failure after this step.", severity="warning")
            return
        self._manual()
        self.go_to(ahead[0] + 1)

    def action_previous_failure(self) -> None:
        timeline = self.session.timeline
        behind = [i for i in timeline.failure_indexes if i + 1 < timeline.position]
        if not behind:
            self.notify("No failure before this step.", severity="warning")
            return
        self._manual()
        self.go_to(behind[-1] + 1)

    def action_faster(self) -> None:
        self.session.player.faster(self.session.timeline.position, self.clock())
        self.refresh_header()

    def action_slower(self) -> None:
        self.session.player.slower(self.session.timeline.position, self.clock())
        self.refresh_header()

    def action_instant(self) -> None:
        player = self.session.player
        player.instant = True
        player.play(self.session.timeline.position, self.clock())
        self.follow = True
        self.refresh_header()

    def action_copy(self) -> None:
        text = self.selected_event_json()
        if text is None:
            self.notify("Select an event to copy its JSON.", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters of JSON.")

    def default_save_path(self) -> Path:
        resp = self.session.timeline.state.current
        name = (resp.id if resp and resp.id else "session").replace("/", "_")
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path("mcptui-recordings") / f"{name}-{stamp}.jsonl"

    def save_to(self, path: Path) -> Path:
        header = make_header("saved", original=self.session.source)
        if self.session.header:
            for key in ("request", "endpoint", "http"):
                if key in self.session.header:
                    header[key] = self.session.header[key]
        return save_recording(path, header, self.session.timeline.events)

    def action_save(self) -> None:
        from tui.screens.prompt import PromptScreen

        def done(answer: str | None) -> None:
            if not answer:
                return
            try:
                written = self.save_to(Path(answer))
            except OSError as exc:
                self.notify(f"Could not save: {exc}", severity="error")
                return
            self.notify(f"Saved {self.session.timeline.total:,} events to {written}")

        self.app.push_screen(PromptScreen("Save recording as", str(self.default_save_path())),
                             done)

    def action_open(self) -> None:
        from tui.screens.prompt import PromptScreen

        def done(answer: str | None) -> None:
            if answer:
                self.app.open_path(answer)  # type: ignore[attr-defined]

        self.app.push_screen(PromptScreen("Open recording or stream dump", ""), done)

    # -- filter ------------------------------------------------------------------------------

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.value = self.filter_text
        box.focus()

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
        self.tree.set_filter(self.filter_text)
        self.tree.focus()
        self.refresh_header()
        if self.filter_text:
            shown = self.tree.filter_matches
            self.notify(Text(f"{shown:,} events match {visible(self.filter_text)!r}"))
