"""Keys people expect, with toasts rendered: help, Ctrl+C, saving to any path, the footer at
80 columns, and the first screen after a run that failed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _app_support import (
    SAMPLE_424,
    SAMPLE_SUCCESS,
    SIZE,
    TASKGROUP_ERROR,
    detail_text,
    first_node,
    footer_actions,
    footer_columns,
    footer_keys,
    footer_line,
    header_text,
    recorded_events,
    rendered_lines,
    screen_of,
    toasts,
    wait_until,
)
from mcptui.cli.common import run_app
from mcptui.io.formats import load_path
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.keys import KeysScreen
from mcptui.ui.screens.prompt import ConfirmScreen, PromptScreen
from mcptui.ui.widgets.footer import FittingFooter
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Tooltip

EVENTS_424 = recorded_events(SAMPLE_424)


def app_for(path: Path, **options: object) -> McptuiApp:
    return McptuiApp(open_session(str(path), **options), paused=not options)  # type: ignore[arg-type]


async def save_as(pilot, path: Path) -> None:  # type: ignore[no-untyped-def]
    """`s`, replace the offered path with `path`, Enter."""
    await pilot.press("s")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PromptScreen)
    pilot.app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")
    await pilot.pause()


# -- toasts are text, never markup ---------------------------------------------------------------


async def test_filter_toast_renders(tmp_path: Path):
    """The first `/` + Enter used to crash: a rich Text handed to notify."""
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        await pilot.press("end", "slash", *"mcp_call", "enter")
        assert await wait_until(
            pilot, lambda: any("events match 'mcp_call'" in t for t in toasts(pilot))
        )
        assert isinstance(pilot.app.screen, InspectorScreen)


async def test_saving_to_a_path_with_markup_shows_it_literally(tmp_path: Path):
    target = tmp_path / "[b]x[/b]y[bold red].jsonl"
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        await save_as(pilot, target)
        shown = f"Saved {len(EVENTS_424)} events to {target}"
        assert await wait_until(pilot, lambda: any(shown in t for t in toasts(pilot))), toasts(
            pilot
        )
        assert isinstance(pilot.app.screen, InspectorScreen)
    assert [e.raw for e in load_path(str(target)).events] == EVENTS_424


async def test_saving_over_an_existing_file_asks_first(tmp_path: Path):
    target = tmp_path / "kept.jsonl"
    target.write_text("my notes\n", encoding="utf-8")
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        await save_as(pilot, target)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "exists. Overwrite it?" in confirm.question
        await pilot.press("enter")  # Enter is not yes: a second Enter must not overwrite
        assert pilot.app.screen is confirm
        await pilot.press("n")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "my notes\n"
        assert any("Not saved" in t for t in toasts(pilot))

        await save_as(pilot, target)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(pilot.app.screen, InspectorScreen)
    assert [e.raw for e in load_path(str(target)).events] == EVENTS_424
    assert [p.name for p in tmp_path.iterdir()] == ["kept.jsonl"]  # no partial file left


async def test_q_then_s_at_once_quits_cleanly():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q", "s")
        await pilot.pause()
    assert app.return_code == 1  # as inspect: the recording holds a failure


# -- help and quitting ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["question_mark", "f1"])
async def test_help_lists_the_keys_of_the_screen(key: str):
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        inspector = screen_of(pilot)
        await pilot.press(key)
        await pilot.pause()
        help_screen = pilot.app.screen
        assert isinstance(help_screen, KeysScreen)
        text = "\n".join(rendered_lines(help_screen.query_one("Static")))
        for words in (
            "Quit",
            "Show only events whose type or content matches",
            "Select the next failed call or error",
            "Save this session",
            "Right pane: detail, findings, waterfall",
        ):
            assert words in text, words
        assert "→ n" in text  # both keys of a binding are named
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is inspector


async def test_ctrl_c_quits_even_from_the_filter_box():
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "x", "ctrl+c")
        await pilot.pause()
    assert app.return_code == 1  # as inspect: the recording holds a failure
    assert app._exit


def test_a_crash_exits_3_with_one_line_and_a_logged_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)

    class Broken(McptuiApp):
        def on_mount(self) -> None:
            api_key = "sk-proj-NEVERSHOWN12345"  # a local a traceback with locals would show
            raise RuntimeError(f"boom {len(api_key)}")

    app = Broken(open_session(str(SAMPLE_SUCCESS)))
    headless = App.run
    monkeypatch.setattr(App, "run", lambda self: headless(self, headless=True))
    assert run_app(app) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith("mcptui: internal error: RuntimeError: boom 23") and "\n" not in err
    log = (tmp_path / "mcptui-recordings" / "mcptui-error.log").read_text()
    assert "Traceback" in log and "RuntimeError: boom 23" in log and "on_mount" in log
    assert "NEVERSHOWN" not in err + log


# -- footer at 80 columns ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (100, 30), SIZE])
async def test_the_essential_keys_fit_in_the_footer(size: tuple[int, int]):
    async with app_for(SAMPLE_424).run_test(size=size) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        shown = footer_actions(screen)
        assert {"help", "quit", "step_forward", "next_failure", "cycle_view"} <= shown
        footer = screen.query_one(FittingFooter)
        for key, columns in footer_columns(screen):  # every key drawn is whole, on screen
            assert columns.stop <= size[0], key.description
            for x in columns:
                assert screen.get_widget_at(x, footer.region.y)[0] is footer, key.description
                assert footer.entry_at(x - footer.region.x) == key, key.description


async def test_the_footer_changes_its_keys_only_when_what_they_show_changes():
    """The screen says its bindings changed after every refresh of them; the footer folds and
    repaints its keys again only when the keys shown differ (on a failed call, `probe`
    comes)."""
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        before = footer_keys(screen)
        assert "probe" not in {key.action for key in before}

        for _ in range(3):
            screen.refresh_bindings()
            await pilot.pause()

        assert footer_keys(screen) is before  # the same keys: nothing was made again
        await pilot.press("f")  # the first failure: the cursor lands on the failed call
        assert await wait_until(pilot, lambda: "probe" in footer_actions(screen))
        assert footer_keys(screen) != before
        assert await wait_until(pilot, lambda: "p Probe" in footer_line(screen))


async def test_the_footer_folds_again_when_the_terminal_narrows_to_80_columns():
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: "Quit" in footer_line(screen))
        wide = footer_keys(screen)
        await pilot.resize_terminal(80, 24)
        assert await wait_until(pilot, lambda: len(footer_keys(screen)) < len(wide))
        assert {"help", "quit", "step_forward", "next_failure", "cycle_view"} <= footer_actions(
            screen
        )
        assert all(columns.stop <= 80 for _, columns in footer_columns(screen))
        await pilot.resize_terminal(*SIZE)
        assert await wait_until(pilot, lambda: footer_keys(screen) == wide)


async def test_clicking_a_key_in_the_footer_runs_it():
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.pause()
        assert screen.session.timeline.position == 0
        column = next(c for key, c in footer_columns(screen) if key.action == "next_failure")
        assert await pilot.click(FittingFooter, offset=(column.start + 1, 0))
        assert await wait_until(pilot, lambda: screen.session.timeline.position > 0)
        assert "p Probe" in footer_line(screen)  # the failed call is selected, as `f` does


class Counting(App[None]):
    """A screen with a footer: `a` runs, `b` is shown disabled (check_action None), `t` has a
    tooltip; the inspector has neither a disabled nor a tooltipped key."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def get_default_screen(self) -> Screen[None]:
        return CountingScreen()


class CountingScreen(Screen[None]):
    BINDINGS = [
        Binding("a", "run('a')", "Alpha"),
        Binding("b", "run('b')", "Beta"),
        Binding("t", "run('t')", "Tip", tooltip="what t does"),
    ]

    def compose(self) -> ComposeResult:
        yield FittingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if parameters == ("b",) else True

    def action_run(self, name: str) -> None:
        assert isinstance(self.app, Counting)
        self.app.ran.append(name)


def column_of(footer: FittingFooter, description: str) -> int:
    """Where `description`'s key starts on the footer's drawn row."""
    line = rendered_lines(footer)[0]
    key = next(key for key in footer.shown if key.description == description)
    return line.index(f"{key.key_display} {description}")


async def test_a_disabled_key_in_the_footer_is_dim_and_a_click_on_it_does_nothing():
    app = Counting()
    async with app.run_test(size=(80, 10)) as pilot:
        footer = app.screen.query_one(FittingFooter)
        assert await wait_until(pilot, lambda: "b Beta" in rendered_lines(footer)[0])
        beta, alpha = column_of(footer, "Beta"), column_of(footer, "Alpha")
        strip = footer.render_lines(footer.region.reset_offset)[0]
        colours = [s.style.color if s.style else None for s in strip for _ in s.text]
        # Textual draws `dim` as a fainter colour: Beta's key and text are fainter than Alpha's.
        assert colours[beta] != colours[alpha] and colours[beta + 2] != colours[alpha + 2]

        await pilot.click(FittingFooter, offset=(beta, 0))
        await pilot.click(FittingFooter, offset=(alpha + 2, 0))
        assert await wait_until(pilot, lambda: app.ran == ["a"])  # Alpha ran, Beta did not


async def test_hovering_a_key_in_the_footer_shows_its_tooltip():
    app = Counting()
    async with app.run_test(size=(80, 10), tooltips=True) as pilot:
        footer = app.screen.query_one(FittingFooter)
        assert await wait_until(pilot, lambda: "t Tip" in rendered_lines(footer)[0])
        tooltip = app.screen.query_one(Tooltip)

        def showing() -> str:
            return str(tooltip.render()) if tooltip.display else ""

        await pilot.hover(FittingFooter, offset=(column_of(footer, "Tip") + 1, 0))
        assert await wait_until(pilot, lambda: "what t does" in showing())
        await pilot.hover(FittingFooter, offset=(column_of(footer, "Alpha"), 0))
        assert await wait_until(pilot, lambda: "what t does" not in showing())
        assert footer.tooltip is None  # Alpha has none


# -- the first screen after a failed run ---------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), SIZE])
async def test_an_instant_replay_opens_on_the_failure_and_its_cause(size: tuple[int, int]):
    app = app_for(SAMPLE_424, instant=True)
    async with app.run_test(size=size) as pilot:
        screen = screen_of(pilot)
        call = None

        def on_failure() -> bool:
            nonlocal call
            # None before the jump to the end.
            call = first_node(screen, lambda t: "search_files" in t, kind="item")
            return call is not None and screen.tree.cursor_node is call

        # Polled, with room for a loaded machine: the checks run in a thread (and the first
        # poll may come before the first tick has jumped to the end).
        assert await wait_until(pilot, on_failure, timeout=10)
        assert await wait_until(pilot, lambda: "possible cause" in detail_text(screen), timeout=10)
        detail = detail_text(screen)
        assert detail.index(TASKGROUP_ERROR) < detail.index(
            "possible cause: Output schema without structuredContent"
        )

        # Both are drawn on the first screen, not below the fold of the detail pane (polled:
        # the pane is laid out again after its content changes).
        def drawn() -> str:
            return "\n".join(rendered_lines(screen.detail)[: screen.detail.size.height])

        assert await wait_until(pilot, lambda: "possible cause" in drawn(), timeout=10), drawn()
        assert "424" in drawn()


async def test_a_replay_without_failure_ends_on_the_newest_event_and_says_done():
    app = app_for(SAMPLE_SUCCESS, instant=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert await wait_until(pilot, lambda: screen.session.timeline.at_end, timeout=10)
        await pilot.pause()
        cursor = screen.tree.cursor_node
        assert cursor is not None and str(cursor.label).startswith("response.completed")
        assert "done" in header_text(screen) and "playing" not in header_text(screen)
        await pilot.press("left")  # a step back: paused, and not "paused instant"
        await pilot.pause()
        header = header_text(screen)
        assert "paused" in header and "instant" not in header and "done" not in header


async def test_save_offers_the_name_automatic_recordings_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    async with app_for(SAMPLE_424).run_test(size=SIZE) as pilot:
        await pilot.press("end", "s")
        await pilot.pause()
        offered = pilot.app.screen.query_one(Input).value
        response_id = EVENTS_424[0]["response"]["id"]
        assert re.fullmatch(rf"mcptui-recordings/\d{{8}}-\d{{6}}-{response_id}\.jsonl", offered)
