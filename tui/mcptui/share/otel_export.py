"""`mcptui export FILE… --otlp URL`: a recording's responses as OpenTelemetry traces.

One root span per response (the GenAI inference span, `chat {model}`), one child per output
item (an mcp_call is `execute_tool {tool}`, after the GenAI and MCP semantic conventions),
on the recording's own clock. Spans are built with the OpenTelemetry SDK into memory, then
sent in one OTLP/HTTP export with a deadline, so a collector that is down or slow costs at
most that deadline and one line, never a hang. Attributes come from the redacted recording
only: no request headers, no arguments text (their size in bytes), and any secret the
source named is hidden again in the error text that is kept.

The SDK is an optional extra (`mcptui[otel]`): it is imported here, never by the model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from mcptui.model.causes import worth_a_paragraph
from mcptui.model.providers import stream_provider
from mcptui.model.redaction import hide_known
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.textsafe import one_line
from mcptui.share.inspect_output import Inspection

Hider = Callable[[str], str]
"""Text with a source's known secrets hidden (its redacted header no longer shows them)."""

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer

INSTALL_HINT = "--otlp needs the OpenTelemetry SDK: pip install 'mcptui[otel]'"
TRACES_PATH = "/v1/traces"
DEFAULT_TIMEOUT = 10.0
"""Seconds the whole export may take (the exporter's retries included)."""
MAX_MESSAGE = 500
"""Characters of an error message kept on a span."""


class OtelError(Exception):
    """The export could not be done: the message says why, in one line."""


def otel_available() -> bool:
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return False
    return True


def traces_url(url: str) -> str:
    """The OTLP/HTTP traces endpoint: `URL` as given when it ends in `/v1/traces`, else
    with that appended (a collector's base URL, `http://host:4318`)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OtelError(f"--otlp wants an http(s) URL, e.g. http://127.0.0.1:4318{TRACES_PATH}")
    path = parts.path.rstrip("/")
    if not path.endswith(TRACES_PATH):
        path += TRACES_PATH
    return urlunsplit(parts._replace(path=path))


def shown_url(url: str) -> str:
    """`url` for messages: no user info, no query (either could hold a token)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass
class Emitted:
    responses: int = 0
    spans: int = 0


def emit(inspections: Iterable[Inspection], exporter: SpanExporter) -> Emitted:
    """Build every response's spans and hand them to `exporter` (synchronously, one by one:
    an in-memory exporter in tests and before the OTLP send)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from mcptui import __version__

    provider = TracerProvider(
        resource=Resource.create({"service.name": "mcptui", "service.version": __version__})
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("mcptui", __version__)
    done = Emitted()
    for inspection in inspections:
        for resp in inspection.timeline.state.responses:
            done.spans += response_spans(tracer, inspection, resp)
            done.responses += 1
    provider.shutdown()
    return done


def response_spans(tracer: Tracer, inspection: Inspection, resp: ResponseState) -> int:
    """The response's root span and its items' children; returns how many spans."""
    from opentelemetry.trace import Status, StatusCode

    header = inspection.loaded.header or {}
    clock = Clock.of(header, resp)
    known = [secret for secret in inspection.loaded.secrets if secret]
    hide: Hider = partial(hide_known, known=known)  # the text a source's secrets were hidden in
    request = header.get("request") if isinstance(header.get("request"), dict) else {}
    model = request.get("model") if isinstance(request, dict) else None
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": stream_provider(header) or "openai",
        "mcptui.source": inspection.loaded.source,
        "mcptui.timed": clock.timed,
        "mcptui.response.status": resp.status or "unknown",
    }
    if isinstance(model, str):
        attributes["gen_ai.request.model"] = model
    if resp.model:
        attributes["gen_ai.response.model"] = resp.model
    if resp.id:
        attributes["gen_ai.response.id"] = resp.id
    for ours, theirs in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens")):
        count = (resp.usage or {}).get(theirs)
        if isinstance(count, int):
            attributes[f"gen_ai.usage.{ours}"] = count
    failed_items = [item for item in resp.items if item.failed]
    attributes["mcptui.items.failed"] = len(failed_items)
    failed = resp.status == "failed" or resp.error is not None
    if failed:
        attributes.update(error_attributes(resp.error, hide))
        attributes.update(cause_attributes(inspection.diagnosis.causes(resp.key)))
    name = f"chat {model or resp.model or ''}".strip()
    start, end = clock.at(resp.first_t), clock.at(resp.last_t, resp.first_t)
    root = tracer.start_span(
        name, context=clock.parent, start_time=start, attributes=attributes, kind=client_kind()
    )
    if failed:
        root.set_status(Status(StatusCode.ERROR, hide(one_line(resp_error_text(resp)))))
    count = 1
    from opentelemetry.trace import set_span_in_context

    inside = set_span_in_context(root)
    for item in resp.items:
        item_span(tracer, inspection, resp, item, clock, hide, inside)
        count += 1
    root.end(end_time=max(end, start))
    return count


def item_span(
    tracer: Tracer,
    inspection: Inspection,
    resp: ResponseState,
    item: ItemState,
    clock: Clock,
    hide: Hider,
    parent: Context,
) -> Span:
    from opentelemetry.trace import Status, StatusCode

    attributes: dict[str, Any] = {
        "mcptui.item.type": item.type,
        "mcptui.item.status": item.status,
    }
    if item.output_index is not None:
        attributes["mcptui.item.output_index"] = item.output_index
    name = item.type
    if item.server_label:
        attributes["mcptui.mcp.server_label"] = item.server_label
    if item.type == "mcp_call":
        tool = item.name or "unknown"
        name = f"execute_tool {tool}"
        attributes.update(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.type": "extension",
                "mcp.method.name": "tools/call",
                "mcptui.arguments.bytes": len(item.arguments.encode("utf-8")),
            }
        )
        if item.item_id:
            attributes["gen_ai.tool.call.id"] = item.item_id
        timed = inspection.diagnosis.item_timing.get((resp.key, item.key))
        if timed is not None and timed.tool_seconds is not None:
            attributes["mcptui.tool.seconds"] = round(timed.tool_seconds, 6)
    elif item.type == "mcp_list_tools":
        name = "tools/list"
        attributes["mcp.method.name"] = "tools/list"
    if item.failed:
        attributes.update(error_attributes(item.error, hide))
        attributes.update(cause_attributes(inspection.diagnosis.causes(resp.key, item.key)))
    first = item.first_t if item.first_t is not None else resp.first_t
    start = clock.at(first)
    end = clock.at(item.last_t, first)
    span = tracer.start_span(
        name, context=parent, start_time=start, attributes=attributes, kind=client_kind()
    )
    if item.failed:
        span.set_status(Status(StatusCode.ERROR, hide(one_line(item.error_text))[:MAX_MESSAGE]))
    span.end(end_time=max(end, start))
    return span


def client_kind() -> Any:
    from opentelemetry.trace import SpanKind

    return SpanKind.CLIENT


def resp_error_text(resp: ResponseState) -> str:
    from mcptui.model.errors import describe_error

    return describe_error(resp.error) or f"response {resp.status}"


def error_attributes(error: Any, hide: Hider) -> dict[str, Any]:
    """`error.type` (the convention's) and the code and message the stream gave."""
    from mcptui.model.errors import describe_error

    found: dict[str, Any] = {}
    inner = error.get("error") if isinstance(error, dict) else None
    body = inner if isinstance(inner, dict) else error
    kind = body.get("type") if isinstance(body, dict) else None
    code = body.get("code") if isinstance(body, dict) else None
    found["error.type"] = str(kind or code or "error")
    if isinstance(code, (int, str)) and not isinstance(code, bool):
        found["mcptui.error.code"] = str(code)
    message = describe_error(error)
    if message:
        found["mcptui.error.message"] = hide(one_line(message))[:MAX_MESSAGE]
    return found


def cause_attributes(causes: Sequence[Any]) -> dict[str, Any]:
    """The first cause a report would spell out (`mcptui inspect` order), by key."""
    shown = worth_a_paragraph(causes)
    if not shown:
        return {}
    top = shown[0]
    return {
        "mcptui.cause": top.cause.key,
        "mcptui.cause.confidence": top.confidence,
        "mcptui.cause.title": top.cause.title,
    }


@dataclass
class Clock:
    """Stream seconds to epoch nanoseconds from the header's `created`; untimed events sit
    at `created` (zero-length spans, `mcptui.timed` false). `parent`: the app's trace."""

    origin_ns: int
    timed: bool
    parent: Context | None

    @classmethod
    def of(cls, header: dict[str, Any], resp: ResponseState) -> Clock:
        import time

        created = header.get("created")
        origin: int | None = None
        if isinstance(created, str):
            try:
                origin = int(datetime.fromisoformat(created).timestamp() * 1e9)
            except ValueError:
                origin = None
        if origin is None:
            origin = time.time_ns()
        return cls(origin, resp.first_t is not None, app_context(header))

    def at(self, seconds: float | None, fallback: float | None = None) -> int:
        value = seconds if seconds is not None else fallback
        return self.origin_ns + round((value or 0.0) * 1e9)


def app_context(header: dict[str, Any]) -> Context | None:
    """The app's W3C trace context the proxy kept (`source.client.traceparent`), if any."""
    source = header.get("source")
    client = source.get("client") if isinstance(source, dict) else None
    parent = client.get("traceparent") if isinstance(client, dict) else None
    if not isinstance(parent, str):
        return None
    from opentelemetry.trace import get_current_span
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    context = TraceContextTextMapPropagator().extract({"traceparent": parent.strip()})
    return context if get_current_span(context).get_span_context().is_valid else None


def send(spans: Sequence[ReadableSpan], url: str, timeout: float) -> None:
    """One OTLP/HTTP export of `spans` to `url`, within `timeout` seconds (retries
    included); OtelError when the collector did not take them."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    # The exporter logs each failed try with a traceback: one line of ours says it instead.
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout)
    try:
        result = exporter.export(spans)
    except Exception as exc:  # any transport failure is the same one line
        raise OtelError(f"OTLP export to {shown_url(url)} failed: {one_line(str(exc))}") from exc
    finally:
        exporter.shutdown()
    if result != SpanExportResult.SUCCESS:
        raise OtelError(
            f"OTLP export to {shown_url(url)} failed: the collector is down, refused the "
            f"spans or did not answer within {timeout:g} s"
        )
