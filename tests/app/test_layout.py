"""How the screen is split between the tree and the detail pane, as a user sees it: at 80
columns the detail pane has room for its diagnosis; at 200 the tree takes no more than its
lines need; `z` gives the detail the width, then the tree all of it, then the split again."""

from __future__ import annotations

import pytest
from _app_support import SAMPLE_424, detail_text, rendered_lines, screen_of, wait_until
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from textual.widget import Widget


def app_on_failure() -> McptuiApp:
    return McptuiApp(open_session(str(SAMPLE_424), instant=True, whole=True), open_at="failure")


def widths(app: McptuiApp) -> tuple[int, int]:
    """The columns the tree and the right pane take on screen (0: not shown)."""
    screen = app.screen
    tree, side = screen.query_one("#tree", Widget), screen.query_one("#side", Widget)
    return tree.outer_size.width, side.outer_size.width if side.display else 0


@pytest.mark.parametrize(
    ("columns", "tree_at_most", "detail_at_least"), [(80, 32, 48), (120, 54, 66), (200, 76, 124)]
)
async def test_the_split_gives_the_detail_room_and_the_tree_no_empty_width(
    columns: int, tree_at_most: int, detail_at_least: int
):
    app = app_on_failure()
    async with app.run_test(size=(columns, 30)) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: "diagnosis" in detail_text(screen))
        tree, side = widths(app)
        assert tree <= tree_at_most and side >= detail_at_least and tree + side == columns
        # The widest line of the tree's failed call (its error line) is seen whole at 200.
        if columns == 200:
            error = "unhandled errors in a TaskGroup (1 sub-exception)"
            assert any(error in line for line in rendered_lines(screen.tree))


async def test_z_cycles_wide_detail_tree_only_and_back():
    app = app_on_failure()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(pilot)
        split = widths(app)
        await pilot.press("z")
        await pilot.pause()
        assert screen.layout_name == "detail"
        tree, side = widths(app)
        assert tree < split[0] and side > split[1] and side >= 56
        await pilot.press("z")
        await pilot.pause()
        assert screen.layout_name == "tree" and widths(app) == (80, 0)
        await pilot.press("z")
        await pilot.pause()
        assert screen.layout_name == "split" and widths(app) == split
