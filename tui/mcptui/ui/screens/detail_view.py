"""The detail pane's content: what the selection shows, as of the step shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets.tree import TreeNode

from mcptui.model.reducer import is_failure_event
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import item_status
from mcptui.model.textsafe import visible
from mcptui.model.timing import item_timing
from mcptui.ui.widgets.detail import MAX_JSON_CHARS, pretty_json
from mcptui.ui.widgets.event_tree import NodeRef

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host


class DetailView:
    """The detail pane's content: what the selection shows, as of the step shown."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self._detail_ref: NodeRef | None = None
        """What the detail pane shows (`m` shows more of it until the selection changes)."""
        self.detail_step: int | None = None
        """The step the detail pane was last drawn at (None: not yet drawn)."""

    def _waiting(self) -> str | None:
        """What a live source with nothing to show yet waits for (None: a replay)."""
        session = self.screen.session
        if session.timeline.total:
            return None
        if self.screen.live_actions.live is not None:
            return "Waiting for the response's first event: the request is on its way."
        if session.receiving is not None:
            return (
                f"Waiting for traffic: {visible(session.idle_hint)}"
                if session.idle_hint
                else ("Waiting for traffic.")
            )
        return None

    def show_detail(self, node: TreeNode[NodeRef] | None) -> None:
        ref = node.data if node is not None else None
        self.detail_step = self.screen.session.timeline.position
        self.screen.detail.zero = self.screen.session.player.zero or 0.0
        if ref != self._detail_ref:  # a new selection starts with the first screenfuls
            self._detail_ref = ref
            self.screen.detail.limit = MAX_JSON_CHARS
            self.screen.detail.scroll_home(animate=False, immediate=True)
        if ref is None:
            self.screen.detail.show_nothing(self._waiting())
            return
        state = self.screen.session.timeline.state
        if ref.response >= len(state.responses):
            return
        resp = state.responses[ref.response]
        group = self.screen.tree.group_of(ref)
        index = self._event_index(ref)
        diagnosis = self.screen.diagnosing.diagnosis
        self.screen.diagnosing._update_probe_key()
        self.screen.cause_actions._update_cause_keys()
        if ref.kind == "response" or (ref.kind == "error" and ref.item is None):
            self.screen.detail.show_response(
                resp,
                causes=diagnosis.causes(resp.key) if diagnosis and resp.failed else [],
                actions=self.screen.cause_actions.response_actions(),
            )
        elif index is not None and (group is None or group.count == 1):
            events = self.screen.session.timeline.events
            event = events[index]
            self.screen.detail.show_event(
                event,
                events[index - 1] if index else None,
                is_failure_event(event),
                diagnosis.by_event.get(index, []) if diagnosis else [],
            )
        elif ref.item is not None and ref.item < len(resp.items):
            item = resp.items[ref.item]
            if group is not None:
                self.screen.detail.show_group(group, self.screen.session.timeline.events, item)
            else:
                self.show_item(resp, item)

    def show_item(self, resp: ResponseState, item: ItemState) -> None:
        """An item with, for a failure, its likely causes and the probe's result."""
        key = (resp.key, item.key)
        diagnosis = self.screen.diagnosing.diagnosis
        shown = item_status(resp, item)
        # As of this step (the checks' timing is the whole stream's), running on with the clock.
        timing = item_timing(item, self.screen.session.timeline.events, shown.word).until(
            self.screen.tree.now
        )
        probe = None
        if key in self.screen.diagnosing.probes:
            # Imported only once there is a report: it loads the mcp SDK (measured 1.4 s),
            # which showing the first failed item must not wait for.
            from mcptui.probe.view import render as render_probe

            probe = render_probe(self.screen.diagnosing.probes[key])  # type: ignore[arg-type]
        elif key in self.screen.diagnosing.probing:
            probe = self.screen.diagnosing.probing_note(item.name)
        self.screen.detail.show_item(
            item,
            shown,
            causes=diagnosis.causes(*key) if diagnosis and item.failed else [],
            timing=timing,
            probe=probe,
            can_probe=self.screen.diagnosing._probe_target() is not None,
            no_probe=self.screen.diagnosing.no_probe_reason(),
            actions=self.screen.cause_actions.item_actions() if item.failed else [],
        )

    def _event_index(self, ref: NodeRef) -> int | None:
        """The timeline event a node stands for: itself, or the first of its group."""
        if ref.kind == "group":
            group = self.screen.tree.group_of(ref)
            return group.first if group is not None else None
        return ref.event

    def selected_event_json(self) -> str | None:
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        if ref is None:
            return None
        index = self._event_index(ref)
        if index is not None:
            return pretty_json(self.screen.session.timeline.events[index].raw)
        resp = self.screen.session.timeline.state.responses[ref.response]
        if ref.kind == "response":  # the Response object as last sent (created → completed)
            events = self.screen.session.timeline.events
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

    def action_more(self) -> None:
        """Five times as much of the long texts and JSON of the selection."""
        self.screen.detail.limit *= 5
        self.show_detail(self.screen.tree.cursor_node)
