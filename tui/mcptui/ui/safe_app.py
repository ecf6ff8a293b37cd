"""What every mcptui app does the same way: a crash is one line, a toast is literal text."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import App
from textual.notifications import SeverityLevel
from textual.screen import Screen

from mcptui.io.settings import remember, remembered
from mcptui.model.redaction import hide_known, redact_text
from mcptui.model.textsafe import visible
from mcptui.ui.css_cache import cached, save
from mcptui.ui.theme_colours import terminal_theme


class SafeApp(App[None]):
    """An app whose crash and toasts cannot leak: `mcptui.cli.common.run_app` runs it."""

    crash: str | None = None
    """After an internal error: the one line to print once the terminal is restored."""
    when_shown: Callable[[], object] | None = None
    """Called once the first screen is painted: `run_app` turns the cyclic collector back on
    there (`mcptui.cli.common.hold_collector`), so that it does not walk, during start-up,
    the widgets, styles and rules that live as long as the app."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stylesheet = cached(self.stylesheet)  # parsed CSS read back (ui/css_cache.py)
        saved = remembered("theme")  # the theme chosen last time (io/settings.py)
        if isinstance(saved, str) and saved in self.available_themes:
            self.set_reactive(App.theme, saved)  # before the first frame: no watcher yet
        self._follow_theme(refresh=False)
        self._after_frame: list[Callable[[], object]] = []

    def start_in_theme(self, name: str) -> str | None:
        """Start in the configuration file's theme (io/config.py), which wins over the one
        remembered from the palette; a theme chosen in the palette still applies until the
        app exits. Why `name` cannot be used, or None."""
        from mcptui.ui.theme_colours import theme_problem

        if name not in self.available_themes:
            return theme_problem(name) or f"no theme is called {name!r}"
        self.set_reactive(App.theme, name)
        self._follow_theme(refresh=False)
        return None

    def on_mount(self) -> None:  # (Textual also runs the subclasses' own on_mount)
        if self.when_shown is not None:
            self.after_frame(self.when_shown)

    def after_frame(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the next frame has been drawn (handed to the terminal, or
        composed when headless), with what is changed by now in it.

        Textual's `call_after_refresh` is no such promise at start-up: a screen with nothing
        marked for repaint yet runs its callbacks at once, so the first checks (a thread)
        started before the first frame of a small recording and shared the GIL with drawing
        it (bench/cold_start.py)."""
        self._after_frame.append(callback)

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        """Textual's one place where a frame is written: `after_frame`'s callbacks follow."""
        drawn = renderable is not None and not self._batch_count
        super()._display(screen, renderable)
        if drawn and self._after_frame:
            waiting, self._after_frame = self._after_frame, []
            for callback in waiting:
                self.call_next(callback)

    async def on_unmount(self) -> None:  # (as on_mount: the subclasses' own run too)
        save(self.stylesheet)  # what this run parsed that the cache did not hold

    def watch_theme(self) -> None:
        self._follow_theme(refresh=True)
        remember("theme", self.theme)  # chosen in the palette: the next run's too

    def _follow_theme(self, *, refresh: bool) -> None:
        """Named colours in the app's Rich text take the theme's colours (ui/theme_colours.py)."""
        palette = terminal_theme(self.current_theme)
        which = App.ansi_theme_dark if self.current_theme.dark else App.ansi_theme_light
        if refresh:
            setattr(self, which.name, palette)  # its watcher redraws
        else:  # in __init__: no watcher may run yet, the filter is set up from it below
            self.set_reactive(which, palette)
            self._refresh_truecolor_filter(palette)

    def _fatal_error(self) -> None:
        """An unhandled exception (Textual's hook; its own prints a traceback with local
        variables, API keys included): the traceback goes to the error log, redacted, and
        the app exits 3 with one line."""
        from mcptui.io.crash_log import EXIT_INTERNAL, crash_line, log_crash

        exc = self._exception or sys.exc_info()[1] or RuntimeError("unknown error")
        self.crash = crash_line(exc, log_crash(exc))
        self.bell()
        self._return_code = EXIT_INTERNAL
        self._close_messages_no_wait()

    def notify(
        self,
        message: str | Text,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast as literal text: a path like `x[/b]y` or an event's content is shown
        as typed (Textual would read it as markup, and it cannot render a rich Text); and
        redacted, as a recording is (an error message may echo a secret)."""
        plain = message.plain if isinstance(message, Text) else str(message)
        known = self.session_secrets()
        plain, title = (hide_known(redact_text(text), known) for text in (plain, title))
        super().notify(
            visible(plain), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    def session_secrets(self) -> list[str]:
        """Secrets to hide in every toast (an error may echo a request's URL or header)."""
        return []
