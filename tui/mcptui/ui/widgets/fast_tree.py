"""Tree drawing that keeps what it measured and drew: Textual's `Tree` with five of its private
methods overridden (`_size_updated`, `_refresh_node`, `_build`, `_render_line`, `_invalidate`),
their speed measured in each docstring (bench/tui_open.py).

They lean on Textual's internals (`_TreeLine`, a node's `_line`, `_updates`, `_expanded`,
`_children`, the tree's `_tree_lines_cached`, `_refresh_line`, `_subtree_refresh` of their
callers), so they live here alone, and tests/app/test_fast_tree.py fails loudly when a Textual
upgrade changes what they rely on, and checks they draw what Textual's own `Tree` draws.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

T = TypeVar("T")


class FastTree(Tree[T]):
    """A `Tree` that measures each label once and redraws only the lines that changed."""

    def __init__(self, label: Any, **kwargs: Any) -> None:
        # Before Textual's own init, which measures and draws the root already.
        self._drawn: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        """Drawn lines by what they are drawn from (`_render_line`)."""
        self._style_updates = 0
        self._label_widths: dict[int, tuple[int, int]] = {}
        """Label widths by node id, with the node's update count they were measured at."""
        self._pass_style: Style | None = None
        self._sized: tuple[Size, Size, Size, int, int] | None = None
        super().__init__(label, **kwargs)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Textual's ScrollView compares the virtual size the layout passes in (the visible
        area) with its own (all the tree's lines): never equal, so every layout of the screen
        repainted both scrollbars (measured 2-3 ms a step). Pass on only real changes; else
        only set the bars' window sizes as that update does (the arrangement sets them too,
        ignoring a stable gutter), which repaints a bar only if one changed."""
        sized = (
            size,
            self.virtual_size,
            container_size,
            self.scrollbar_size_vertical,
            self.scrollbar_size_horizontal,
        )
        if sized == self._sized:
            width, height = self.container_size
            if self.show_vertical_scrollbar and self.styles.scrollbar_size_vertical:
                self.vertical_scrollbar.window_size = height - self.scrollbar_size_horizontal
            if self.show_horizontal_scrollbar and self.styles.scrollbar_size_horizontal:
                self.horizontal_scrollbar.window_size = width - self.scrollbar_size_vertical
            return False
        self._sized = sized
        return super()._size_updated(size, virtual_size, container_size, layout)

    def _refresh_node(self, node: TreeNode[T]) -> None:
        """Textual repaints a node's line and every line below it: the cursor or the mouse
        on a node highlights its children's guides, but a new label shows on its own line
        only. A step relabels the response (and its item), so every step repainted the whole
        visible tree (measured 70-90 lines, 4 ms a step)."""
        if self._subtree_refresh:
            super()._refresh_node(node)
        elif node.line >= 0:
            self._refresh_line(node.line)

    def get_label_width(self, node: TreeNode[T]) -> int:
        """What Textual's `render_label` would measure, without building the label, and kept
        until the node changes: the tree measures every line whenever a node is added (an
        item boundary), 10 ms at 650 lines."""
        known = self._label_widths.get(node.id)
        if known is not None and known[0] == node._updates:
            return known[1]
        icon = ""
        if node.allow_expand:
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        width = cell_len(icon) + node._label.cell_len  # a Text: `label` is typed str | Text
        self._label_widths[node.id] = (node._updates, width)
        return width

    def _build(self) -> None:
        """Textual's, with a tuple per line's path instead of a list and a generator, and
        each label measured once (`get_label_width`): a node added anywhere builds every line
        again (3,500 lines at a million events: 7 ms and 20 young collections a step)."""
        lines: list[_TreeLine[T]] = []
        append = lines.append
        depth = self.guide_depth
        label_width = self.get_label_width
        widest = 0

        def add(parent: tuple[TreeNode[T], ...], children: list[TreeNode[T]]) -> None:
            nonlocal widest
            last = len(children) - 1
            guides = len(parent) * depth
            for number, node in enumerate(children):
                path = (*parent, node)
                node._line = len(lines)
                append(_TreeLine(path, number == last))  # type: ignore[arg-type]
                widest = max(widest, guides + label_width(node))
                if node._expanded:
                    add(path, node._children)

        add((), [self.root] if self.show_root else self.root._children)
        self._tree_lines_cached = lines
        self._set_virtual_size(Size(widest if lines else self.size.width, len(lines)))
        if self.cursor_line != -1:
            if self.cursor_node is not None:
                self.cursor_line = self.cursor_node._line
            if self.cursor_line >= len(lines):
                self.cursor_line = -1

    def _invalidate(self) -> None:
        """Textual's, without asking for a layout: a node added, removed, opened or closed
        changes the lines, not the tree's size (which its CSS sets, never its content), and a
        layout of the screen at each item boundary repainted every widget in it (15-20 ms a
        step). `_set_virtual_size` tells the scrollbars."""
        self._clear_line_cache()
        self._updates += 1
        self.root._reset()
        self.refresh()

    def _set_virtual_size(self, size: Size) -> None:
        """The lines' extent, without the layout that setting `virtual_size` asks for: as a
        layout would, the scrollbars are shown, hidden (that lays the screen out) or resized,
        and the scroll offset kept within the new extent."""
        if size == self.virtual_size:
            return
        self.set_reactive(Tree.virtual_size, size)
        self._scroll_update(size)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass_style = None
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """As Textual's, with the widget's style looked up once a repaint, not once a line
        (it walks the ancestors' backgrounds: 40 us a line)."""
        if self._pass_style is None:
            self._pass_style = self.rich_style
        scroll_x, scroll_y = self.scroll_offset
        return self._render_line(
            y + scroll_y, scroll_x, scroll_x + self.size.width, self._pass_style
        )

    def notify_style_update(self) -> None:
        self._style_updates += 1
        super().notify_style_update()

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """Textual keeps drawn lines until any node is added or removed, then draws every
        visible line again (an item boundary: 47 lines, 12 ms). A line is kept here by all it
        is drawn from (its row, its nodes, their state, the widths and styles), so only the
        lines that changed are drawn again."""
        lines = self._tree_lines
        if y >= len(lines):
            return super()._render_line(y, x1, x2, base_style)
        line = lines[y]
        *ancestors, node = line.path
        key = (
            y,
            x1,
            x2,
            self.virtual_size.width,
            self._style_updates,
            self._pseudo_class_state,
            base_style,
            self.hover_line == y,
            self.cursor_line == y,
            line.last,
            node._id,
            node._updates,
            node.is_last,
            # Of an ancestor, a line shows only its guide (by whether it is last) and the
            # guide's style (mouse over, cursor on it), not its label: a step relabels the
            # response, and keyed by its update count every line below it was drawn again
            # whenever they all were repainted (a node added: 47 lines, 8 ms).
            *[(a._id, a.is_last, a._hover_, a._selected_) for a in ancestors],
        )
        strip = self._drawn.get(key)
        if strip is None:
            strip = self._drawn[key] = super()._render_line(y, x1, x2, base_style)
        return strip

    _subtree_refresh = False
    """Set while the cursor or the mouse moves, whose repaint covers the node's children."""

    @contextmanager
    def _children_repainted(self) -> Iterator[None]:
        self._subtree_refresh = True
        try:
            yield
        finally:
            self._subtree_refresh = False

    def watch_cursor_line(self, previous_line: int, line: int) -> None:
        with self._children_repainted():
            super().watch_cursor_line(previous_line, line)

    def watch_hover_line(self, previous_hover_line: int, hover_line: int) -> None:
        with self._children_repainted():
            super().watch_hover_line(previous_hover_line, hover_line)
