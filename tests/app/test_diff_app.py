"""`mcptui diff A B` in a terminal: one tree of aligned rows with markers, the first
divergence selected at open, both sides of a row in the detail, `f` / `F` between differences,
and the exit code of the comparison. At 80 columns, as most terminals open."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

from _app_support import (
    SAMPLE_424,
    SAMPLE_SUCCESS,
    TASKGROUP_ERROR,
    recorded_events,
    rendered_lines,
    write_chunks,
)
from mcptui.share.diff_output import compare_files
from mcptui.ui.screens.diff_screen import DiffApp, DiffScreen
from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot

NARROW = (80, 24)
CAUSE = "Output schema without structuredContent"


def app_for(a: Path | str, b: Path | str) -> DiffApp:
    loaded, comparison = compare_files(str(a), str(b))
    assert comparison is not None
    return DiffApp(comparison, (loaded[0].source, loaded[1].source))


def screen_of(pilot: Pilot[Any]) -> DiffScreen:
    screen = pilot.app.screen
    assert isinstance(screen, DiffScreen), f"expected the diff screen, got {screen!r}"
    return screen


def row_labels(screen: DiffScreen) -> list[str]:
    return [
        node.label.plain if isinstance(node.label, Text) else str(node.label)
        for node in screen.nodes()
    ]


def cursor_label(screen: DiffScreen) -> str:
    node = screen.tree.cursor_node
    assert node is not None
    return node.label.plain if isinstance(node.label, Text) else str(node.label)


def detail_text(screen: DiffScreen) -> str:
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(screen.detail_body.content)
    return console.export_text()


def succeeded(path: Path, out: Path) -> Path:
    """The recording with its failed call completed instead: the same run, working."""
    events = copy.deepcopy(recorded_events(path))

    def mend(item: dict[str, Any]) -> None:
        if item.get("type") == "mcp_call":
            item.update(error=None, output='{"files": []}', status="completed")

    for event in events:
        if event["type"] == "response.mcp_call.failed":
            event["type"] = "response.mcp_call.completed"
        elif event["type"] == "response.output_item.done":
            mend(event["item"])
        elif event["type"] == "response.completed":
            for item in event["response"]["output"]:
                mend(item)
    return write_chunks(out, events)


async def test_the_shipped_pair_opens_on_the_first_divergence_and_f_goes_to_the_failure():
    app = app_for(SAMPLE_SUCCESS, SAMPLE_424)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        screen = screen_of(pilot)
        assert screen.has_class("narrow")
        assert row_labels(screen) == [
            "~ response 1  ✓ completed",
            "≠ #0 mcp_list_tools @files  ✓ completed",
            "= #1 reasoning  ✓ completed",
            "≠ #2 mcp_call search_files @files  ✓ completed → ✗ failed",
            "= #3 reasoning  ✓ completed",
            "~ #4 message  ✓ completed",
        ]
        assert cursor_label(screen) == "≠ #0 mcp_list_tools @files  ✓ completed"
        assert "a different server: @docs in A, @files in B" in detail_text(screen)
        header = "\n".join(rendered_lines(screen.query_one("#diff-header")))
        assert "first failure in B: mcp_call search_files @files (#2)" in header

        await pilot.press("f")
        assert cursor_label(screen).startswith("≠ #2 mcp_call search_files")
        shown = detail_text(screen)
        assert TASKGROUP_ERROR in shown and CAUSE in shown
        assert "completed in A, failed in B" in shown
        await pilot.press("f", "f")  # the message (~), then around to the response
        assert cursor_label(screen) == "~ response 1  ✓ completed"
        await pilot.press("F")
        assert cursor_label(screen) == "~ #4 message  ✓ completed"
        await pilot.press("q")
    assert app.return_code == 1


async def test_a_call_that_failed_only_in_b_is_selected_at_open_with_error_and_cause(
    tmp_path: Path,
):
    app = app_for(succeeded(SAMPLE_424, tmp_path / "worked.jsonl"), SAMPLE_424)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        screen = screen_of(pilot)
        row = "≠ #2 mcp_call search_files @files  ✓ completed → ✗ failed"
        assert cursor_label(screen) == row
        assert any(line.rstrip().endswith(row) for line in rendered_lines(screen.tree)), (
            "the row does not fit in 80 columns"
        )
        shown = detail_text(screen)
        assert "completed in A, failed in B: " + TASKGROUP_ERROR in shown
        assert "Why B failed" in shown and f"possible cause: {CAUSE}" in shown
        # both sides' arguments, the same here
        assert shown.count('{"query": "Q3 budget forecast"') == 2


async def test_a_run_against_itself_shows_every_row_the_same_and_exits_0():
    app = app_for(SAMPLE_424, SAMPLE_424)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = screen_of(pilot)
        assert not screen.has_class("narrow")
        assert {label[0] for label in row_labels(screen)} == {"="}
        await pilot.press("f")
        assert "do not differ" in " ".join(str(toast.render()) for toast in screen.query("Toast"))
        await pilot.press("q")
    assert app.return_code == 0
