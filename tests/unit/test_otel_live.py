"""Live `--otlp`: the exporter's bounded queues and its end-of-run line, with the SDK's
in-memory exporter (or one that fails or hangs) in place of a collector; the span statuses of
responses that did not complete; the trace context a caller sent, as the tap keeps it."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcptui.share.otel_live as otel_live
from mcptui.io.formats import load_path
from mcptui.model.trace_context import carried, in_message, of_note, valid_traceparent
from mcptui.share.inspect_output import Inspection
from mcptui.share.otel_export import emit
from mcptui.share.otel_live import LiveExport
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

ROOT = Path(__file__).resolve().parents[2]
SUCCESS = ROOT / "recordings" / "mcp-success.jsonl"
BACKGROUND_FAILED = ROOT / "recordings" / "background-failed.jsonl"
URL = "http://127.0.0.1:4318/v1/traces"
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def spans_of(path: Path) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    emit([Inspection.of(load_path(str(path)))], memory)
    return list(memory.get_finished_spans())


def response_built(path: Path = SUCCESS) -> Any:
    """A piece as `run --otlp` hands one over: a recording's responses, built into spans."""
    from mcptui.share.otel_export import inspection_spans

    inspection = Inspection.of(load_path(str(path)))
    return lambda tracer: inspection_spans(tracer, inspection)


class Failing:
    """A collector that refuses everything."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.FAILURE

    def shutdown(self) -> None:
        pass


class Hanging(Failing):
    """A collector that does not answer until the test lets it."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.release.wait()
        return SpanExportResult.FAILURE


def test_the_spans_of_a_finished_response_reach_the_exporter_and_are_counted():
    memory = InMemorySpanExporter()
    export = LiveExport(URL, 5.0, memory)
    assert export.submit(response_built())
    line = export.finish()
    sent = memory.get_finished_spans()
    assert [s.name for s in sent if s.parent is None] == ["chat gpt-5-mini"]
    assert line == f"OTLP: sent {len(sent)} spans to {URL}"
    assert export.finish() == line  # said once, the same


def test_a_collector_that_refuses_is_counted_and_said():
    export = LiveExport(URL, 5.0, Failing())  # type: ignore[arg-type]
    export.submit(response_built())
    line = export.finish()
    assert line.startswith(f"OTLP: sent 0 spans to {URL}, ")
    assert "spans not sent (the collector did not take them)" in line


def test_a_collector_that_hangs_cannot_hold_the_end():
    hanging = Hanging()
    export = LiveExport(URL, 0.2, hanging)  # type: ignore[arg-type]
    try:
        export.submit(response_built())
        line = export.finish()  # returns although the export never does
    finally:
        hanging.release.set()
    assert "spans not sent" in line
    assert "still unsent after 0.2 s at exit" in line


def test_the_end_says_it_waits_and_ctrl_c_cuts_the_wait():
    """Past a second the end says that it waits for the collector; a Ctrl+C then (raised
    here where the person reads that line) leaves the rest unsent, said, and marked."""
    hanging = Hanging()
    export = LiveExport(URL, 30.0, hanging)  # type: ignore[arg-type]
    told: list[str] = []

    def waiting(line: str) -> None:
        told.append(line)
        raise KeyboardInterrupt

    try:
        export.submit(response_built())
        line = export.finish(waiting=waiting)
    finally:
        hanging.release.set()
    assert told == [
        f"OTLP: sending the last spans to {URL} (up to 30 s more; Ctrl+C leaves them unsent)"
    ]
    assert export.interrupted
    assert "spans not sent" in line


def test_a_full_queue_drops_and_counts_instead_of_waiting(monkeypatch):
    monkeypatch.setattr(otel_live, "MAX_PENDING", 2)
    gate = threading.Event()
    memory = InMemorySpanExporter()
    export = LiveExport(URL, 5.0, memory)

    def slow(tracer: Any) -> int:
        gate.wait()
        return 0

    try:
        results = [export.submit(slow) for _ in range(5)]
    finally:
        gate.set()
    assert results.count(False) >= 2  # the worker holds one, the queue two
    line = export.finish()
    dropped = results.count(False)
    assert f"{dropped} finished responses or calls dropped (queue full)" in line


def recording_with(tmp_path: Path, change: Any, source: Path = SUCCESS) -> Path:
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    lines = change(lines)
    path = tmp_path / "changed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def root_of(spans: list[ReadableSpan]) -> ReadableSpan:
    return next(s for s in spans if s.parent is None)


def test_a_stream_cut_short_is_an_error(tmp_path: Path):
    path = recording_with(tmp_path, lambda lines: lines[:-1])  # no terminal event
    root = root_of(spans_of(path))
    assert root.status.status_code == StatusCode.ERROR
    assert "cut short" in (root.status.description or "")
    assert root.attributes is not None and root.attributes["error.type"] == "cut_short"


def test_an_incomplete_response_is_an_error_with_its_reason(tmp_path: Path):
    def incomplete(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last = lines[-1]["event"]
        last["type"] = "response.incomplete"
        last["response"]["status"] = "incomplete"
        last["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
        return lines

    root = root_of(spans_of(recording_with(tmp_path, incomplete)))
    assert root.status.status_code == StatusCode.ERROR
    assert root.status.description == "response incomplete: max_output_tokens"
    assert root.attributes is not None
    assert tuple(root.attributes["gen_ai.response.finish_reasons"]) == ("max_output_tokens",)


def test_a_failed_response_is_an_error_with_its_message():
    root = root_of(spans_of(BACKGROUND_FAILED))
    assert root.status.status_code == StatusCode.ERROR
    assert root.status.description
    assert root.attributes is not None and root.attributes["error.type"]


def test_a_completed_response_leaves_the_status_unset():
    spans = spans_of(SUCCESS)
    assert {s.status.status_code for s in spans} == {StatusCode.UNSET}


def test_trace_context_is_kept_only_when_well_formed():
    assert valid_traceparent(PARENT.upper()) == PARENT
    assert valid_traceparent("00-" + "0" * 32 + "-00f067aa0ba902b7-01") is None
    assert valid_traceparent("Bearer sk-secret") is None
    assert carried({"traceparent": PARENT, "tracestate": "a=1,b=2"}, "header") == {
        "traceparent": PARENT,
        "carrier": "header",
        "tracestate": "a=1,b=2",
    }
    assert carried({"traceparent": PARENT, "tracestate": "x" * 600}, "header") == {
        "traceparent": PARENT,
        "carrier": "header",
    }
    call = {"method": "tools/call", "params": {"name": "s", "_meta": {"traceparent": PARENT}}}
    assert in_message(call) == {"traceparent": PARENT, "carrier": "_meta"}
    assert in_message({"method": "tools/call", "params": {}}) is None
    # a tap from before `trace_context` was kept: read from the recorded message
    assert of_note({"kind": "mcp", "jsonrpc": call}) == {"traceparent": PARENT, "carrier": "_meta"}


def test_an_http_error_before_any_stream_is_an_error_with_its_status_and_cause():
    from mcptui.io.recording import Loaded
    from mcptui.model.events import note

    refused = note(
        "http_error",
        "POST /responses: HTTP 429: Rate limit reached",
        0.1,
        level="error",
        status=429,
        body={"error": {"message": "Rate limit", "type": "rate_limit_error", "code": "429"}},
    )
    header = {"request": {"model": "gpt-5-mini"}, "created": "2026-01-01T00:00:00+00:00"}
    memory = InMemorySpanExporter()
    emit([Inspection.of(Loaded([refused], header=header, format="live run"))], memory)
    (root,) = memory.get_finished_spans()
    assert root.status.status_code == StatusCode.ERROR
    assert root.status.description == "POST /responses: HTTP 429: Rate limit reached"
    assert root.attributes is not None
    assert root.attributes["http.response.status_code"] == 429
    assert root.attributes["error.type"] == "rate_limit_error"
    assert root.attributes["mcptui.cause"] == "rate_limited"


def test_timeouts_of_the_last_retries_against_a_refusing_collector_are_not_a_second_reason():
    from mcptui.share.otel_reasons import worth_saying

    assert worth_saying(["connection refused", "no answer within 1 s"]) == ["connection refused"]
    assert worth_saying(["", "no answer within 1 s"]) == ["no answer within 1 s"]
    assert worth_saying(["HTTP 404", "connection refused"]) == ["HTTP 404", "connection refused"]
