"""`mcptui export FILE… --otlp URL`: a recording's responses as OpenTelemetry traces.

One root span per response (the GenAI inference span, `chat {model}`), one child per output
item (an mcp_call is `execute_tool {tool}`, after the GenAI and MCP semantic conventions),
on the recording's own clock. Spans are built with the OpenTelemetry SDK into memory, then
sent in one OTLP/HTTP export with a deadline, so a collector that is down or slow costs at
most that deadline and one line, never a hang. Attributes come from the redacted recording
only: no request headers, no arguments text (their size in bytes), and any secret the
source named is hidden again in the error text that is kept.

The same span-building code serves `--otlp` on `run`, `proxy` and `tap`
(tui/mcptui/share/otel_live.py), which sends each response as it ends. A tap's messages tied
to a call become span events of its `execute_tool` span, and the W3C trace context the call
carried (tui/mcptui/model/trace_context.py) a link to the MCP server's own spans.

The SDK is an optional extra (`mcptui[otel]`): it is imported here, never by the model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from mcptui.model.causes import worth_a_paragraph
from mcptui.model.events import Event
from mcptui.model.providers import stream_provider
from mcptui.model.redaction import hide_known
from mcptui.model.state import TERMINAL_STATUSES, ItemState, ResponseState
from mcptui.model.textsafe import one_line
from mcptui.model.urlsafe import usable_http_url
from mcptui.share.inspect_output import Inspection

Hider = Callable[[str], str]
"""Text with a source's known secrets hidden (its redacted header no longer shows them)."""

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer

    from mcptui.model.wire import WireExchange, WireLinks

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
    if not usable_http_url(url.strip()):  # `http://[::1`, `:99999`, `ftp://`
        raise OtelError(f"--otlp wants an http(s) URL, e.g. http://127.0.0.1:4318{TRACES_PATH}")
    parts = urlsplit(url.strip())
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
    tapped_calls: int = 0
    """Tool calls whose `tools/call` a tap saw on the MCP server's wire."""
    traced_calls: int = 0
    """Of those, the ones that carried W3C trace context (`traceparent` in a header or
    `_meta`): their spans link to the server's own."""
    tap_requests: int = 0
    """Spans of a tap's recording alone: one per MCP request."""

    def add(self, other: Emitted) -> None:
        self.responses += other.responses
        self.spans += other.spans
        self.tapped_calls += other.tapped_calls
        self.traced_calls += other.traced_calls
        self.tap_requests += other.tap_requests

    def context_note(self) -> str | None:
        """What to say when a tap saw calls that carried no trace context (None otherwise)."""
        if not self.tapped_calls or self.traced_calls == self.tapped_calls:
            return None
        missing = self.tapped_calls - self.traced_calls
        calls = "call" if missing == 1 else "calls"
        return (
            f"{missing} of {self.tapped_calls} tapped tool {calls} carried no trace context "
            "(no traceparent header or _meta): the MCP server's own spans cannot be linked "
            "to them (mcptui.mcp.trace_context = none)"
        )


def new_provider(processor: SpanProcessor) -> TracerProvider:
    """A tracer provider of mcptui's own (never the global one), with one processor; it does
    not shut down at exit: a collector that hangs must not hold the process."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    from mcptui import __version__

    provider = TracerProvider(
        resource=Resource.create({"service.name": "mcptui", "service.version": __version__}),
        shutdown_on_exit=False,
    )
    provider.add_span_processor(processor)
    return provider


def tracer_of(provider: TracerProvider) -> Tracer:
    from mcptui import __version__

    return provider.get_tracer("mcptui", __version__)


def emit(inspections: Iterable[Inspection], exporter: SpanExporter) -> Emitted:
    """Build every response's spans and hand them to `exporter` (synchronously, one by one:
    an in-memory exporter in tests and before the OTLP send)."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = new_provider(SimpleSpanProcessor(exporter))
    tracer = tracer_of(provider)
    done = Emitted()
    for inspection in inspections:
        done.add(inspection_spans(tracer, inspection))
    provider.shutdown()
    return done


def inspection_spans(
    tracer: Tracer, inspection: Inspection, keys: Container[int] | None = None
) -> Emitted:
    """The spans of an inspection's responses (only those whose key is in `keys`, when
    given: a live run sends each response once, as it finishes)."""
    done = Emitted()
    for resp in inspection.timeline.state.responses:
        if keys is not None and resp.key not in keys:
            continue
        if tap_only(resp):
            count = tap_spans(tracer, inspection, resp)
            done.spans += count
            done.tap_requests += count
        else:
            done.add(response_spans(tracer, inspection, resp))
    return done


def tap_only(resp: ResponseState) -> bool:
    """A tap's recording alone: its MCP messages, and no stream of a response."""
    return resp.id is None and resp.status is None and not resp.items and bool(resp.wire)


def tap_spans(tracer: Tracer, inspection: Inspection, resp: ResponseState) -> int:
    """A tap's recording alone (no stream): a span per MCP request it saw, as `tap --otlp`
    sends them live; a request never answered is an error."""
    from mcptui.model.wire import exchanges

    events = inspection.timeline.events
    header = inspection.loaded.header or {}
    clock = Clock.of(header, None)
    hide: Hider = partial(hide_known, known=[s for s in inspection.loaded.secrets if s])
    count = 0
    for exchange in exchanges(resp.wire, events):
        if exchange.method is None or "id" not in (exchange.request or {}):
            continue
        unanswered = None if exchange.answered else "no answer in the tap's recording"
        tap_call_span(tracer, exchange, events, clock, hide, unanswered=unanswered)
        count += 1
    return count


CUT_SHORT = "the stream ended before a terminal event (cut short)"


def response_problem(resp: ResponseState) -> str | None:
    """Why a response's span is an error: failed, incomplete, cancelled, or cut short (no
    terminal status); None when it completed (or still waits on approval: not an error)."""
    if resp.status == "completed":
        return None
    if resp.status == "failed" or resp.error is not None:
        return resp_error_text(resp)
    if resp.status == "incomplete":
        return "response incomplete" + (
            f": {resp.incomplete_reason}" if resp.incomplete_reason else ""
        )
    if resp.status == "cancelled":
        return "response cancelled"
    if resp.status in TERMINAL_STATUSES:
        return f"response {resp.status}"
    return CUT_SHORT


def response_spans(tracer: Tracer, inspection: Inspection, resp: ResponseState) -> Emitted:
    """The response's root span and its items' children."""
    from opentelemetry.trace import Status, StatusCode, set_span_in_context

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
    if resp.incomplete_reason:
        attributes["gen_ai.response.finish_reasons"] = [resp.incomplete_reason]
    failed_items = [item for item in resp.items if item.failed]
    attributes["mcptui.items.failed"] = len(failed_items)
    problem = response_problem(resp)
    failed = resp.status == "failed" or resp.error is not None
    noted = error_note(resp, inspection.timeline.events)
    if failed:
        attributes.update(error_attributes(resp.error, hide))
        attributes.update(cause_attributes(inspection.diagnosis.causes(resp.key)))
    elif noted is not None and resp.status not in TERMINAL_STATUSES:
        # no stream, or one cut short by what the note says: an HTTP error, a lost connection
        problem = str(noted.get("message") or problem)
        body = noted.get("body")
        attributes.update(error_attributes(body if isinstance(body, dict) else problem, hide))
        if body is None:
            attributes["error.type"] = str(noted.get("kind") or "error")
        if isinstance(noted.get("status"), int):
            attributes["http.response.status_code"] = noted["status"]
        attributes.update(cause_attributes(inspection.diagnosis.causes(resp.key)))
    elif problem is not None:
        attributes["error.type"] = resp.status if resp.status in TERMINAL_STATUSES else "cut_short"
    name = f"chat {model or resp.model or ''}".strip()
    start, end = clock.at(resp.first_t), clock.at(resp.last_t, resp.first_t)
    root = tracer.start_span(
        name, context=clock.parent, start_time=start, attributes=attributes, kind=client_kind()
    )
    if problem is not None:
        root.set_status(Status(StatusCode.ERROR, hide(one_line(problem))[:MAX_MESSAGE]))
    done = Emitted(responses=1, spans=1)
    inside = set_span_in_context(root)
    events = inspection.timeline.events
    links = wire_link(resp, events)
    for item in resp.items:
        wired = links.by_item.get(item.key, []) if links is not None else []
        item_span(tracer, inspection, resp, item, clock, hide, inside, wired, events)
        done.spans += 1
        call = links.call_of(item.key) if links is not None else None
        if item.type == "mcp_call" and call is not None:
            done.tapped_calls += 1
            done.traced_calls += call_carried(call, events) is not None
    root.end(end_time=max(end, start))
    return done


def error_note(resp: ResponseState, events: Sequence[Event]) -> dict[str, Any] | None:
    """The first error note of a response (an HTTP error, a connection that failed)."""
    for index in resp.error_events:
        if 0 <= index < len(events) and events[index].is_note:
            return events[index].raw
    return None


def wire_link(resp: ResponseState, events: Sequence[Event]) -> WireLinks | None:
    """The tap's exchanges tied to the response's items; None when no tap saw it."""
    if not resp.wire:
        return None
    from mcptui.model.wire import link

    return link(resp, events)


def item_span(
    tracer: Tracer,
    inspection: Inspection,
    resp: ResponseState,
    item: ItemState,
    clock: Clock,
    hide: Hider,
    parent: Context,
    wired: Sequence[WireExchange] = (),
    events: Sequence[Event] = (),
) -> None:
    """An output item's span; the MCP messages a tap tied to it become its span events, and
    the trace context its `tools/call` carried a link (the MCP server's own spans)."""
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
    links = []
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
        call = next((e for e in reversed(wired) if e.method == "tools/call"), None)
        if call is not None:
            attributes.update(call_attributes(call, events))
            context = call_context(call, events)
            if context is not None:
                links.append(context)
    elif item.type == "mcp_list_tools":
        name = "tools/list"
        attributes["mcp.method.name"] = "tools/list"
    problem = item_problem(resp, item)
    if item.failed:
        attributes.update(error_attributes(item.error, hide))
        attributes.update(cause_attributes(inspection.diagnosis.causes(resp.key, item.key)))
    elif problem is not None:
        attributes["error.type"] = "cut_short" if problem == ITEM_CUT_SHORT else item.status
    first = item.first_t if item.first_t is not None else resp.first_t
    start = clock.at(first)
    end = clock.at(item.last_t, first)
    span = tracer.start_span(
        name,
        context=parent,
        start_time=start,
        attributes=attributes,
        kind=client_kind(),
        links=links,
    )
    for exchange in wired:
        for index in exchange.notes:
            if 0 <= index < len(events):
                name, at, fields = wire_event(events[index], exchange, hide)
                span.add_event(name, fields, timestamp=clock.at(at, first))
    if problem is not None:
        span.set_status(Status(StatusCode.ERROR, hide(one_line(problem))[:MAX_MESSAGE]))
    span.end(end_time=max(end, start))


ITEM_CUT_SHORT = "the stream ended before this item did (cut short)"


def item_problem(resp: ResponseState, item: ItemState) -> str | None:
    """Why an item's span is an error: its error, incomplete, or left unfinished by a
    response that ended (failed, cancelled, cut short)."""
    if item.failed:
        return item.error_text or f"{item.type} {item.status}"
    if item.status == "incomplete":
        return f"{item.type} incomplete"
    unfinished = item.status in ("in_progress", "calling", "searching", "generating")
    return ITEM_CUT_SHORT if unfinished and resp.status != "completed" else None


def call_attributes(call: WireExchange, events: Sequence[Event]) -> dict[str, Any]:
    """What the tap saw of a tool call: its session, JSON-RPC id, protocol era, how long the
    server took, and whether the call carried trace context (mcptui's own where the MCP
    conventions name nothing)."""
    found: dict[str, Any] = {}
    if call.session:
        found["mcp.session.id"] = call.session
    request_id = (call.request or {}).get("id")
    if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
        found["jsonrpc.request.id"] = str(request_id)
    if call.era:
        found["mcptui.mcp.era"] = call.era
    if call.seconds is not None:
        found["mcptui.mcp.server_seconds"] = round(call.seconds, 6)
    carried = call_carried(call, events)
    found["mcptui.mcp.trace_context"] = carried["carrier"] if carried else "none"
    if carried:
        found["mcptui.mcp.traceparent"] = carried["traceparent"]
    error = call.error
    if error is not None and isinstance(error.get("code"), int):
        found["rpc.response.status_code"] = str(error["code"])
    return found


def call_carried(call: WireExchange, events: Sequence[Event]) -> dict[str, str] | None:
    """The trace context the tap recorded with the call's request."""
    from mcptui.model.trace_context import of_note

    if not call.notes or not 0 <= call.notes[0] < len(events):
        return None
    return of_note(events[call.notes[0]].raw)


def call_context(call: WireExchange, events: Sequence[Event]) -> Any:
    """A span link to the context the call carried: the MCP server's span for it is that
    context's child, so the link leads from mcptui's call span to the server's own trace."""
    carried = call_carried(call, events)
    if carried is None:
        return None
    from opentelemetry.trace import Link, get_current_span
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier = {k: v for k, v in carried.items() if k in ("traceparent", "tracestate")}
    context = get_current_span(TraceContextTextMapPropagator().extract(carrier)).get_span_context()
    if not context.is_valid:
        return None
    return Link(context, {"mcptui.link": "mcp_server_call", "mcptui.carrier": carried["carrier"]})


def wire_event(
    event: Event, exchange: WireExchange, hide: Hider
) -> tuple[str, float | None, dict[str, Any]]:
    """One MCP wire message as a span event: its name (`mcp → tools/call`, `mcp ← result`,
    `mcp ✗ …`), when, and what it was (never its contents: arguments and results stay in the
    recording)."""
    raw = event.raw
    found = raw.get("jsonrpc")
    message: dict[str, Any] = found if isinstance(found, dict) else {}
    direction = raw.get("direction")
    fields: dict[str, Any] = {"mcptui.wire.direction": str(direction or "")}
    method = message.get("method")
    if isinstance(method, str):
        fields["mcp.method.name"] = method
        name = f"mcp → {method}"
    elif "error" in message:
        name = "mcp ← error"
        error = message["error"]
        if isinstance(error, dict):
            if isinstance(error.get("code"), int):
                fields["rpc.response.status_code"] = str(error["code"])
            fields["mcptui.error.message"] = hide(one_line(str(error.get("message", ""))))[
                :MAX_MESSAGE
            ]
    elif "result" in message:
        name = "mcp ← result"
        result = message["result"]
        if isinstance(result, dict):
            fields["mcptui.mcp.is_error"] = bool(result.get("isError"))
            fields["mcptui.mcp.structured_content"] = "structuredContent" in result
    else:
        name = f"mcp {raw.get('kind', 'note')}"
        fields["mcptui.wire.message"] = hide(one_line(str(raw.get("message", ""))))[:MAX_MESSAGE]
    request_id = message.get("id")
    if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
        fields["jsonrpc.request.id"] = str(request_id)
    if isinstance(raw.get("http_status"), int):
        fields["http.response.status_code"] = raw["http_status"]
    if exchange.session:
        fields["mcp.session.id"] = exchange.session
    return name, event.t, fields


def tap_call_span(
    tracer: Tracer,
    exchange: WireExchange,
    events: Sequence[Event],
    clock: Clock,
    hide: Hider,
    *,
    unanswered: str | None = None,
) -> None:
    """`mcptui tap --otlp`: one MCP request as it crossed the tap, named after the MCP
    conventions (`tools/call search`), its messages as span events. When the request carried
    trace context its span is that context's child, beside the MCP server's own span for it
    (both children of the caller's); else it is a trace of its own. `unanswered`: why it
    never got an answer (the tap stopped first)."""
    from opentelemetry.trace import Status, StatusCode

    method = exchange.method or "unknown"
    attributes: dict[str, Any] = {"mcp.method.name": method}
    name = method
    if exchange.tool:
        name = f"{method} {exchange.tool}"
        attributes["gen_ai.tool.name"] = exchange.tool
        attributes["gen_ai.operation.name"] = "execute_tool"
    if exchange.labels:
        attributes["mcptui.mcp.server_label"] = exchange.labels[0]
    attributes.update(call_attributes(exchange, events))
    raw = events[exchange.notes[0]].raw
    version = (raw.get("mcp_headers") or {}).get("MCP-Protocol-Version")
    if isinstance(version, str):
        attributes["mcp.protocol.version"] = version
    carried = call_carried(exchange, events)
    parent = None
    if carried is not None:
        parent = app_context({"source": {"client": {"traceparent": carried["traceparent"]}}})
    problem = unanswered
    if exchange.failure is not None:
        problem = str(exchange.failure.get("message") or "the HTTP exchange failed")
        attributes["error.type"] = str(exchange.failure.get("kind") or "transport")
    elif exchange.error is not None:
        problem = f"JSON-RPC error {exchange.error.get('code')}: {exchange.error.get('message')}"
        attributes["error.type"] = str(exchange.error.get("code"))
    elif exchange.result is not None and exchange.result.get("isError"):
        problem = "the tool answered isError"
        attributes["error.type"] = "tool_error"
    elif unanswered is not None:
        attributes["error.type"] = "no_answer"
    start = clock.at(exchange.sent_t)
    end = clock.at(exchange.answered_t, exchange.sent_t)
    span = tracer.start_span(
        name, context=parent, start_time=start, attributes=attributes, kind=client_kind()
    )
    for index in exchange.notes:
        if 0 <= index < len(events):
            event_name, at, fields = wire_event(events[index], exchange, hide)
            span.add_event(event_name, fields, timestamp=clock.at(at, exchange.sent_t))
    if problem is not None:
        span.set_status(Status(StatusCode.ERROR, hide(one_line(problem))[:MAX_MESSAGE]))
    span.end(end_time=max(end, start))


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
    def of(cls, header: dict[str, Any], resp: ResponseState | None) -> Clock:
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
        timed = resp is None or resp.first_t is not None
        return cls(origin, timed, app_context(header))

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
    included); OtelError when the collector did not take them, saying why as the live
    export does (connection refused, no answer in time, an HTTP status, an unknown host):
    read from the exporter's log, else from one connection to the collector."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    from mcptui.share.otel_reasons import EXPORTER_LOGGER, ReasonKeeper, Tally, why_unsent

    # The exporter logs each failed try with a traceback: kept for its reason, never shown.
    tally = Tally()
    logger = logging.getLogger(EXPORTER_LOGGER)
    keeper = ReasonKeeper(tally, timeout)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(keeper)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    logging.getLogger("opentelemetry.sdk").setLevel(logging.CRITICAL)
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout)
    try:
        result = exporter.export(spans)
    except Exception as exc:  # any transport failure is the same one line
        raise OtelError(f"OTLP export to {shown_url(url)} failed: {one_line(str(exc))}") from exc
    finally:
        exporter.shutdown()
        logger.removeHandler(keeper)
        logger.setLevel(level)
        logger.propagate = propagate
    if result != SpanExportResult.SUCCESS:
        why = next((reason for reason in tally.reasons if reason), None)
        raise OtelError(
            f"OTLP export to {shown_url(url)} failed: {why or why_unsent(url, timeout)}"
        )
