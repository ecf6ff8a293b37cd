"""The app's colours follow the Textual theme: a failed call's red is the theme's error colour,
its green the success colour, and the JSON view's highlighting suits a light theme."""

from __future__ import annotations

from _app_support import SAMPLE_424, SIZE, screen_of
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.theme_colours import terminal_theme
from mcptui.ui.widgets.detail import JsonSyntax
from textual.color import Color


def colour(app: McptuiApp, name: str) -> str:
    return Color.parse(app.current_theme.to_color_system().generate()[name]).hex.lower()


async def test_a_failure_is_drawn_in_the_themes_error_colour_and_follows_a_switch():
    app = McptuiApp(open_session(str(SAMPLE_424)), open_at="end")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shots = {}
        for name in ("textual-dark", "nord", "dracula"):
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            svg = app.export_screenshot().lower()
            error, success = colour(app, "error"), colour(app, "success")
            assert error in svg, name  # the failed call's ✗ and error line
            assert success in svg, name  # the completed items' ✓
            shots[name] = (error, success)
        assert len({error for error, _ in shots.values()}) == 3  # three themes, three reds


def test_the_ansi_palette_is_the_themes():
    from textual.theme import BUILTIN_THEMES

    light = BUILTIN_THEMES["textual-light"]
    palette = terminal_theme(light)
    error = Color.parse(light.to_color_system().generate()["error"])
    assert tuple(palette.ansi_colors[1]) == (error.r, error.g, error.b)  # red
    assert tuple(palette.ansi_colors[9]) == (error.r, error.g, error.b)  # bright red


async def test_the_json_view_highlights_for_the_themes_darkness():
    app = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert screen.detail.dark is True
        app.theme = "textual-light"
        await pilot.pause()
        assert screen.detail.dark is False
    assert JsonSyntax("{}", dark=False).detail_key != JsonSyntax("{}", dark=True).detail_key


async def test_the_theme_chosen_is_the_next_run_s(tmp_path, monkeypatch):
    """Issue 39: the theme picked in the palette is remembered (mcptui/io/settings.py); a
    settings file that cannot be read is as if there were none."""
    import json

    monkeypatch.setenv("MCPTUI_CONFIG_DIR", str(tmp_path))
    app = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme != "nord"
        app.theme = "nord"
        await pilot.pause()
    assert json.loads((tmp_path / "state.json").read_text())["theme"] == "nord"

    again = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "nord"
        assert again.current_theme.name == "nord"

    (tmp_path / "state.json").write_text("{not json")
    third = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    async with third.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert third.theme == "textual-dark"


async def test_the_config_files_theme_wins_over_the_palettes(tmp_path, monkeypatch, capsys):
    """Issue 39: `theme` in config.toml is the theme the app starts in, over the one
    remembered from the palette; a theme that does not exist is exit 2 naming the line."""
    from mcptui.cli import defaults
    from mcptui.cli.common import run_app
    from mcptui.io.config import Config, Setting
    from mcptui.io.settings import remember

    remember("theme", "dracula")
    app = McptuiApp(open_session(str(SAMPLE_424)), open_at="end")
    assert app.theme == "dracula"
    assert app.start_in_theme("nord") is None
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.current_theme.name == "nord"
        assert colour(app, "error") in app.export_screenshot().lower()

    path = tmp_path / "config.toml"
    monkeypatch.setattr(defaults, "current", Config(path, True, theme=Setting("nordd", 3)))
    refused = McptuiApp(open_session(str(SAMPLE_424)), paused=True)
    assert run_app(refused) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mcptui: {path}:3: theme: no theme is called 'nordd' (one of: ")
    assert "nord," in err
