"""The event tree: responses → output items → their events, kept in step with the timeline.

Never rebuilt on a single step: `sync` gets the responses and items one batch of steps touched
and fixes only their nodes (a label, or a few nodes at the tail of a list, since events are only
added or removed at the end). Item children are built lazily, when the item is expanded, and
runs of delta events are one node (`output_text.delta ×343`).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.model.groups import EventGroup, GroupIndex
from tui.model.reducer import is_failure_event
from tui.model.state import ItemState, ResponseState
from tui.model.timeline import Timeline
from tui.widgets.labels import event_label, group_label, item_label, response_label

NodeKind = Literal["response", "item", "group", "event"]


@dataclass(frozen=True, slots=True)
class NodeRef:
    """What a tree node stands for, by keys into the state (never by object)."""

    kind: NodeKind
    response: int
    item: int | None = None
    group: int | None = None
    event: int | None = None
    """For response-level event nodes: the timeline index."""


def _relabel(node: TreeNode[NodeRef], label: Text) -> None:
    """Set a label only when it changed: a new label repaints every line below the node."""
    if node.label != label:
        node.set_label(label)


class _ResponseView:
    """Nodes of one response: its children in order, items' nodes and group caches."""

    def __init__(self, node: TreeNode[NodeRef]) -> None:
        self.node = node
        self.children: list[tuple[str, int]] = []
        """("item", item key) or ("event", timeline index), in timeline order."""
        self.child_nodes: list[TreeNode[NodeRef]] = []
        self.item_nodes: dict[int, TreeNode[NodeRef]] = {}
        self.groups: dict[int, GroupIndex] = {}
        self.group_nodes: dict[int, list[TreeNode[NodeRef]]] = {}
        self.loaded: set[int] = set()
        """Items whose children (groups) have been built."""
        self.failed: set[int] = set()
        """Items shown as failed (expanded once, when they turned failed)."""
        self.counts = (-1, -1)


class EventTree(Tree[NodeRef]):
    """The left pane. Call `sync` after stepping; `rebuild` after a jump or a new session."""

    class UserMoved(Message):
        """The user moved the cursor (keys or mouse): stop following the newest event."""

    def __init__(self, timeline: Timeline, **kwargs: object) -> None:
        super().__init__(Text("session"), **kwargs)  # type: ignore[arg-type]
        self.show_root = False
        self.guide_depth = 3
        self.timeline = timeline
        self._views: list[_ResponseView] = []
        self.filter_text = ""
        """Lower-cased filter; while set, the tree lists only matching events."""
        self.filter_matches = 0
        self._haystacks: dict[int, str] = {}

    # -- whole-tree operations ---------------------------------------------------------------

    def rebuild(self, timeline: Timeline | None = None) -> None:
        """Drop every node and build the tree for the current step from scratch."""
        if timeline is not None:
            self.timeline = timeline
        self.clear()
        self._views = []
        if self.filter_text:
            self._build_filtered()
        else:
            self.sync(self.timeline.state.responses, ())

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
                self._sync_item(state.responses[item.response_key], item)

    def _sync_response(self, resp: ResponseState) -> None:
        view = self._views[resp.key]
        _relabel(view.node, response_label(resp))
        counts = (len(resp.items), len(resp.events))
        if counts == view.counts:
            return
        view.counts = counts
        order = sorted(
            [(item.events[0] if item.events else -1, 0, ("item", item.key)) for item in resp.items]
            + [(index, 1, ("event", index)) for index in resp.events]
        )
        expected = [key for _, _, key in order]
        keep = 0
        for old, new in zip(view.children, expected, strict=False):
            if old != new:
                break
            keep += 1
        for node in view.child_nodes[keep:]:
            node.remove()
        for kind, key in view.children[keep:]:
            if kind == "item":
                view.item_nodes.pop(key, None)
                view.groups.pop(key, None)
                view.group_nodes.pop(key, None)
                view.loaded.discard(key)
                view.failed.discard(key)
        del view.child_nodes[keep:]
        view.children = expected
        events = self.timeline.events
        for kind, key in expected[keep:]:
            if kind == "item":
                item = resp.items[key]
                node = view.node.add(item_label(item), NodeRef("item", resp.key, item.key),
                                     allow_expand=bool(item.events))
                view.item_nodes[key] = node
                if item.failed:
                    view.failed.add(key)
                    self.load_item(resp, item)
                    node.expand()
            else:
                event = events[key]
                node = view.node.add_leaf(event_label(event, is_failure_event(event)),
                                          NodeRef("event", resp.key, event=key))
            view.child_nodes.append(node)

    def _sync_item(self, resp: ResponseState, item: ItemState) -> None:
        view = self._views[resp.key]
        node = view.item_nodes.get(item.key)
        if node is None:
            return
        _relabel(node, item_label(item))
        node.allow_expand = bool(item.events)
        if item.failed and item.key not in view.failed:
            view.failed.add(item.key)
            self.load_item(resp, item)
            node.expand()
        elif not item.failed:
            view.failed.discard(item.key)
        if item.key in view.loaded:
            self._sync_groups(resp, item)

    def load_item(self, resp: ResponseState, item: ItemState) -> None:
        """Build an item's children the first time they are needed (expand, failure)."""
        view = self._views[resp.key]
        if item.key in view.loaded:
            return
        view.loaded.add(item.key)
        view.groups[item.key] = GroupIndex()
        view.group_nodes[item.key] = []
        self._sync_groups(resp, item)

    def _sync_groups(self, resp: ResponseState, item: ItemState) -> None:
        view = self._views[resp.key]
        index = view.groups[item.key]
        nodes = view.group_nodes[item.key]
        changed = index.sync(item.events, self.timeline.events)
        groups = index.groups
        for node in nodes[len(groups):]:
            node.remove()
        del nodes[len(groups):]
        item_node = view.item_nodes[item.key]
        events = self.timeline.events
        for position in range(changed, len(groups)):
            group = groups[position]
            first = events[group.first]
            label = group_label(group, first, is_failure_event(first))
            if position < len(nodes):
                _relabel(nodes[position], label)
            else:
                nodes.append(item_node.add_leaf(
                    label, NodeRef("group", resp.key, item.key, group=position)))

    # -- filtered view -----------------------------------------------------------------------

    MAX_FILTERED_NODES = 5000

    def _matches(self, index: int) -> bool:
        haystack = self._haystacks.get(index)
        if haystack is None:
            event = self.timeline.events[index]
            haystack = json.dumps(event.raw, ensure_ascii=False).lower()
            self._haystacks[index] = haystack
        return self.filter_text in haystack

    def _build_filtered(self) -> None:
        """Only the events (applied so far) whose type or JSON contains the filter text."""
        events = self.timeline.events
        shown = 0
        self.filter_matches = 0
        for resp in self.timeline.state.responses:
            resp_node = self.root.add(response_label(resp), NodeRef("response", resp.key),
                                      expand=True)
            for index in resp.events:
                if self._matches(index):
                    self.filter_matches += 1
                    if shown < self.MAX_FILTERED_NODES:
                        shown += 1
                        resp_node.add_leaf(event_label(events[index],
                                                       is_failure_event(events[index])),
                                           NodeRef("event", resp.key, event=index))
            for item in resp.items:
                matching = [i for i in item.events if self._matches(i)]
                if not matching:
                    continue
                self.filter_matches += len(matching)
                item_node = resp_node.add(item_label(item), NodeRef("item", resp.key, item.key),
                                          expand=True)
                for index in matching:
                    if shown >= self.MAX_FILTERED_NODES:
                        break
                    shown += 1
                    item_node.add_leaf(event_label(events[index], is_failure_event(events[index])),
                                       NodeRef("event", resp.key, item.key, event=index))
        if self.filter_matches > shown:
            self.root.add_leaf(Text(f"… {self.filter_matches - shown:,} more matches not shown",
                                    "yellow"))

    # -- lookups -----------------------------------------------------------------------------

    def node_for_event(self, index: int) -> TreeNode[NodeRef] | None:
        """The deepest visible node that holds timeline event `index`."""
        state = self.timeline.state
        for resp, view in zip(state.responses, self._views, strict=False):
            if index in resp.events and ("event", index) in view.children:
                position = view.children.index(("event", index))
                return view.child_nodes[position]
            for item in resp.items:
                events = item.events
                if events and events[0] <= index <= events[-1] and (
                        events[min(bisect_left(events, index), len(events) - 1)] == index):
                    node = view.item_nodes.get(item.key)
                    if node is not None and node.is_expanded and item.key in view.loaded:
                        group_index = view.groups[item.key]
                        group = group_index.group_of(index)
                        if group is not None:
                            position = group_index.groups.index(group)
                            return view.group_nodes[item.key][position]
                    return node
        return None

    def group_of(self, ref: NodeRef) -> EventGroup | None:
        """The EventGroup a group node stands for."""
        if ref.kind != "group" or ref.item is None or ref.group is None:
            return None
        view = self._views[ref.response]
        index = view.groups.get(ref.item)
        if index is None or ref.group >= len(index.groups):
            return None
        return index.groups[ref.group]

    def item_node(self, response: int, item: int) -> TreeNode[NodeRef] | None:
        if response >= len(self._views):
            return None
        return self._views[response].item_nodes.get(item)

    def _user_moved(self) -> None:
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
        ref = event.node.data
        if self.filter_text or ref is None or ref.response >= len(self._views):
            return  # the filtered view is built whole, with its matches already shown
        if ref.kind == "item" and ref.item is not None:
            state = self.timeline.state
            if ref.response < len(state.responses):
                resp = state.responses[ref.response]
                if ref.item < len(resp.items):
                    self.load_item(resp, resp.items[ref.item])
