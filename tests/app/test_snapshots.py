"""SVG snapshots of the inspector (pytest-textual-snapshot). They complement the Pilot tests'
assertions: a snapshot catches layout and styling changes nobody thought to assert.

Regenerate after an intended change with `pytest tests/app/test_snapshots.py --snapshot-update`
and look at the SVGs under `__snapshots__/` before committing them.
"""

from __future__ import annotations

from typing import Any

from _app_support import SIZE, expand, find_node, label_of, screen_of, select, wait_until
from snapshot_app import make_app
from textual.pilot import Pilot


async def _at_end(pilot: Pilot[Any]) -> None:
    """At the last step, with the (threaded) checks done: the photo shows their results."""
    screen = screen_of(pilot)
    await pilot.press("end")
    assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None)
    await pilot.pause()


def test_completed_mcp_stream_at_the_last_step(snap_compare):
    """mcp-success.jsonl at its last step: every item completed, response.completed selected."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _at_end(pilot)
        screen = screen_of(pilot)
        assert screen.session.timeline.at_end
        assert label_of(screen.tree.cursor_node).startswith("response.completed")

    assert snap_compare(make_app("mcp-success.jsonl"), terminal_size=SIZE, run_before=run_before)


def test_424_with_the_failed_call_selected(snap_compare):
    """The 424 sample at its last step, cursor on the failed search_files call: the detail
    pane shows its error, its likely cause, arguments and the item as last sent."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _at_end(pilot)
        screen = screen_of(pilot)
        call = find_node(screen, lambda t: "mcp_call search_files" in t, kind="item")
        await select(pilot, call)
        assert label_of(call).startswith("✗ mcp_call search_files")

    assert snap_compare(
        make_app("mcp-424-broken-schema.jsonl"), terminal_size=SIZE, run_before=run_before
    )


def test_coalesced_deltas_selected_show_the_assembled_text(snap_compare):
    """The 424 sample's message expanded, its `output_text.delta ×37` node selected: the detail
    pane shows the text the deltas assemble."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await _at_end(pilot)
        screen = screen_of(pilot)
        await expand(pilot, find_node(screen, lambda t: "message" in t, kind="item"))
        group = find_node(screen, lambda t: t.startswith("response.output_text.delta ×"))
        await select(pilot, group)

    assert snap_compare(
        make_app("mcp-424-broken-schema.jsonl"), terminal_size=SIZE, run_before=run_before
    )
