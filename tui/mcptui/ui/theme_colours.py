"""The app's colours follow the Textual theme, named Rich colours included.

The tree, the detail pane and the header build Rich `Text` with named colours ("bold red" for
a failure, "green" for completed, "yellow" for a warning), as `inspect` does with its own
table (share/status_marks.py). Textual draws a named colour through its ANSI palette; mapping
that palette's red, green, yellow and blue onto the theme's error, success, warning and primary
colours makes every one of them follow a theme switch (the palette's "Change theme"), the JSON
view's highlighting too, without a second table of colours to keep.
"""

from __future__ import annotations

from rich.terminal_theme import TerminalTheme
from textual._ansi_theme import ALABASTER, MONOKAI  # Textual's own defaults, as a base
from textual.color import Color
from textual.theme import Theme

RGB = tuple[int, int, int]
SEMANTIC = {1: "error", 2: "success", 3: "warning", 4: "primary"}
"""ANSI colour number (red, green, yellow, blue) → the theme colour it is drawn in."""


def terminal_theme(theme: Theme) -> TerminalTheme:
    """Textual's ANSI palette for `theme`'s darkness, its semantic colours the theme's."""
    base = MONOKAI if theme.dark else ALABASTER
    colours = theme.to_color_system().generate()

    def rgb(name: str) -> RGB:
        colour = Color.parse(colours[name])
        return (colour.r, colour.g, colour.b)

    palette: list[RGB] = []
    for number in range(16):  # the normal eight, then the bright eight
        semantic = SEMANTIC.get(number % 8)
        red, green, blue = base.ansi_colors[number]
        palette.append(rgb(semantic) if semantic else (red, green, blue))
    background, foreground = base.background_color, base.foreground_color
    return TerminalTheme(
        (background.red, background.green, background.blue),
        (foreground.red, foreground.green, foreground.blue),
        palette[:8],
        palette[8:],
    )


def theme_problem(name: str) -> str | None:
    """Why `name` is no theme the app can start in (the configuration file's `theme`), or
    None: the app's themes are Textual's built-in ones."""
    from textual.theme import BUILTIN_THEMES

    if name in BUILTIN_THEMES:
        return None
    return f"no theme is called {name!r} (one of: {', '.join(sorted(BUILTIN_THEMES))})"
