"""The terminal UI exits as `inspect` does (README): 1 when what it showed holds a failure, 0
when not; the proxy's and tap's views exit 0, what they relayed being data."""

from __future__ import annotations

from pathlib import Path

import pytest
from _app_support import SAMPLE_424, SAMPLE_SUCCESS, SIZE
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp


@pytest.mark.parametrize(
    ("sample", "code"), [(SAMPLE_424, 1), (SAMPLE_SUCCESS, 0)], ids=["failure", "clean"]
)
@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_quitting_a_replay_exits_like_inspect(sample: Path, code: int, key: str) -> None:
    app = McptuiApp(open_session(str(sample)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        await pilot.pause()
    assert app.return_code == code


async def test_a_failure_not_yet_stepped_to_still_counts() -> None:
    """Paused at step 0, the failure is in the file all the same: the code is the file's."""
    app = McptuiApp(open_session(str(SAMPLE_424)), paused=True, open_at=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1


async def test_a_stream_cut_off_before_its_end_exits_1(tmp_path: Path) -> None:
    """A recording cut short (Ctrl+C mid-run): `inspect` says `unfinished` and exits 1, and
    quitting the app shown to its end says the same."""
    lines = SAMPLE_SUCCESS.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    app = McptuiApp(open_session(str(cut)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1
