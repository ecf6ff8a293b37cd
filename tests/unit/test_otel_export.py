"""`mcptui export --otlp`'s spans, caught by the SDK's in-memory exporter: what a collector
would be sent for the shipped 424 recording and for one the proxy kept a traceparent with."""

from __future__ import annotations

import json
from pathlib import Path

from mcptui.io.formats import load_path
from mcptui.io.recording import make_header
from mcptui.share.inspect_output import Inspection
from mcptui.share.otel_export import OtelError, emit, shown_url, traces_url
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
SECRET = "sk-otel-test-SECRET-9f8e7d"


def spans_of(*paths: Path) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    emit([Inspection.of(load_path(str(p))) for p in paths], memory)
    return list(memory.get_finished_spans())


def proxied_copy(tmp_path: Path) -> Path:
    """The 424 recording as the proxy would keep it: the app's traceparent in
    `source.client`, and a request whose MCP header and API key were secrets."""
    lines = BROKEN.read_text().splitlines()
    request = json.loads(lines[0])["request"]
    request["tools"][0]["headers"] = {"Authorization": f"Bearer {SECRET}"}
    header = make_header(
        "proxy",
        request=request,
        endpoint="https://api.openai.com/v1/responses",
        http_status=200,
        http_headers={"authorization": f"Bearer {SECRET}"},
        secrets=[SECRET],
        client={"traceparent": TRACEPARENT, "user-agent": "OpenAI/Python 2.0"},
    )
    header["created"] = json.loads(lines[0])["created"]
    path = tmp_path / "proxied.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


def test_the_424_gives_a_root_span_and_one_child_per_item():
    spans = spans_of(BROKEN)
    roots = [s for s in spans if s.parent is None]
    assert [r.name for r in roots] == ["chat gpt-5-mini"]
    root = roots[0]
    children = [s for s in spans if s.parent is not None]
    assert [c.name for c in children] == [
        "tools/list",
        "reasoning",
        "execute_tool search_files",
        "reasoning",
        "message",
    ]
    assert {c.parent.span_id for c in children if c.parent} == {root.context.span_id}
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}
    assert root.attributes is not None
    assert root.attributes["gen_ai.response.id"].startswith("resp_68adc9c2")
    assert root.attributes["gen_ai.usage.input_tokens"] == 1912
    assert root.status.status_code == StatusCode.UNSET  # the response itself completed


def test_the_failed_tool_call_span_carries_the_424_and_its_likely_cause():
    call = next(s for s in spans_of(BROKEN) if s.name == "execute_tool search_files")
    assert call.status.status_code == StatusCode.ERROR
    attributes = dict(call.attributes or {})
    assert attributes["gen_ai.tool.name"] == "search_files"
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["mcptui.mcp.server_label"] == "files"
    assert attributes["mcptui.error.code"] == "424"
    assert attributes["error.type"] == "http_error"
    assert attributes["mcptui.cause"] == "output_schema_without_structured_content"
    assert attributes["mcptui.cause.confidence"] in ("confirmed", "likely", "possible")
    assert attributes["mcptui.tool.seconds"] > 0
    assert isinstance(attributes["mcptui.arguments.bytes"], int)
    assert "arguments" not in " ".join(str(v) for v in attributes.values())


def test_span_times_come_from_the_recording():
    spans = spans_of(BROKEN)
    root = next(s for s in spans if s.parent is None)
    created_ns = 1756219842 * 10**9  # the header's created: 2025-08-26T14:50:42+00:00
    assert root.start_time == created_ns + 412_000_000  # response.created at t=0.412
    assert root.end_time is not None and root.end_time > root.start_time
    for child in spans:
        assert child.start_time is not None and child.end_time is not None
        assert root.start_time <= child.start_time <= child.end_time <= root.end_time
    assert root.attributes is not None and root.attributes["mcptui.timed"] is True


def test_a_header_traceparent_puts_every_span_in_the_apps_trace(tmp_path: Path):
    spans = spans_of(proxied_copy(tmp_path))
    assert {format(s.context.trace_id, "032x") for s in spans} == {TRACE_ID}
    root = next(s for s in spans if s.name.startswith("chat "))
    assert root.parent is not None and format(root.parent.span_id, "016x") == "00f067aa0ba902b7"


def test_no_secret_reaches_any_attribute(tmp_path: Path):
    path = proxied_copy(tmp_path)
    assert SECRET not in path.read_text()  # the recording itself is redacted
    for span in spans_of(path):
        values = " ".join(str(v) for v in (span.attributes or {}).values())
        assert SECRET not in values
        assert "Bearer" not in values and "Authorization" not in values
        assert SECRET not in (span.status.description or "")


def test_traces_url_takes_a_base_url_or_the_full_one():
    assert traces_url("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/traces"
    assert traces_url("http://127.0.0.1:4318/") == "http://127.0.0.1:4318/v1/traces"
    assert traces_url("http://h:4318/v1/traces") == "http://h:4318/v1/traces"
    assert shown_url("http://u:tok@h:4318/v1/traces?k=tok") == "http://h:4318/v1/traces"
    try:
        traces_url("ftp://h/x")
    except OtelError as exc:
        assert "http(s) URL" in str(exc)
    else:
        raise AssertionError("ftp:// was accepted")


def test_without_the_extra_otlp_says_how_to_install_it(monkeypatch, capsys):
    import mcptui.share.otel_export as otel_export
    from mcptui.cli.main import main

    monkeypatch.setattr(otel_export, "otel_available", lambda: False)
    assert main(["export", str(BROKEN), "--otlp", "http://127.0.0.1:4318/v1/traces"]) == 2
    assert "pip install 'mcptui[otel]'" in capsys.readouterr().err


def test_several_files_without_otlp_are_refused(capsys):
    from mcptui.cli.main import main

    assert main(["export", str(BROKEN), str(BROKEN)]) == 2
    assert "several only with --otlp" in capsys.readouterr().err


def test_an_untimed_recording_gives_zero_length_spans_at_created(tmp_path: Path):
    lines = [json.loads(line) for line in BROKEN.read_text().splitlines()]
    for line in lines[1:]:
        line["t"] = None  # a source without arrival times
    path = tmp_path / "untimed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    spans = spans_of(path)
    created_ns = 1756219842 * 10**9
    assert {(s.start_time, s.end_time) for s in spans} == {(created_ns, created_ns)}
    root = next(s for s in spans if s.parent is None)
    assert root.attributes is not None and root.attributes["mcptui.timed"] is False
