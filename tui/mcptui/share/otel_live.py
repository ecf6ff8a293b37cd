"""`--otlp URL` on `run`, `proxy` and `tap`: spans sent as each response (or MCP call) ends,
never in the way of the run.

What a run hands over is a finished piece (`submit`: the events of a response, or a tap's
call) and it returns at once: a bounded queue (`MAX_PENDING` pieces) that, when full, drops the
piece and counts it. One worker thread builds the spans with the code `mcptui export --otlp`
uses (tui/mcptui/share/otel_export.py), and the SDK's BatchSpanProcessor, itself a bounded
queue (`MAX_QUEUE` spans) with a thread of its own, sends them over OTLP/HTTP. A collector
that is down or slow therefore costs the run nothing: the relay and the recording never wait,
and what could not be sent is counted, with why (connection refused, no answer in time, an
HTTP status), in the one line `finish` gives at the end. `finish` waits at most the export
timeout (and a second) for what is still queued: a collector that hangs cannot hold the exit.

The failure reasons come from the OTLP exporter's own log records (its public logger), kept
instead of printed (tui/mcptui/share/otel_reasons.py): the exporter reports a failed export
only as FAILURE.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mcptui.model.textsafe import one_line
from mcptui.share.otel_export import new_provider, shown_url, tracer_of
from mcptui.share.otel_reasons import (
    EXPORTER_LOGGER,
    ReasonKeeper,
    Tally,
    why_unsent,
    worth_saying,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
    from opentelemetry.trace import Tracer

    from mcptui.capture.captures import Capture, CaptureHub, Exchange
    from mcptui.capture.tap import TapHub
    from mcptui.model.events import Event
    from mcptui.share.otel_export import Emitted
    from mcptui.sources.live import LiveRun

MAX_PENDING = 256
"""Finished pieces (responses, calls) waiting for their spans to be built."""
MAX_QUEUE = 4096
"""Spans waiting to be sent (the BatchSpanProcessor's queue)."""
BATCH_DELAY_MS = 500
"""How long a span waits for others to go with it."""

Build = Callable[["Tracer"], "Emitted | int"]
"""A piece's spans, built with the tracer: how many (or what `emit` counts)."""


class CountingExporter:
    """The OTLP exporter, counting what it sent and what it could not; `explain` says why
    an export failed when the exporter's log did not (it logs none when its retries ran out
    of time)."""

    def __init__(
        self, inner: SpanExporter, tally: Tally, explain: Callable[[], str] | None = None
    ) -> None:
        self.inner = inner
        self.tally = tally
        self.explain = explain

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        from opentelemetry.sdk.trace.export import SpanExportResult

        try:
            result = self.inner.export(spans)
        except Exception as exc:  # any transport failure: counted, never raised into the SDK
            self.tally.reason(one_line(str(exc), 120))
            result = SpanExportResult.FAILURE
        with self.tally.lock:
            if result == SpanExportResult.SUCCESS:
                self.tally.sent += len(spans)
            else:
                self.tally.failed += len(spans)
            unexplained = result != SpanExportResult.SUCCESS and not any(self.tally.reasons)
        if unexplained and self.explain is not None:
            self.tally.reason(self.explain())
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def said(text: str) -> str:
    """`finish`'s lines as the command prints them, each after `mcptui: `."""
    return "\n".join(f"mcptui: {line}" for line in text.splitlines())


def print_end(export: LiveExport) -> None:
    """A command's end of its live export on stderr: a line when the last spans keep it
    waiting, then what was sent and not."""

    def told(line: str) -> None:
        print(said(line), file=sys.stderr, flush=True)

    told(export.finish(waiting=told))


class LiveExport:
    """One run's live OTLP export: `submit` pieces as they finish, `finish` at the end."""

    def __init__(self, url: str, timeout: float, exporter: SpanExporter | None = None) -> None:
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.url = url
        self.timeout = timeout
        self.tally = Tally()
        self._keeper: ReasonKeeper | None = None
        explain = None
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=url, timeout=timeout)
            explain = partial(why_unsent, url, timeout)
            self._keep_reasons()
        self.processor = BatchSpanProcessor(
            CountingExporter(exporter, self.tally, explain),  # type: ignore[arg-type]
            max_queue_size=MAX_QUEUE,
            schedule_delay_millis=BATCH_DELAY_MS,
            export_timeout_millis=int(timeout * 1000),
        )
        self.provider = new_provider(self.processor)
        self.tracer = tracer_of(self.provider)
        self._pending: queue.Queue[Build | None] = queue.Queue(MAX_PENDING)
        self._worker = threading.Thread(target=self._build_all, name="otlp spans", daemon=True)
        self._worker.start()
        self._finished: str | None = None
        self.interrupted = False
        """Ctrl+C cut `finish`'s wait for the collector."""

    def _keep_reasons(self) -> None:
        logger = logging.getLogger(EXPORTER_LOGGER)
        self._keeper = ReasonKeeper(self.tally, self.timeout)
        logger.addHandler(self._keeper)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
        # A logging configuration applied since they were made (`disable_existing_loggers`)
        # may have switched the exporter's loggers off: their records are the reasons.
        for name, known in list(logging.root.manager.loggerDict.items()):
            if name.startswith(EXPORTER_LOGGER) and isinstance(known, logging.Logger):
                known.disabled = False
        # The SDK's own warnings (a full queue: counted here) are not for the terminal either.
        logging.getLogger("opentelemetry.sdk").setLevel(logging.CRITICAL)

    def submit(self, build: Build) -> bool:
        """Hand a finished piece over; False (and counted) when the queue is full. Never
        waits."""
        try:
            self._pending.put_nowait(build)
        except queue.Full:
            with self.tally.lock:
                self.tally.pieces_dropped += 1
            return False
        return True

    def _build_all(self) -> None:
        while (build := self._pending.get()) is not None:
            try:
                made = build(self.tracer)
            except Exception as exc:  # a piece that cannot be built is one line at the end
                self.tally.reason(f"a span could not be built: {one_line(str(exc), 120)}")
                continue
            spans = made if isinstance(made, int) else made.spans
            note = None if isinstance(made, int) else made.context_note()
            with self.tally.lock:
                self.tally.built += spans
                if note and note not in self.tally.context_notes:
                    self.tally.context_notes.append(note)

    def finish(self, waiting: Callable[[str], None] | None = None) -> str:
        """Send what is queued (waiting at most the export timeout and a second) and say, in
        one line, how many spans were sent and how many were not, and why (and, on a line
        of its own, when tapped calls carried no trace context). `waiting` is told, once a
        second has gone by, that the end waits for the collector (and how to stop it)."""
        if self._finished is not None:
            return self._finished
        deadline = self.timeout + 1.0
        closing = threading.Thread(target=self._close, name="otlp finish", daemon=True)
        closing.start()
        try:
            closing.join(min(1.0, deadline))
            if closing.is_alive() and waiting is not None:
                waiting(
                    f"OTLP: sending the last spans to {shown_url(self.url)} (up to "
                    f"{deadline - 1.0:g} s more; Ctrl+C leaves them unsent)"
                )
            closing.join(max(deadline - 1.0, 0.0))
        except KeyboardInterrupt:  # Ctrl+C while waiting: the rest stays unsent, and is said
            self.interrupted = True
        self._finished = self.summary(timed_out=closing.is_alive())
        if self._keeper is not None:
            logging.getLogger(EXPORTER_LOGGER).removeHandler(self._keeper)
        return self._finished

    def _close(self) -> None:
        try:
            self._pending.put(None)
            self._worker.join()
            self.provider.shutdown()
        except Exception as exc:
            self.tally.reason(one_line(str(exc), 120))

    def summary(self, *, timed_out: bool = False) -> str:
        with self.tally.lock:
            tally = self.tally
            dropped = max(tally.built - tally.sent, 0)
            where = shown_url(self.url)
            line = f"OTLP: sent {tally.sent} span{'s' if tally.sent != 1 else ''} to {where}"
            if dropped or tally.pieces_dropped:
                parts = []
                if dropped:
                    parts.append(f"{dropped} span{'s' if dropped != 1 else ''} not sent")
                if tally.pieces_dropped:
                    parts.append(
                        f"{tally.pieces_dropped} finished response"
                        f"{'s' if tally.pieces_dropped != 1 else ''} or call"
                        f"{'s' if tally.pieces_dropped != 1 else ''} dropped (queue full)"
                    )
                why = worth_saying(tally.reasons)
                if dropped and not why:
                    why = ["the collector did not take them"]
                if timed_out:
                    why.append(f"still unsent after {self.timeout:g} s at exit")
                line += ", " + ", ".join(parts)
                if why:
                    line += f" ({'; '.join(why)})"
            elif timed_out:
                line += f" (still sending after {self.timeout:g} s at exit)"
            notes = list(tally.context_notes)
        return "\n".join([line, *notes])


# -- what each command hands over ------------------------------------------------------------


def follow_run(export: LiveExport, live: LiveRun) -> None:
    """`run --otlp` / `attach --otlp`: once each send (or attach) has followed its response
    to the end, that response's spans (each response once, whatever follows it)."""
    session = live.session
    sent: set[int] = set()  # touched by the worker thread only

    def settled() -> None:
        events = list(session.timeline.events)  # a snapshot: later events do not change it
        header = session.header
        source = session.recording_path or session.source
        secrets = list(live.secrets)

        def build(tracer: Tracer) -> Emitted:
            from mcptui.io.recording import Loaded
            from mcptui.share.inspect_output import Inspection
            from mcptui.share.otel_export import inspection_spans

            loaded = Loaded(events, header=header, format="live run", source=source)
            loaded.secrets = secrets
            inspection = Inspection.of(loaded)
            keys = {r.key for r in inspection.timeline.state.responses} - sent
            sent.update(keys)
            return inspection_spans(tracer, inspection, keys)

        export.submit(build)

    live.on_settled = settled


class CaptureFollower:
    """`proxy --otlp`: a captured response's spans once it is settled (terminal, its exchange
    failed, or a foreground stream ended), as `proxy --no-tui` reports it; what is still open
    when the proxy stops goes at `flush`. Runs in the relay's thread (or the recorder child):
    it only takes a snapshot of the capture's events and hands it over."""

    def __init__(self, export: LiveExport, hub: CaptureHub) -> None:
        self.export = export
        self.hub = hub
        self.sent: set[int] = set()
        self.owns_events = not hub.keep_events
        """No one else keeps the events (the terminal UI): a settled capture's are dropped."""
        hub.keep_events = True
        self.earlier = hub.on_exchange_end
        hub.on_exchange_end = self.exchange_ended

    def exchange_ended(self, capture: Capture, exchange: Exchange) -> None:
        settled = capture.terminal or capture.failed_exchange or not capture.background
        if settled and capture.key not in self.sent:
            self.send(capture)
            if self.owns_events and capture.terminal:
                capture.events = []
        if self.earlier is not None:
            self.earlier(capture, exchange)

    def send(self, capture: Capture) -> None:
        self.sent.add(capture.key)
        events = list(capture.events)
        header = capture.header
        source = str(capture.path or f"proxy capture {capture.key}")
        secrets = list(capture.secrets)

        def build(tracer: Tracer) -> Emitted:
            from mcptui.io.recording import Loaded
            from mcptui.share.inspect_output import Inspection
            from mcptui.share.otel_export import inspection_spans

            loaded = Loaded(events, header=header, format="proxy capture", source=source)
            loaded.secrets = secrets
            return inspection_spans(tracer, Inspection.of(loaded))

        self.export.submit(build)

    def flush(self) -> None:
        """The proxy stopped: what was never settled is sent as it stands."""
        for capture in list(self.hub.captures):
            if capture.key not in self.sent and capture.events:
                self.send(capture)


class TapFollower:
    """`tap --otlp`: each MCP request's span once its answer (or its failure) has crossed;
    at `flush` (the tap stopping) the requests still unanswered, as errors. Notifications
    and the event stream make no span. Runs in the relay's thread (or the recorder child): it
    only keeps each note and, on an answer, hands over how far the notes go."""

    def __init__(self, export: LiveExport, hub: TapHub) -> None:
        import time

        self.export = export
        self.hub = hub
        self.events: list[Event] = []
        """Every note, in order (appended here, read by the worker up to a length handed
        over: a list's first n items never change)."""
        self.origin_ns = time.time_ns() - round((hub.clock() - hub.start) * 1e9)
        self.sent: set[int] = set()
        """First-note indexes of the requests whose spans were built (worker thread only)."""
        self.window = 0
        """Index of the oldest note that may still belong to an unanswered request."""
        self.earlier = hub.on_event
        hub.on_event = self.noted

    def noted(self, event: Event) -> None:
        self.events.append(event)
        raw = event.raw
        if raw.get("direction") == "received" or raw.get("kind") != "mcp":
            self.export.submit(partial(self.build, len(self.events), None))
        if self.earlier is not None:
            self.earlier(event)

    def build(self, upto: int, unanswered: str | None, tracer: Tracer) -> int:
        from mcptui.model.redaction import hide_known
        from mcptui.model.wire import exchanges
        from mcptui.share.otel_export import Clock, tap_call_span

        events = self.events
        clock = Clock(self.origin_ns, True, None)
        hide = partial(hide_known, known=list(self.hub.secrets))
        count = 0
        oldest = upto
        for exchange in exchanges(range(self.window, upto), events):
            first = exchange.notes[0]
            if exchange.method is None or exchange.request is None:
                continue
            if "id" not in exchange.request or first in self.sent:
                continue
            if not exchange.answered and unanswered is None:
                oldest = min(oldest, first)
                continue
            self.sent.add(first)
            tap_call_span(tracer, exchange, events, clock, hide, unanswered=unanswered)
            count += 1
        self.window = oldest
        return count

    def flush(self) -> None:
        self.export.submit(
            partial(self.build, len(self.events), "no answer before the tap stopped")
        )
