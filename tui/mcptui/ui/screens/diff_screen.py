"""`mcptui diff A B` in a terminal: the two runs as one tree with markers, and both sides of
the highlighted row in a detail pane.

Each row is an aligned response or item: `=` the same, `≠` differs in shape, `~` differs only
in what two good runs never share (timing, usage, text), `+` only in B, `−` only in A. The
first divergence is selected at open; `f` / `F` go to the next / previous row that differs.
Below 100 columns the detail goes under the tree instead of beside it, so rows keep their
width. Text from the files is shown literally (`visible()`, `Text`), never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree as RichTree
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Static, Tree
from textual.widgets.tree import TreeNode

from mcptui.model.redaction import redact, redact_text
from mcptui.model.run_diff import (
    NAMED_CALLS,
    USAGE_KEYS,
    Change,
    Comparison,
    ItemPair,
    ResponsePair,
    Run,
    response_failure,
    status_word,
    tool_seconds,
    usage_of,
)
from mcptui.model.state import ItemState, ResponseState, parse_json_text
from mcptui.model.textsafe import one_line, visible
from mcptui.share.diff_output import MARK_STYLE, change_lines, headline, safe
from mcptui.share.inspect_output import add_causes
from mcptui.share.status_marks import STATUS_MARK, seconds, status_text
from mcptui.ui.safe_app import SafeApp

RowRef = tuple[ResponsePair, ItemPair | None]
"""What a tree node stands for: a response pair, or one of its item rows."""
NARROW = 100
"""Below this many columns the detail pane goes under the tree."""
LEGEND = (
    "= the same · ≠ differs in shape · ~ differs only in timing, usage or text · "
    "+ only in B · − only in A. f / F: next / previous difference; q: quit."
)


def marker_of(ref: RowRef) -> str:
    pair, row = ref
    return pair.marker if row is None else row.marker


def changes_of(ref: RowRef) -> list[Change]:
    pair, row = ref
    return pair.changes if row is None else row.changes


def status_pair(word_a: str | None, word_b: str | None) -> Text:
    """`✓ completed` when both agree, `✓ completed → ✗ failed` when not, `(A only)`…"""

    def one(word: str) -> Text:
        return Text(f"{STATUS_MARK.get(word, '·')} ").append_text(status_text(word))

    if word_b is None:
        return one(word_a or "unknown").append(" (A only)", "dim")
    if word_a is None:
        return one(word_b).append(" (B only)", "dim")
    if word_a == word_b:
        return one(word_a)
    return one(word_a).append(" → ", "dim").append_text(one(word_b))


def item_name(item: ItemState) -> str:
    words = [f"#{'?' if item.output_index is None else item.output_index}", item.type]
    if item.name:
        words.append(item.name)
    if item.server_label:
        words.append(f"@{item.server_label}")
    return " ".join(words)


def row_label(ref: RowRef) -> Text:
    """`≠ #2 mcp_call search_files @files  ✓ completed → ✗ failed`."""
    pair, row = ref
    marker = marker_of(ref)
    label = Text(f"{marker} ", MARK_STYLE[marker])
    if row is None:
        label.append(f"response {pair.position + 1}", "bold")
        words = [None if side is None else (side.status or "unknown") for side in (pair.a, pair.b)]
    else:
        label.append(one_line(item_name(row.item), 80), "bold red" if row.item.failed else "bold")
        words = [
            None if side is None else status_word(resp, side)
            for side, resp in ((row.a, pair.a), (row.b, pair.b))
        ]
    return label.append("  ").append_text(status_pair(*words))


class DiffScreen(Screen[None]):
    """The aligned tree on the left (or on top), the highlighted row's two sides beside it."""

    DEFAULT_CSS = """
    DiffScreen { layout: vertical; }
    DiffScreen #diff-header { height: auto; max-height: 5; padding: 0 1; background: $panel;
                              text-wrap: nowrap; text-overflow: ellipsis; }
    DiffScreen #diff-panes { height: 1fr; }
    DiffScreen #diff-tree { width: 1fr; height: 1fr; }
    DiffScreen #diff-detail { width: 1fr; height: 1fr; padding: 0 1;
                              border-left: solid $primary-background; }
    DiffScreen.narrow #diff-panes { layout: vertical; }
    DiffScreen.narrow #diff-tree { width: 1fr; height: auto; max-height: 45%; }
    DiffScreen.narrow #diff-detail { width: 1fr; height: 1fr; border-left: none;
                                     border-top: solid $primary-background; }
    """
    BINDINGS = [
        Binding("f", "next_difference", "Next diff"),
        Binding("F", "previous_difference", "Prev diff", key_display="F"),
        Binding("question_mark", "legend", "Markers", key_display="?"),
        Binding("escape", "back", "Back", key_display="esc"),
    ]

    def __init__(
        self, comparison: Comparison, names: tuple[str, str], *, closable: bool = False
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.names = names
        self.closable = closable
        """Opened over the inspector (`D`): Esc goes back to it. `mcptui diff` has nothing
        under it."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.closable if action == "back" else True

    def action_back(self) -> None:
        if self.closable:
            self.dismiss()

    def compose(self) -> ComposeResult:
        yield Static(self.header(), id="diff-header")
        with Horizontal(id="diff-panes"):
            tree: Tree[RowRef] = Tree("diff", id="diff-tree")
            tree.show_root = False
            tree.auto_expand = False
            yield tree
            with VerticalScroll(id="diff-detail"):
                yield Static(
                    Text("Select a row to compare its two sides.", "dim"), id="diff-detail-body"
                )
        yield Footer()

    def header(self) -> Text:
        """The verdict, both files, and where B first failed when that is not the first
        divergence (the row selected at open)."""
        text = headline(self.comparison)
        for name, path in zip("AB", self.names, strict=True):
            text.append("\n").append(f"{name} ", "bold").append(one_line(path or "<input>", 300))
        first, failure = self.comparison.first, self.comparison.first_failure
        if failure is not None and failure is not first:
            text.append("\nfirst failure in B: ", "bold").append(
                safe(f"{failure.subject}: {failure.summary}", 300), "red"
            )
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    @property
    def tree(self) -> Tree[RowRef]:  # type: ignore[override]  # DOMNode.tree: a debug view
        return self.query_one("#diff-tree", Tree)

    @property
    def detail_body(self) -> Static:
        return self.query_one("#diff-detail-body", Static)

    def on_mount(self) -> None:
        tree = self.tree
        for pair in self.comparison.responses:
            node = tree.root.add(row_label((pair, None)), data=(pair, None), expand=True)
            for row in pair.items:
                node.add_leaf(row_label((pair, row)), data=(pair, row))
        self.set_class(self.app.size.width < NARROW, "narrow")
        tree.focus()
        # Nodes get their lines when the tree is laid out: select after that.
        self.call_after_refresh(self.select_first)

    def select_first(self) -> None:
        """The first divergence, else the first row that differs, else the first row."""
        tree = self.tree
        start = self.node_of(self.comparison.first) or next(self.differing(), None)
        tree.move_cursor(start or (tree.root.children[0] if tree.root.children else None))
        self.show(tree.cursor_node)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")

    def nodes(self) -> Iterator[TreeNode[RowRef]]:
        for node in self.tree.root.children:
            yield node
            yield from node.children

    def differing(self) -> Iterator[TreeNode[RowRef]]:
        return (
            node for node in self.nodes() if node.data is not None and marker_of(node.data) != "="
        )

    def node_of(self, change: Change | None) -> TreeNode[RowRef] | None:
        if change is None:
            return None
        for node in self.nodes():
            pair, row = node.data if node.data is not None else (None, None)
            if (
                pair is not None
                and pair.position == change.response
                and (
                    (row is None and change.row is None)
                    or (row is not None and row.position == change.row)
                )
            ):
                return node
        return None

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[RowRef]) -> None:
        self.show(event.node)

    def show(self, node: TreeNode[RowRef] | None) -> None:
        if node is None or node.data is None:
            return
        self.detail_body.update(detail(self.comparison, node.data))

    def step(self, forward: bool) -> None:
        """Move to the next (or previous) row that differs, wrapping around."""
        current = self.tree.cursor_node
        here = -1
        marked: list[tuple[int, TreeNode[RowRef]]] = []
        for position, node in enumerate(self.nodes()):
            if node is current:
                here = position
            if node.data is not None and marker_of(node.data) != "=":
                marked.append((position, node))
        if not marked:
            self.app.notify("The two runs do not differ.")
            return
        if forward:
            target = next((n for p, n in marked if p > here), marked[0][1])
        else:
            target = next((n for p, n in reversed(marked) if p < here), marked[-1][1])
        self.tree.move_cursor(target)

    def action_next_difference(self) -> None:
        self.step(forward=True)

    def action_previous_difference(self) -> None:
        self.step(forward=False)

    def action_legend(self) -> None:
        self.app.notify(LEGEND, timeout=10)


# -- the detail pane ------------------------------------------------------------------------


def detail(comparison: Comparison, ref: RowRef) -> RenderableType:
    """Both sides of one row, its differences, and the likely cause of B's failure."""
    pair, row = ref
    title = Text(f"{marker_of(ref)} ", MARK_STYLE[marker_of(ref)])
    if row is None:
        title.append(f"response {pair.position + 1}", "bold")
        table = response_table(comparison, pair)
    else:
        title.append(one_line(item_name(row.item), 200), "bold")
        table = item_table(comparison, pair, row)
    parts: list[RenderableType] = [title, table]
    changes = changes_of(ref)
    if changes:
        parts.append(Text("\nDifferences", "bold"))
        parts += [
            line for change in changes for line in change_lines(change, subject=False, causes=False)
        ]
    elif marker_of(ref) == "=":
        parts.append(Text("\nThe same in both runs.", "green"))
    failed = next((change for change in changes if change.causes), None)
    if failed is not None:
        tree = RichTree(Text("\nWhy B failed", "bold red"), guide_style="dim")
        if failed.error:
            tree.add(Text(safe(failed.error), "red"))
        add_causes(tree, failed.causes)
        parts.append(tree)
    return Group(*parts)


def side_table() -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, expand=True)
    table.add_column("", style="dim", no_wrap=True)
    table.add_column("A", ratio=1, overflow="fold")
    table.add_column("B", ratio=1, overflow="fold")
    return table


Cell = Callable[[Any, Any, Run], Text]
"""(this side's item or response, its response, its run) → the cell."""
ABSENT = Text("—", "dim")


def add_sides(table: Table, name: str, sides: list[tuple[Any, Any, Run]], cell: Cell) -> None:
    table.add_row(
        name, *(ABSENT if thing is None else cell(thing, resp, run) for thing, resp, run in sides)
    )


def item_table(comparison: Comparison, pair: ResponsePair, row: ItemPair) -> Table:
    table = side_table()
    sides = [(row.a, pair.a, comparison.a), (row.b, pair.b, comparison.b)]
    add_sides(table, "item", sides, lambda item, _r, _run: Text(one_line(item_name(item), 200)))
    add_sides(table, "status", sides, lambda item, resp, _run: status_text(status_word(resp, item)))
    if any(item is not None and item.failed for item, _, _ in sides):
        add_sides(
            table,
            "error",
            sides,
            lambda item, _r, _run: Text(safe(item.error_text) if item.failed else "", "red"),
        )
    add_sides(table, "duration", sides, lambda item, _r, _run: Text(seconds(item.duration) or "?"))
    if row.item.type == "mcp_call":
        add_sides(
            table,
            "tool time",
            sides,
            lambda item, resp, run: Text(seconds(tool_seconds(run, resp, item)) or "?"),
        )
    if row.item.type in NAMED_CALLS:
        add_sides(table, "arguments", sides, lambda item, _r, _run: Text(shown_arguments(item)))
    if row.item.type == "mcp_list_tools":
        add_sides(
            table,
            "tools",
            sides,
            lambda item, _r, _run: Text(one_line(", ".join(item.tool_names), 400)),
        )
    if row.item.type == "message":
        add_sides(table, "text", sides, lambda item, _r, _run: Text(one_line(item.text, 300)))
    return table


def shown_arguments(item: ItemState) -> str:
    """The arguments as compact JSON, credentials hidden, on one line."""
    value = redact(parse_json_text(item.arguments))
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return one_line(redact_text(text), 600)


def response_table(comparison: Comparison, pair: ResponsePair) -> Table:
    table = side_table()
    sides = [(pair.a, pair.a, comparison.a), (pair.b, pair.b, comparison.b)]
    add_sides(table, "id", sides, lambda resp, _r, _run: Text(visible(resp.id or "(no id)")))
    add_sides(table, "status", sides, lambda resp, _r, _run: status_text(resp.status or "unknown"))
    if any(resp is not None and resp.failed for resp, _, _ in sides):
        add_sides(
            table,
            "error",
            sides,
            lambda resp, _r, run: Text(safe(response_failure(run, resp)[0] or ""), "red"),
        )
    add_sides(table, "model", sides, lambda resp, _r, _run: Text(visible(resp.model or "?")))
    add_sides(table, "duration", sides, lambda resp, _r, _run: Text(seconds(resp.duration) or "?"))
    add_sides(table, "tokens", sides, lambda resp, _r, _run: Text(tokens(resp)))
    add_sides(table, "items", sides, lambda resp, _r, _run: Text(str(len(resp.items))))
    return table


def tokens(resp: ResponseState) -> str:
    """`in 2873 out 388 total 3261`: integers only, never text from the stream."""
    counts = usage_of(resp)
    if not counts:
        return "?"
    return " ".join(f"{word} {counts.get(key, '?')}" for key, word in USAGE_KEYS)


# -- the app --------------------------------------------------------------------------------


class DiffApp(SafeApp):
    """Runs the diff screen; exits 0 (the same shape) or 1 (they differ), and like
    every mcptui app turns a crash into one line and exit 3 (`mcptui.cli.common.run_app` prints
    it)."""

    TITLE = "mcptui diff"
    BINDINGS = [
        Binding("q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, comparison: Comparison, names: tuple[str, str]) -> None:
        super().__init__()
        self.comparison = comparison
        self.names = names

    @property
    def code(self) -> int:
        return 0 if self.comparison.same else 1

    def on_mount(self) -> None:
        self.push_screen(DiffScreen(self.comparison, self.names))

    async def action_quit(self) -> None:
        self.exit(return_code=self.code)
