"""Each collaborator of the inspector screen, driven through its own methods rather than keys:
what it owns and what it does, one by one (ui/screens/*.py)."""

from __future__ import annotations

import json
from pathlib import Path

from _app_support import SAMPLE_424, SIZE, header_text, screen_of, wait_until
from mcptui.io.formats import load_path
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp


def paused_app() -> McptuiApp:
    return McptuiApp(open_session(str(SAMPLE_424)), paused=True)


async def test_playback_goes_to_a_step_and_stops_following():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(10)
        await pilot.pause()
        assert screen.session.timeline.position == 10
        assert "step 10 / " in header_text(screen)
        screen.playback._manual()
        assert not screen.session.player.playing


async def test_the_header_clock_shows_the_recorded_time_of_the_step():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(screen.session.timeline.total)
        now, silence = screen.header_clock.clock_now()
        assert now > 0 and silence == 0
        screen.header_clock.refresh_header()
        assert f"t={now:.2f}s" in header_text(screen)
        assert not screen.header_clock.clock_running()


async def test_diagnosing_checks_the_events_and_finds_the_failed_call():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(screen.session.timeline.total)
        screen.diagnosing.diagnose(force=True)
        assert await wait_until(
            pilot,
            lambda: (
                screen.diagnosing._diagnosed_total == screen.session.timeline.total
                and screen.diagnosing.diagnosis is not None
            ),
        )
        assert screen.diagnosing.diagnosis is not None
        assert screen.diagnosing.diagnosis.item_causes  # a likely cause for the 424


async def test_loading_has_nothing_to_read_in_a_whole_file():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert screen.rest_reader.reading is None
        assert screen.rest_reader.start_loading() is False


async def test_the_detail_view_gives_the_selected_events_json():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(3)
        await pilot.pause()
        text = screen.detail_view.selected_event_json()
        assert text is not None
        shown = json.loads(text)  # the selected node's JSON: an event, its item or response
        assert isinstance(shown, dict) and shown


async def test_the_filter_keeps_the_matching_events_and_says_so_in_the_header():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(screen.session.timeline.total)
        screen.tree_filter.filter_text = "mcp_call.failed"
        screen.tree.prepare_filter(lambda: False)
        screen.tree_filter._apply_filter("mcp_call.failed")
        await pilot.pause()
        assert screen.tree.filter_matches >= 1
        assert "filter: mcp_call.failed" in header_text(screen)


async def test_file_actions_save_a_recording_that_reads_back(tmp_path: Path):
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(screen.session.timeline.total)
        written = screen.files.save_to(tmp_path / "saved.jsonl")
        assert len(load_path(str(written)).events) == screen.session.timeline.total
        assert screen.files.default_save_path().suffix == ".jsonl"


async def test_live_and_cause_actions_offer_nothing_in_a_replay():
    async with paused_app().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.playback.go_to(screen.session.timeline.total)
        assert screen.live_actions.live is None
        assert screen.live_actions._live_keys() == frozenset()
        blocked = screen.cause_actions._no_request("background off")
        assert blocked is not None and "mcptui run" in blocked.sentence()


async def test_share_actions_write_the_report_beside_the_recording(tmp_path: Path):
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(SAMPLE_424.read_bytes())
    app = McptuiApp(open_session(str(copy)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        screen.share_actions.action_report()
        assert await wait_until(pilot, lambda: (tmp_path / "run-report.md").exists())
        assert (
            "broken" in (tmp_path / "run-report.md").read_text()
            or "424" in (tmp_path / "run-report.md").read_text()
        )
