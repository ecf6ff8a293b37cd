"""What reading a paste left out is said in the app too, as `inspect` lists it: a toast when
the file opens (Node's cuts, prose skipped), never nothing."""

from __future__ import annotations

from pathlib import Path

from _app_support import SIZE, toasts, wait_until
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp

NODE_PASTE = Path(__file__).resolve().parents[1] / "fixtures" / "pastes" / "node-console.txt"


async def test_a_node_paste_opens_saying_what_node_cut() -> None:
    session = open_session(str(NODE_PASTE))
    assert session.problems  # what `inspect` lists under "Problems reading the input"
    app = McptuiApp(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await wait_until(
            pilot, lambda: any("Reading the input" in t for t in toasts(pilot)), 5
        )
        (toast,) = [t for t in toasts(pilot) if "Reading the input" in t]
        assert "values Node's console.log cut short ([Object], ... more items) left out" in toast


async def test_a_clean_recording_opens_without_such_a_toast(tmp_path: Path) -> None:
    recording = Path(__file__).resolve().parents[2] / "recordings" / "mcp-success.jsonl"
    app = McptuiApp(open_session(str(recording)))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert not [t for t in toasts(pilot) if "Reading the input" in t]
