"""`mcptui proxy --no-tui`: one line per response the app's traffic made, and its failures.

A response is reported once it is settled: it reached a terminal status, its exchange failed
(an HTTP error, a broken stream, an unreachable upstream), or a foreground stream ended without
a terminal event. A background response that is still running is reported when a later poll or
resume settles it. What is still open when the proxy stops is reported then.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from datetime import datetime

from rich.console import Console
from rich.text import Text

from mcptui.capture.captures import Capture, CaptureHub, Exchange
from mcptui.io.recording import Loaded
from mcptui.model.textsafe import one_line, visible
from mcptui.share.inspect_output import Inspection
from mcptui.share.status_marks import status_text


class CapturePrinter:
    """Follows the hub's exchanges; `finish` when the proxy stops.

    Reports are written by a thread of their own, in order: inspecting a long capture takes a
    good fraction of a second, which the proxy's event loop (every other stream the app has
    open) must not wait for. A capture that completed with no failure signal is not inspected
    at all. A settled capture's events are handed over and dropped: a proxy left running all
    day keeps no more than what is still open."""

    def __init__(self, hub: CaptureHub, console: Console) -> None:
        self.hub = hub
        self.console = console
        hub.keep_events = True
        hub.on_exchange_end = self.exchange_ended
        hub.on_problem = self.problem
        self.reported: dict[int, str | None] = {}
        """Capture key → the status it was reported with."""
        self.failed: set[int] = set()
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._writer = threading.Thread(
            target=self._write_reports, name="proxy reports", daemon=True
        )
        self._writer.start()

    def exchange_ended(self, capture: Capture, exchange: Exchange) -> None:
        if self._settled(capture) and self.reported.get(capture.key, "") != capture.status:
            self.report(capture, exchange.what)

    def problem(self, message: str) -> None:
        line = Text(f"mcptui: {visible(message)}", "bold red")
        self._queue.put(lambda: self.console.print(line, soft_wrap=True))

    @staticmethod
    def _settled(capture: Capture) -> bool:
        return capture.terminal or capture.failed_exchange or not capture.background

    def finish(self) -> None:
        """Report what is still open, and wait until every report is written."""
        for capture in self.hub.captures:
            if capture.key not in self.reported:
                self.report(capture, "still open when the proxy stopped")
        self._queue.put(None)
        self._writer.join()

    def report(self, capture: Capture, what: str) -> None:
        self.reported[capture.key] = capture.status
        line = self._line(capture, what)
        if capture.clean:
            capture.events = []
            self._queue.put(lambda: self.console.print(line, soft_wrap=True))
            return
        events = capture.events
        if capture.terminal:
            capture.events = []
        else:
            events = list(events)
        loaded = Loaded(events, header=capture.header, format="proxy capture")
        self.failed.add(capture.key)  # not clean: the inspection says what failed
        self._queue.put(lambda: self._print_with_failures(capture.key, line, loaded))

    def _write_reports(self) -> None:
        while (job := self._queue.get()) is not None:
            job()

    @staticmethod
    def _line(capture: Capture, what: str) -> Text:
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
        return line

    def _print_with_failures(self, key: int, line: Text, loaded: Loaded) -> None:
        inspection = Inspection.of(loaded)
        self.console.print(line, soft_wrap=True)
        if not inspection.failures:
            self.failed.discard(key)
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
