"""The app answers keys whatever it is working on (issue 35): `q` quits while a filter over a
heavy file is still being worked out. Filtering wrote the JSON of every event on the event
loop: one event listing 200,000 tools (or 3M events) froze the app for 16 s, `q` unanswered
and the keys typed meanwhile landing in the filter box."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import mcptui.ui.widgets.event_tree as event_tree
import pytest
from _app_support import SAMPLE_424, SIZE, detail_text, find_node, screen_of, select, wait_until
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp

GUARD = 30.0
"""How long the held filter work waits to be let go: a runaway guard, never reached when the
app answers keys while it works."""


class HeldJson:
    """`json` for the event tree whose `dumps` (the filter's work for each event) waits
    until the test lets it go, so the work is still going on when `q` is pressed."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.go = threading.Event()
        self.held_too_long = False

    def dumps(self, value: Any, **options: Any) -> str:
        self.started.set()
        if not self.go.wait(GUARD):
            self.held_too_long = True  # it held the event loop: nothing else could run
            self.go.set()
        return json.dumps(value, **options)


async def test_q_quits_while_a_filter_is_being_worked_out(monkeypatch: pytest.MonkeyPatch):
    held = HeldJson()
    monkeypatch.setattr(event_tree, "json", held)
    app = McptuiApp(open_session(str(SAMPLE_424), instant=True, whole=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.tree.timeline.position > 0, 10)
        await pilot.press("slash", "x", "enter")
        assert await wait_until(pilot, held.started.is_set, GUARD)
        await pilot.press("q")
        quit_while_held = app.return_code is not None and not held.go.is_set()
        held.go.set()  # let the work end: it stops at the quit
    assert quit_while_held
    assert not held.held_too_long
    assert app.return_code == 1  # as inspect: the recording holds a failure


async def test_a_filter_worked_out_apart_shows_its_matches(tmp_path: Path):
    app = McptuiApp(open_session(str(SAMPLE_424), instant=True, whole=True))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.tree.timeline.position > 0, 10)
        await pilot.press("slash", *"mcp_call.failed", "enter")
        assert await wait_until(pilot, lambda: screen.tree.filter_text == "mcp_call.failed", 10)
        assert screen.tree.filter_matches == 1


def many_tools_recording(path: Path, count: int) -> Path:
    """A recording whose one item lists `count` tools."""
    tools = [{"name": f"tool_{n}", "input_schema": {"type": "object"}} for n in range(count)]
    item = {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "docs", "tools": tools}
    events = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {**item, "tools": []},
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 2,
            "output_index": 0,
            "item": item,
        },
    ]
    header = {"mcptui": "recording", "format": 1, "request": {"model": "m", "input": "x"}}
    path.write_text(
        "\n".join(
            [
                json.dumps(header),
                *(json.dumps({"t": 0.1 * n, "event": e}) for n, e in enumerate(events)),
            ]
        )
        + "\n"
    )
    return path


async def test_a_listing_of_many_tools_shows_its_start_and_how_much_more(tmp_path: Path):
    """All 200,000 names were one paragraph, wrapped on every repaint: seconds a frame."""
    path = many_tools_recording(tmp_path / "tools.jsonl", 20_000)
    app = McptuiApp(open_session(str(path), instant=True, whole=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.tree.timeline.position == 3, 10)
        await select(pilot, find_node(screen, lambda label: "mcp_list_tools" in label, "item"))
        await pilot.pause()
        shown = detail_text(screen)
    assert "tools (20,000)" in shown
    assert "tool_0, tool_1, tool_2" in shown and "tool_19999" not in shown
    assert "more characters not shown: press m to show more" in shown
