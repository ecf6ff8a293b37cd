"""FastTree (ui/widgets/fast_tree.py) overrides four private methods of Textual's Tree for
speed. These tests fail loudly when a Textual upgrade changes what the overrides rely on, and
check that a FastTree draws exactly what Textual's own Tree draws."""

from __future__ import annotations

import inspect

import pytest
from mcptui.ui.widgets.fast_tree import FastTree
from textual.app import App, ComposeResult
from textual.widgets import Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

OVERRIDDEN = {
    "_invalidate": ["self"],
    "_size_updated": ["self", "size", "virtual_size", "container_size", "layout"],
    "_refresh_node": ["self", "node"],
    "_build": ["self"],
    "_render_line": ["self", "y", "x1", "x2", "base_style"],
}
"""Textual's private methods FastTree overrides, with the parameters it calls them with."""
USED = ["_refresh_line", "_tree_lines", "_subtree_refresh", "get_label_width", "render_line"]
"""Other members of Tree the overrides call or read (a missing one breaks them silently)."""


@pytest.mark.parametrize("name", sorted(OVERRIDDEN))
def test_the_overridden_private_methods_still_exist_as_they_were(name: str):
    original = getattr(Tree, name, None)
    assert original is not None, f"Textual's Tree has no {name} any more: update FastTree"
    assert list(inspect.signature(original).parameters) == OVERRIDDEN[name], (
        f"Tree.{name} changed its parameters: check FastTree.{name} against it"
    )
    assert getattr(FastTree, name) is not original  # still overridden


def test_the_internals_the_overrides_lean_on_are_there():
    for name in USED:
        assert hasattr(Tree, name) or name == "_subtree_refresh", name
    assert [f for f in _TreeLine.__dataclass_fields__] == ["path", "last"]
    node_members = inspect.getsource(TreeNode.__init__)
    for name in ("_line", "_updates", "_expanded", "_children", "_id", "_label"):
        assert f"self.{name}" in node_members, f"TreeNode.{name} is gone: update FastTree"
    assert "_tree_lines_cached" in inspect.getsource(Tree)


def fill(tree: Tree[int]) -> None:
    for response in range(3):
        branch = tree.root.add(f"response {response} [b]not markup[/b]", data=response)
        for item in range(4):
            leaf = branch.add(f"item {item} " + "·" * item * 7, data=item)
            leaf.add_leaf(f"event {item}", data=item)
        branch.expand_all()
    tree.root.expand()


class Pair(App[None]):
    def compose(self) -> ComposeResult:
        yield Tree[int]("session", id="plain")
        yield FastTree[int]("session", id="fast")


async def test_a_fast_tree_draws_what_textuals_tree_draws():
    app = Pair()
    async with app.run_test(size=(60, 40)) as pilot:
        plain, fast = app.query_one("#plain", Tree), app.query_one("#fast", FastTree)
        for tree in (plain, fast):
            tree.styles.height = 18
            fill(tree)
        await pilot.pause()
        for tree in (plain, fast):
            tree.cursor_line = 5
        await pilot.pause()

        def drawn(tree: Tree[int]) -> list[str]:
            return [tree.render_line(y).text for y in range(tree.size.height)]

        assert drawn(fast) == drawn(plain)
        assert fast.virtual_size == plain.virtual_size
        assert any("item 3" in line for line in drawn(fast))

        for tree in (plain, fast):  # a node added and one collapsed: lines drawn again
            tree.root.children[0].add_leaf("a new event", data=9)
            tree.root.children[1].collapse()
        await pilot.pause()
        assert drawn(fast) == drawn(plain)
        assert any("a new event" in line for line in drawn(fast))


class One(App[None]):
    """One tree alone: a layout asked for by another widget would hide a missing one."""

    def __init__(self, kind: type[Tree[int]]) -> None:
        super().__init__()
        self.kind = kind

    def compose(self) -> ComposeResult:
        yield self.kind("session")


async def seen_while_nodes_come_and_go(kind: type[Tree[int]]) -> list[object]:
    app = One(kind)
    seen: list[object] = []
    async with app.run_test(size=(60, 40)) as pilot:
        tree = app.query_one(kind)
        tree.styles.height = 10
        tree.root.add_leaf("first", data=0)
        tree.root.expand()
        await pilot.pause()
        region = tree.region

        def look() -> None:
            assert tree.region == region
            seen.append(
                (
                    tree.show_vertical_scrollbar,
                    tree.virtual_size,
                    tree.scroll_offset,
                    # (a hidden bar's size is not drawn: Textual leaves it as it was)
                    tree.show_vertical_scrollbar and tree.vertical_scrollbar.window_virtual_size,
                    [tree.render_line(y).text for y in range(tree.size.height)],
                )
            )

        look()
        for n in range(30):
            tree.root.add_leaf(f"event {n}", data=n)
        await pilot.pause()
        look()
        tree.scroll_end(animate=False, immediate=True)
        tree.cursor_line = 30
        await pilot.pause()
        look()
        for node in list(tree.root.children)[3:]:
            node.remove()
        await pilot.pause()
        look()
    return seen


async def test_nodes_added_and_removed_show_and_hide_the_scrollbar_as_textuals_tree_does():
    """A FastTree asks for no layout when its lines change (`_invalidate`,
    `_set_virtual_size`): its size is its CSS's; the scrollbar still comes and goes, and the
    scroll offset stays within the lines, as with Textual's own Tree."""
    fast = await seen_while_nodes_come_and_go(FastTree)
    assert fast == await seen_while_nodes_come_and_go(Tree)
    assert [shown for shown, *_ in fast] == [False, True, True, False]
