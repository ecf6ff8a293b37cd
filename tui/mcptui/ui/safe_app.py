"""What every mcptui app does the same way: a crash is one line, a toast is literal text."""

from __future__ import annotations

import sys

from rich.text import Text
from textual.app import App
from textual.notifications import SeverityLevel

from mcptui.model.redaction import hide_known, redact_text
from mcptui.model.textsafe import visible


class SafeApp(App[None]):
    """An app whose crash and toasts cannot leak: `mcptui.cli.main.run_app` runs it."""

    crash: str | None = None
    """After an internal error: the one line to print once the terminal is restored."""

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
