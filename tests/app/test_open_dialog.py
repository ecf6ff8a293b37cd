"""The open dialog (`o`, issue 39): Tab completes a path typed in part and lists what is left
to choose from; the files opened before are listed, the newest first, a gone one greyed; Enter
on one opens it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _app_support import SAMPLE_424, SAMPLE_SUCCESS, toasts, wait_until
from mcptui.io.recent import note_opened, recent_files
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.open_dialog import OpenScreen
from textual import events
from textual.geometry import Region
from textual.widgets import Input, Label, OptionList

KEY_OF = {"/": "slash", "-": "minus", ".": "full_stop", "_": "underscore"}


def keys(text: str) -> list[str]:
    return [KEY_OF.get(c, c) for c in text]


def app_on(path: Path) -> McptuiApp:
    return McptuiApp(open_session(str(path)), paused=True)


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(SAMPLE_SUCCESS, folder / "alpha-run.jsonl")
    shutil.copy(SAMPLE_424, folder / "alpha-two.jsonl")
    shutil.copy(SAMPLE_SUCCESS, folder / "beta.jsonl")
    return folder


def dialog_lines(pilot) -> str:  # type: ignore[no-untyped-def]
    screen = pilot.app.screen
    assert isinstance(screen, OpenScreen)
    widgets = screen.query("Label, Input, OptionList").results()
    return "\n".join(
        strip.text
        for widget in widgets
        if widget.display
        for strip in widget.render_lines(Region(0, 0, *widget.outer_size))
    )


async def test_tab_completes_a_partial_path_and_lists_the_candidates(runs: Path):
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("ru"), "tab")
        answer = app.screen.query_one("#answer", Input)
        assert answer.value == "runs/"
        await pilot.press("a", "tab")
        assert answer.value == "runs/alpha-"  # as far as both candidates agree
        await pilot.pause()
        shown = dialog_lines(pilot)
        assert "alpha-run.jsonl  alpha-two.jsonl" in shown
        assert "beta.jsonl" not in shown
        await pilot.press("r", "tab")
        assert answer.value == "runs/alpha-run.jsonl"
        await pilot.pause()
        assert not app.screen.query_one("#candidates", Label).display  # nothing left to choose
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: app.session.source == "runs/alpha-run.jsonl")
    assert recent_files()[0].path == str(runs / "alpha-run.jsonl")


async def test_the_typed_path_shows_its_completion_greyed(runs: Path):
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("runs/b"))
        assert await wait_until(pilot, lambda: "runs/beta.jsonl" in dialog_lines(pilot))
        answer = app.screen.query_one("#answer", Input)
        assert answer.value == "runs/b"
        await pilot.press("right")  # takes the suggestion, as Textual's inputs do
        assert answer.value == "runs/beta.jsonl"


async def test_recent_files_are_listed_newest_first_and_enter_opens_one(runs: Path):
    gone = runs / "gone.jsonl"
    shutil.copy(SAMPLE_424, gone)
    note_opened(gone)
    gone.unlink()
    note_opened(runs / "beta.jsonl")
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("runs/alpha-two.jsonl"), "enter")  # opened by the dialog
        assert await wait_until(pilot, lambda: app.session.source == "runs/alpha-two.jsonl")

        await pilot.press("o")
        await pilot.pause()
        listed = app.screen.query_one("#recent", OptionList)
        paths = [str(listed.get_option_at_index(i).id) for i in range(listed.option_count)]
        assert paths == [str(runs / n) for n in ("alpha-two.jsonl", "beta.jsonl", "gone.jsonl")]
        assert [listed.get_option_at_index(i).disabled for i in range(3)] == [False, False, True]
        shown = dialog_lines(pilot)
        assert "Recent files" in shown
        assert "alpha-two.jsonl  …" in shown  # the name first, then the (long) folder
        assert re.search(r"gone\.jsonl  \S*/runs  \(gone\)", shown), shown

        for key in ("down", "down"):  # at once, as tmux sends them: the second, beta
            app.post_message(events.Key(key, None))
        assert await wait_until(pilot, lambda: listed.highlighted == 1)
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: app.session.source == str(runs / "beta.jsonl"))
        assert not isinstance(app.screen, OpenScreen)
    assert [r.path for r in recent_files()][:2] == [
        str(runs / "beta.jsonl"),
        str(runs / "alpha-two.jsonl"),
    ]


async def test_down_down_enter_sent_at_once_opens_the_second_recent_file(runs: Path):
    """tmux under load: Enter reached the box before the list had the focus, and the path
    typed (`runs/alpha-`) was opened instead of the recent file chosen."""
    note_opened(runs / "beta.jsonl")
    note_opened(runs / "alpha-two.jsonl")
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("runs/al"), "tab")
        assert app.screen.query_one("#answer", Input).value == "runs/alpha-"
        for key in ("down", "down", "enter"):  # one burst: nothing runs between them
            app.post_message(events.Key(key, None))
        assert await wait_until(pilot, lambda: app.session.source == str(runs / "beta.jsonl"))
        assert not [toast for toast in toasts(pilot) if "Could not open" in toast]


async def test_escape_leaves_the_file_shown(runs: Path):
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("runs/"), "tab", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, OpenScreen)
        assert app.session.source == str(SAMPLE_424)


async def test_keys_sent_at_once_after_o_complete_in_the_order_typed(runs: Path):
    """A burst (a paste, a fast typist, tmux send-keys): `o r u Tab a Tab` in one go, before
    the box has the focus, completes `ru` and then `runs/a`, as typed."""
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("o", "r", "u", "tab", "a", "tab"):
            app.post_message(events.Key(key, None if key == "tab" else key))
        assert await wait_until(pilot, lambda: isinstance(app.screen, OpenScreen))
        answer = app.screen.query_one("#answer", Input)
        assert await wait_until(pilot, lambda: answer.value == "runs/alpha-"), answer.value
        # and once the box has the focus, in the box's own order too
        for key in ("r", "tab"):
            app.post_message(events.Key(key, None if key == "tab" else key))
        assert await wait_until(pilot, lambda: answer.value == "runs/alpha-run.jsonl"), answer.value


async def test_enter_opens_the_path_as_shown_with_its_greyed_completion(runs: Path):
    app = app_on(SAMPLE_424)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *keys("runs/alpha-r"))
        assert await wait_until(pilot, lambda: "runs/alpha-run.jsonl" in dialog_lines(pilot))
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: app.session.source == "runs/alpha-run.jsonl")
