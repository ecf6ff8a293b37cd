"""The event tree: responses → output items → their events, kept in step with the timeline.

Never rebuilt on a single step: `sync` gets the responses and items one batch of steps touched
and fixes only their nodes (a label, or a few nodes at the tail of a list, since events are only
added or removed at the end). Item children are built lazily, when the item is expanded, and
runs of delta events are one node (`output_text.delta ×343`). A failed item or response has
its error on a line of its own, its first child, so no width cuts it off behind a long name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from mcptui.model.errors import describe_error
from mcptui.model.findings import Finding
from mcptui.model.groups import EventGroup, GroupIndex
from mcptui.model.reducer import is_failure_event
from mcptui.model.state import TERMINAL_STATUSES, ItemState, ResponseState
from mcptui.model.status import is_open
from mcptui.model.timeline import Timeline
from mcptui.model.wire import NO_LINKS, WireLinks, in_causal_order, link, link_inputs
from mcptui.ui.widgets.fast_tree import FastTree
from mcptui.ui.widgets.labels import (
    error_label,
    event_label,
    group_label,
    item_label,
    response_label,
)

if TYPE_CHECKING:  # the checks' modules load after the first frame (Diagnosing.diagnose)
    from mcptui.model.diagnosis import Diagnosis

NodeKind = Literal["response", "item", "group", "event", "error"]


@dataclass(frozen=True, slots=True)
class NodeRef:
    """What a tree node stands for, by keys into the state (never by object)."""

    kind: NodeKind
    response: int
    item: int | None = None
    group: int | None = None
    event: int | None = None
    """For response-level event nodes: the timeline index."""


def _sync_error_node(
    parent: TreeNode[NodeRef], node: TreeNode[NodeRef] | None, error: str | None, ref: NodeRef
) -> TreeNode[NodeRef] | None:
    """The error line under a failed item or response: added first, relabelled, or removed
    (a step back can undo the failure)."""
    if error is None:
        if node is not None:
            node.remove()
        return None
    label = error_label(error)
    if node is None:
        before = 0 if parent.children else None
        return parent.add(label, ref, before=before, allow_expand=False)
    _relabel(node, label)
    return node


def _children_in_order(resp: ResponseState, loose: list[int]) -> list[tuple[str, int]]:
    """A response's children in timeline order: ("item", item key) by the item's first event
    (one with none yet first), ("event", timeline index) for its own events and for the MCP
    messages a tap saw that belong to no item (`loose`)."""
    order = sorted(
        [(item.events[0] if item.events else -1, 0, ("item", item.key)) for item in resp.items]
        + [(index, 1, ("event", index)) for index in (*resp.events, *loose)]
    )
    return [key for _, _, key in order]


def _relabel(node: TreeNode[NodeRef], label: Text) -> None:
    """Set a label only when it changed: a new label repaints every line below the node."""
    if node.label != label:
        node.set_label(label)


class _ItemView:
    """The node of one output item and, once built, the nodes of its event groups."""

    __slots__ = ("error_node", "failed", "group_nodes", "groups", "node", "order", "wired")

    def __init__(self, node: TreeNode[NodeRef]) -> None:
        self.node = node
        self.wired: list[int] = []
        """The MCP messages tied to the item (tui/mcptui/model/wire.py), shown among its events."""
        self.order: list[int] = []
        """The events and messages its groups were built from, in the order shown."""
        self.groups: GroupIndex | None = None
        """The item's coalesced event runs; None until its children are first needed."""
        self.group_nodes: list[TreeNode[NodeRef]] = []
        self.failed = False
        """Shown as failed: it was expanded once, when it turned failed."""
        self.error_node: TreeNode[NodeRef] | None = None


class _ResponseView:
    """Nodes of one response: its children in timeline order and its items' views."""

    def __init__(self, node: TreeNode[NodeRef]) -> None:
        self.node = node
        self.children: list[tuple[str, int]] = []
        """("item", item key) or ("event", timeline index), in timeline order."""
        self.child_nodes: list[TreeNode[NodeRef]] = []
        self.items: dict[int, _ItemView] = {}
        self.links: WireLinks = NO_LINKS
        self.link_inputs: tuple[object, ...] = ()
        """What `links` was computed from (tui/mcptui/model/wire.py `link_inputs`)."""
        self.counts: tuple[object, ...] = ()
        self.error_node: TreeNode[NodeRef] | None = None


class EventTree(FastTree[NodeRef]):
    """The left pane. Call `sync` after stepping; `rebuild` after a jump or a new session."""

    class UserMoved(Message):
        """The user moved the cursor (keys or mouse): stop following the newest event."""

    def __init__(self, timeline: Timeline, **kwargs: object) -> None:
        super().__init__(Text("session"), **kwargs)
        self.show_root = False
        self.guide_depth = 3
        self.timeline = timeline
        self._views: list[_ResponseView] = []
        self.filter_text = ""
        """Lower-cased filter; while set, the tree lists only matching events."""
        self.user_moves = 0
        """How many times the user has moved the cursor (counted before the message)."""
        self.filter_matches = 0
        self._haystacks: dict[int, str] = {}
        self.diagnosis: Diagnosis | None = None
        """Findings to mark on nodes; None until the checks have run."""
        self.now: float | None = None
        """The recorded clock now, while it runs on through a silence (a live run waiting, a
        replay playing through a gap): open items' durations count up to it."""

    @contextmanager
    def _layout_once(self) -> Iterator[None]:
        """Textual's Tree asks for a new layout and repaint on every node it adds, relabels or
        removes (23 µs each: 1,348 nodes at the end of a 721-item response): here the line
        cache is cleared at each, as Tree does, and the rest is done once at the end."""
        if "_invalidate" in self.__dict__:
            yield  # already inside one
            return
        changed = False

        def lines_changed() -> None:
            nonlocal changed
            changed = True
            self._clear_line_cache()
            self._updates += 1

        self._invalidate = lines_changed  # type: ignore[method-assign]
        try:
            yield
        finally:
            del self._invalidate
            if changed:
                self._invalidate()

    # -- whole-tree operations ---------------------------------------------------------------

    def rebuild(self) -> None:
        """Drop every node and build the tree for the current step from scratch; the cursor
        stays on what it was on, when that is still there (else it would land on whatever
        node now has its line number)."""
        with self._layout_once():
            self._rebuild()

    def _rebuild(self) -> None:
        selected = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        self._views = []
        self._label_widths.clear()  # of nodes now gone
        if self.filter_text:
            self._build_filtered()
        else:
            self.sync(self.timeline.state.responses, ())
        if selected is not None:
            node = next((n for n in self._walk(self.root) if n.data == selected), None)
            if node is not None:
                self._tree_lines  # noqa: B018 -- line numbers for the new nodes
                self.move_cursor(node)

    def move_cursor(self, node: TreeNode[NodeRef] | None, animate: bool = False) -> None:
        """Textual's, and the node scrolled into view again once laid out: a rebuild or a
        jump that brings the horizontal scrollbar scrolls before it takes its row, and the
        cursor's row (the last, after `G`) sat under it."""
        super().move_cursor(node, animate)
        if node is not None:
            self.call_after_refresh(self.scroll_to_node, node, False)

    @staticmethod
    def _walk(node: TreeNode[NodeRef]) -> Iterable[TreeNode[NodeRef]]:
        """Nodes below `node` that are on screen (inside expanded nodes), in order."""
        for child in node.children:
            yield child
            if child.is_expanded:
                yield from EventTree._walk(child)

    def _item_label(self, resp: ResponseState, item: ItemState) -> Text:
        return item_label(resp, item, self._item_findings(item), now=self.now)

    def tick_open_items(self, now: float | None) -> None:
        """The clock moved on with no event: relabel the items still running (their duration
        counts up to `now`); None when the clock stands at the current step again."""
        if now == self.now:
            return
        self.now = now
        state = self.timeline.state
        for view in self._views:
            ref = view.node.data
            if ref is None or ref.response >= len(state.responses):
                continue
            resp = state.responses[ref.response]
            for key, item_view in view.items.items():
                item = resp.items[key]
                if is_open(resp, item):
                    _relabel(item_view.node, self._item_label(resp, item))

    def set_diagnosis(self, diagnosis: Diagnosis) -> None:
        """Mark events, runs and items that have findings (relabels the nodes built so far)."""
        self.diagnosis = diagnosis
        if self.filter_text:
            self.rebuild()
            return
        state = self.timeline.state
        events = self.timeline.events
        for view in self._views:
            if view.node.data is None or view.node.data.response >= len(state.responses):
                continue
            resp = state.responses[view.node.data.response]
            for (kind, key), node in zip(view.children, view.child_nodes, strict=False):
                if kind == "event":
                    _relabel(node, self._event_label(key))
            for key, item_view in view.items.items():
                item = resp.items[key]
                _relabel(item_view.node, self._item_label(resp, item))
                if item_view.groups is not None:
                    for position, node in enumerate(item_view.group_nodes):
                        group = item_view.groups.groups[position]
                        first = events[group.first]
                        _relabel(
                            node,
                            group_label(
                                group,
                                first,
                                is_failure_event(first),
                                self._group_findings(item, group),
                            ),
                        )

    def _event_findings(self, index: int) -> list[Finding]:
        return self.diagnosis.by_event.get(index, []) if self.diagnosis else []

    def _event_label(self, index: int) -> Text:
        """The label of a response-level (or filtered) event node."""
        event = self.timeline.events[index]
        return event_label(event, is_failure_event(event), self._event_findings(index))

    def _item_findings(self, item: ItemState) -> list[Finding]:
        if self.diagnosis is None:
            return []
        position = self.timeline.position  # no marks from events not applied yet
        return [
            f
            for f in self.diagnosis.by_item.get((item.response_key, item.key), [])
            if f.event_index is None or f.event_index < position
        ]

    def _group_findings(self, item: ItemState, group: EventGroup) -> list[Finding]:
        if self.diagnosis is None:
            return []
        return self.diagnosis.in_span(group.first, group.last, (item.response_key, item.key))

    def set_filter(self, text: str) -> None:
        self.filter_text = text.lower()
        self.rebuild()

    def sync(self, responses: Iterable[ResponseState], items: Iterable[ItemState]) -> None:
        """Bring the nodes of these responses and items up to date with the state."""
        if self.filter_text:
            self.rebuild()
            return
        state = self.timeline.state
        while len(self._views) > len(state.responses):
            self._views.pop().node.remove()
        while len(self._views) < len(state.responses):
            resp = state.responses[len(self._views)]
            node = self.root.add(response_label(resp), NodeRef("response", resp.key), expand=True)
            self._views.append(_ResponseView(node))
            self._sync_response(resp)
        for resp in responses:
            if resp.key < len(self._views) and state.responses[resp.key] is resp:
                self._sync_response(resp)
        for item in items:
            if item.response_key < len(self._views):
                resp = state.responses[item.response_key]
                if resp.wire and item.type in ("mcp_call", "mcp_list_tools"):
                    self._sync_response(resp)  # its arguments or listing may tie messages
                self._sync_item(resp, item)

    def _sync_response(self, resp: ResponseState) -> None:
        view = self._views[resp.key]
        inputs = link_inputs(resp)
        relinked = inputs != view.link_inputs
        if relinked:
            view.link_inputs = inputs
            view.links = link(resp, self.timeline.events)
        _relabel(view.node, response_label(resp))
        error = describe_error(resp.error) if resp.failed and resp.error is not None else None
        view.error_node = _sync_error_node(
            view.node, view.error_node, error, NodeRef("error", resp.key)
        )
        if resp.status in TERMINAL_STATUSES:
            # Items still open when the response ended (a cancel, a failure) are shown as
            # interrupted from now on: their labels depend on the response's status too.
            for key, item_view in view.items.items():
                item = resp.items[key]
                if item.status not in TERMINAL_STATUSES:
                    _relabel(item_view.node, self._item_label(resp, item))
        if relinked:
            for key, item_view in view.items.items():
                if item_view.wired != view.links.item_notes(key):
                    self._sync_item(resp, resp.items[key])
        loose = view.links.loose_notes()
        counts = (len(resp.items), len(resp.events), *loose)
        if counts == view.counts:
            return
        view.counts = counts
        expected = _children_in_order(resp, loose)
        keep = 0
        for old, new in zip(view.children, expected, strict=False):
            if old != new:
                break
            keep += 1
        for node in view.child_nodes[keep:]:
            node.remove()
        for kind, key in view.children[keep:]:
            if kind == "item":
                del view.items[key]
        del view.child_nodes[keep:]
        view.children = expected
        for kind, key in expected[keep:]:
            if kind == "item":
                item = resp.items[key]
                node = view.node.add(
                    self._item_label(resp, item),
                    NodeRef("item", resp.key, item.key),
                    allow_expand=bool(item.events) or item.failed,
                )
                item_view = view.items[key] = _ItemView(node)
                self._refresh_children(resp, item, item_view)
            else:
                node = view.node.add_leaf(
                    self._event_label(key), NodeRef("event", resp.key, event=key)
                )
            view.child_nodes.append(node)

    def _sync_item(self, resp: ResponseState, item: ItemState) -> None:
        item_view = self._views[resp.key].items.get(item.key)
        if item_view is not None:
            _relabel(item_view.node, self._item_label(resp, item))
            item_view.node.allow_expand = bool(item.events) or item.failed
            self._refresh_children(resp, item, item_view)

    def _refresh_children(self, resp: ResponseState, item: ItemState, item_view: _ItemView) -> None:
        """Open a newly failed item (once per failure), keep its error line first, and update
        children already built."""
        item_view.error_node = _sync_error_node(
            item_view.node,
            item_view.error_node,
            (item.error_text or item.status) if item.failed else None,
            NodeRef("error", resp.key, item.key),
        )
        if item.failed and not item_view.failed:
            item_view.failed = True
            item_view.groups = item_view.groups or GroupIndex()
            item_view.node.expand()
        elif not item.failed:
            item_view.failed = False
        if item_view.groups is not None:
            self._sync_groups(resp, item, item_view)

    def _sync_groups(self, resp: ResponseState, item: ItemState, item_view: _ItemView) -> None:
        events = self.timeline.events
        item_view.wired = self._views[resp.key].links.item_notes(item.key)
        order = in_causal_order(item.events, item_view.wired, events)
        shared = min(len(order), len(item_view.order))
        if (
            (item_view.wired or item_view.order)
            and order[:shared] != item_view.order[:shared]
            and item_view.groups is not None
        ):  # a message tied, untied or moved: regroup
            for node in item_view.group_nodes:
                node.remove()
            item_view.group_nodes = []
            item_view.groups = GroupIndex()
        item_view.order = order if item_view.wired else []
        index = item_view.groups
        if index is None:
            return
        nodes = item_view.group_nodes
        changed = index.sync(order, events)
        groups = index.groups
        for node in nodes[len(groups) :]:
            node.remove()
        del nodes[len(groups) :]
        for position in range(changed, len(groups)):
            group = groups[position]
            first = events[group.first]
            label = group_label(
                group, first, is_failure_event(first), self._group_findings(item, group)
            )
            if position < len(nodes):
                _relabel(nodes[position], label)
            else:
                nodes.append(
                    item_view.node.add_leaf(
                        label, NodeRef("group", resp.key, item.key, group=position)
                    )
                )

    # -- filtered view -----------------------------------------------------------------------

    MAX_FILTERED_NODES = 5000

    def _matches(self, index: int) -> bool:
        return self.filter_text in self._haystack(index)

    def _haystack(self, index: int) -> str:
        haystack = self._haystacks.get(index)
        if haystack is None:
            event = self.timeline.events[index]
            haystack = json.dumps(event.raw, ensure_ascii=False).lower()
            self._haystacks[index] = haystack
        return haystack

    def prepare_filter(self, cancelled: Callable[[], bool]) -> bool:
        """Write the text each applied event is searched in (its JSON, lower-cased), off the
        event loop: a filter over 3M events or one listing 200,000 tools froze the app for
        seconds, keys typed meanwhile landing in the filter box and `q` unanswered. Stops
        when `cancelled()` says so (the app quits, another filter is asked for); whether it
        got through all of them."""
        for index in range(self.timeline.position):
            if index & 255 == 0 and cancelled():
                return False
            self._haystack(index)
        return True

    def _build_filtered(self) -> None:
        """Only the events (applied so far) whose type or JSON contains the filter text."""
        shown = 0
        self.filter_matches = 0
        for resp in self.timeline.state.responses:
            resp_node = self.root.add(
                response_label(resp), NodeRef("response", resp.key), expand=True
            )
            links = link(resp, self.timeline.events)
            for kind, key in _children_in_order(resp, links.loose_notes()):  # as unfiltered
                if kind == "event":
                    if self._matches(key):
                        self.filter_matches += 1
                        if shown < self.MAX_FILTERED_NODES:
                            shown += 1
                            resp_node.add_leaf(
                                self._event_label(key), NodeRef("event", resp.key, event=key)
                            )
                    continue
                item = resp.items[key]
                order = in_causal_order(
                    item.events, links.item_notes(item.key), self.timeline.events
                )
                matching = [i for i in order if self._matches(i)]
                if not matching:
                    continue
                self.filter_matches += len(matching)
                item_node = resp_node.add(
                    self._item_label(resp, item), NodeRef("item", resp.key, item.key), expand=True
                )
                for index in matching:
                    if shown >= self.MAX_FILTERED_NODES:
                        break
                    shown += 1
                    item_node.add_leaf(
                        self._event_label(index), NodeRef("event", resp.key, item.key, event=index)
                    )
        if self.filter_matches > shown:
            self.root.add_leaf(
                Text(f"… {self.filter_matches - shown:,} more matches not shown", "yellow")
            )

    # -- lookups -----------------------------------------------------------------------------

    def response_node(self, response: int) -> TreeNode[NodeRef] | None:
        return self._views[response].node if response < len(self._views) else None

    def item_node(self, response: int, item: int) -> TreeNode[NodeRef] | None:
        if response >= len(self._views):
            return None
        item_view = self._views[response].items.get(item)
        return item_view.node if item_view is not None else None

    def _holder(self, index: int) -> tuple[ResponseState, ItemState | None]:
        """The response and item applied event `index` is shown under (an MCP message a tap
        saw: the item it is tied to)."""
        resp, item = self.timeline.reducer.touched(index)
        if item is None and resp.key < len(self._views):
            links = self._views[resp.key].links
            key = next(
                (
                    key
                    for key, found in links.by_item.items()
                    if any(index in exchange.notes for exchange in found)
                ),
                None,
            )
            if key is not None:
                item = resp.items[key]
        return resp, item

    def node_for_event(self, index: int) -> TreeNode[NodeRef] | None:
        """The deepest visible node that holds applied timeline event `index`."""
        resp, item = self._holder(index)
        if resp.key >= len(self._views):
            return None
        view = self._views[resp.key]
        if item is None:
            key = ("event", index)
            return view.child_nodes[view.children.index(key)] if key in view.children else None
        item_view = view.items.get(item.key)
        if item_view is None:
            return None
        if item_view.node.is_expanded and item_view.groups is not None:
            groups = item_view.groups
            if item_view.order:  # messages placed out of index order: no binary search
                position = (
                    next((n for n, g in enumerate(groups.groups) if g.first == index), None)
                    if index in item_view.wired
                    else next(
                        (
                            n
                            for n, g in enumerate(groups.groups)
                            if g.first <= index <= g.last and g.first not in item_view.wired
                        ),
                        None,
                    )
                )
                if position is not None and position < len(item_view.group_nodes):
                    return item_view.group_nodes[position]
                return item_view.node
            group = groups.group_of(index)
            if group is not None:
                return item_view.group_nodes[groups.groups.index(group)]
        return item_view.node

    def reveal(self, index: int) -> TreeNode[NodeRef] | None:
        """Open the item holding applied event `index` and return the event's own node."""
        resp, item = self._holder(index)
        if item is not None and resp.key < len(self._views):
            item_view = self._views[resp.key].items.get(item.key)
            if item_view is not None:
                if item_view.groups is None:
                    item_view.groups = GroupIndex()
                    self._sync_groups(resp, item, item_view)
                item_view.node.expand()
        return self.node_for_event(index)

    def group_of(self, ref: NodeRef) -> EventGroup | None:
        """The EventGroup a group node stands for."""
        if ref.kind != "group" or ref.item is None or ref.group is None:
            return None
        item_view = self._views[ref.response].items.get(ref.item)
        index = item_view.groups if item_view is not None else None
        if index is None or ref.group >= len(index.groups):
            return None
        return index.groups[ref.group]

    def _user_moved(self) -> None:
        self.user_moves += 1  # at once: a step before the message must not undo this move
        self.post_message(self.UserMoved())

    def action_cursor_up(self) -> None:
        super().action_cursor_up()
        self._user_moved()

    def action_cursor_down(self) -> None:
        super().action_cursor_down()
        self._user_moved()

    def action_page_up(self) -> None:
        super().action_page_up()
        self._user_moved()

    def action_page_down(self) -> None:
        super().action_page_down()
        self._user_moved()

    def action_cursor_parent(self) -> None:
        super().action_cursor_parent()
        self._user_moved()

    async def _on_click(self, event: events.Click) -> None:
        await super()._on_click(event)
        self._user_moved()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeRef]) -> None:
        """Build an item's children the first time it is opened."""
        ref = event.node.data
        if self.filter_text or ref is None or ref.kind != "item" or ref.item is None:
            return  # the filtered view is built whole, with its matches already shown
        if ref.response >= len(self._views):
            return
        item_view = self._views[ref.response].items.get(ref.item)
        if item_view is not None and item_view.groups is None:
            item_view.groups = GroupIndex()
            resp = self.timeline.state.responses[ref.response]
            self._sync_groups(resp, resp.items[ref.item], item_view)
