"""`mcptui watch DIR` as a user meets it: an empty folder says what it waits for; a recording
written while the app runs appears, newest first, and its row follows it as it grows; Enter
opens it in the inspector and Escape comes back to the list."""

from __future__ import annotations

import json
from pathlib import Path

from _app_support import SAMPLE_424, SAMPLE_SUCCESS, SIZE, screen_of, static_text, wait_until
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.keys import KeysScreen
from mcptui.ui.screens.watch import WatchScreen
from mcptui.ui.watch_app import WatchApp
from textual.pilot import Pilot
from textual.widgets import Static


def lines_of(sample: Path, created: str) -> list[str]:
    header, *rest = sample.read_text(encoding="utf-8").splitlines()
    header = json.dumps({**json.loads(header), "created": created})
    return [line + "\n" for line in [header, *rest]]


def watch_screen(pilot: Pilot[None]) -> WatchScreen:
    screen = pilot.app.screen
    assert isinstance(screen, WatchScreen), f"expected the list, got {screen!r}"
    return screen


def table_rows(screen: WatchScreen) -> list[list[str]]:
    """The list as drawn: each row's cells as text."""
    table = screen.table
    return [[cell.plain for cell in table.get_row_at(index)] for index in range(table.row_count)]


def status_line(screen: WatchScreen) -> str:
    return static_text(screen.query_one("#watch-status", Static))


async def test_recordings_appear_newest_first_grow_and_open_with_enter(tmp_path: Path):
    app = WatchApp(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(pilot)
        assert await wait_until(pilot, lambda: screen.polls > 0, 5)
        assert "No recordings here yet. Waiting for the *.jsonl recordings" in status_line(screen)
        assert table_rows(screen) == []

        (tmp_path / "older.jsonl").write_text(
            "".join(lines_of(SAMPLE_424, "2026-01-01T10:00:00+00:00")), encoding="utf-8"
        )
        assert await wait_until(pilot, lambda: len(screen.rows) == 1, 5)
        assert table_rows(screen)[0][2:] == ["1", "1", "older.jsonl"]
        assert table_rows(screen)[0][0] == "✗ failed"

        # A run starts: its recording is half written, and goes on being written.
        newer = lines_of(SAMPLE_SUCCESS, "2026-01-02T10:00:00+00:00")
        running = tmp_path / "newer.jsonl"
        running.write_text("".join(newer[:20]), encoding="utf-8")
        assert await wait_until(pilot, lambda: len(screen.rows) == 2, 5)
        rows = table_rows(screen)
        assert [row[4] for row in rows] == ["newer.jsonl", "older.jsonl"]  # newest first
        assert rows[0][0] == "… writing"
        assert "1 being written" in status_line(screen)

        with running.open("a", encoding="utf-8") as out:
            out.write("".join(newer[20:]))
        assert await wait_until(pilot, lambda: table_rows(screen)[0][0] == "✓ completed", 5)
        assert table_rows(screen)[0][2:] == ["1", "0", "newer.jsonl"]

        # The cursor is on the newest; Enter opens it as the replay view shows a file.
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), 5)
        inspector = screen_of(pilot)
        assert inspector.session.source == str(running)
        assert inspector.session.timeline.total == 63

        await pilot.press("escape")
        assert await wait_until(pilot, lambda: app.screen is screen, 5)

        # A cursor moved off the top stays on its recording when a newer one comes.
        await pilot.press("down")
        (tmp_path / "newest.jsonl").write_text(
            "".join(lines_of(SAMPLE_SUCCESS, "2026-01-03T10:00:00+00:00")), encoding="utf-8"
        )
        assert await wait_until(pilot, lambda: len(screen.rows) == 3, 5)
        assert [row[4] for row in table_rows(screen)] == [
            "newest.jsonl",
            "newer.jsonl",
            "older.jsonl",
        ]
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), 5)
        assert screen_of(pilot).session.source == str(tmp_path / "older.jsonl")


async def test_escape_clears_a_filter_before_it_goes_back_to_the_list(tmp_path: Path):
    (tmp_path / "one.jsonl").write_text(
        "".join(lines_of(SAMPLE_424, "2026-01-01T10:00:00+00:00")), encoding="utf-8"
    )
    app = WatchApp(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(pilot)
        assert await wait_until(pilot, lambda: len(screen.rows) == 1, 5)
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), 5)
        inspector = screen_of(pilot)
        await pilot.press("slash", *"mcp_call", "enter")
        assert await wait_until(pilot, lambda: inspector.tree_filter.filter_text == "mcp_call")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is inspector and inspector.tree_filter.filter_text == ""
        await pilot.press("escape")
        assert await wait_until(pilot, lambda: app.screen is screen, 5)


async def test_the_keys_screen_of_the_list_names_enter(tmp_path: Path):
    app = WatchApp(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        watch_screen(pilot)
        await pilot.press("question_mark")
        assert await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), 5)
        listed = static_text(app.screen.query_one(Static))
        assert "Open the selected recording in the inspector" in listed
        assert "Back to the list of recordings" in listed  # there, dimmed: not on the list


async def test_a_recording_opened_while_written_goes_on_growing(tmp_path: Path):
    """Enter on a row still `writing`: the inspector follows the file as the run writes on,
    to its end, and the header says it is following."""
    lines = lines_of(SAMPLE_424, "2026-01-02T10:00:00+00:00")
    running = tmp_path / "run.jsonl"
    running.write_text("".join(lines[:20]), encoding="utf-8")
    app = WatchApp(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(pilot)
        assert await wait_until(pilot, lambda: table_rows(screen)[:1] != [], 5)
        assert table_rows(screen)[0][0] == "… writing"
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), 5)
        inspector = screen_of(pilot)
        assert inspector.session.timeline.total == 19
        with running.open("a", encoding="utf-8") as out:
            out.write("".join(lines[20:]))
        timeline = inspector.session.timeline
        assert await wait_until(pilot, lambda: timeline.total == 61 and timeline.at_end, 5)
        header = static_text(inspector.query_one("#status", Static))
        assert "live: following" in header and "1 failure" in header
