"""`mcptui proxy --no-tui`: one line per response the app's traffic made, and its failures.

A response is reported once it is settled: it reached a terminal status, its exchange failed
(an HTTP error, a broken stream, an unreachable upstream), or a foreground stream ended without
a terminal event. A background response that is still running is reported when a later poll or
resume settles it. What is still open when the proxy stops is reported then.
"""

from __future__ import annotations

from datetime import datetime

from rich.console import Console
from rich.text import Text

from tui.capture.captures import Capture, CaptureHub, Exchange
from tui.io.recording import Loaded
from tui.model.textsafe import one_line, visible
from tui.report import Inspection
from tui.styles import status_text


class CapturePrinter:
    """Follows the hub's exchanges; `finish` when the proxy stops."""

    def __init__(self, hub: CaptureHub, console: Console) -> None:
        self.hub = hub
        self.console = console
        hub.on_exchange_end = self.exchange_ended
        hub.on_problem = self.problem
        self.reported: dict[int, str | None] = {}
        """Capture key → the status it was reported with."""
        self.failed: set[int] = set()

    def exchange_ended(self, capture: Capture, exchange: Exchange) -> None:
        if self._settled(capture) and self.reported.get(capture.key, "") != capture.status:
            self.report(capture, exchange.what)

    def problem(self, message: str) -> None:
        self.console.print(Text(f"mcptui: {visible(message)}", "bold red"), soft_wrap=True)

    @staticmethod
    def _settled(capture: Capture) -> bool:
        return capture.terminal or capture.failed_exchange or not capture.background

    def finish(self) -> None:
        for capture in self.hub.captures:
            if capture.key not in self.reported:
                self.report(capture, "still open when the proxy stopped")

    def report(self, capture: Capture, what: str) -> None:
        self.reported[capture.key] = capture.status
        inspection = Inspection.of(Loaded(list(capture.events), header=capture.header,
                                          format="proxy capture"))
        line = Text(datetime.now().strftime("%H:%M:%S "), "dim")
        line.append(one_line(what, 120), "bold")
        line.append("  ")
        if capture.response_id is None:
            line.append(f"HTTP {capture.http_status}: no response", "bold red")
        else:
            line.append(visible(capture.response_id))
            line.append("  ")
            line.append_text(status_text(capture.status or "unknown"))
        client = (capture.header or {}).get("source", {}).get("client", {})
        if isinstance(client, dict) and client.get("user-agent"):
            line.append(f"  {one_line(str(client['user-agent']), 60)}", "dim")
        if capture.path is not None:
            line.append(f"  → {visible(str(capture.path))}", "dim")
        self.console.print(line, soft_wrap=True)
        if inspection.failures:
            self.failed.add(capture.key)
        for failure in inspection.failures:
            text = Text("    ✗ ", "bold red")
            text.append(visible(failure.type), "bold")
            if failure.name:
                text.append(f" {visible(failure.name)}", "bold")
            text.append(f"  {one_line(failure.error, 300)}", "red")
            causes = inspection.causes_of(failure)
            if causes:
                top = causes[0]
                text.append(f"  {top.confidence}: {top.cause.title}", "yellow")
            self.console.print(text, soft_wrap=True)
