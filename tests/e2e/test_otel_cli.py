"""`mcptui export FILE --otlp URL`, the installed command against a real loopback OTLP/HTTP
receiver that decodes what arrived with the protocol's own protobuf types."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

ROOT = Path(__file__).resolve().parents[2]
MCPTUI = Path(sys.executable).parent / "mcptui"
BROKEN = "recordings/mcp-424-broken-schema.jsonl"


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, ExportTraceServiceRequest]] = []

    def spans(self) -> list[Any]:
        """Every span received, in order."""
        return [
            span
            for _, request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]


class Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.requests.append((self.path, request))
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MCPTUI), "export", BROKEN, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_spans_of_the_424_reach_the_collector(receiver: Receiver):
    port = receiver.server_address[1]
    done = export("--otlp", f"http://127.0.0.1:{port}/v1/traces")
    assert done.returncode == 0, done.stderr
    assert "sent 6 spans (1 response, one trace each)" in done.stderr
    assert [path for path, _ in receiver.requests] == ["/v1/traces"]
    spans = receiver.spans()
    by_name = {span.name: span for span in spans}
    root = by_name["chat gpt-5-mini"]
    assert root.parent_span_id == b""
    call = by_name["execute_tool search_files"]
    assert call.parent_span_id == root.span_id
    assert {span.trace_id for span in spans} == {root.trace_id}
    attributes = {a.key: a.value for a in call.attributes}
    assert attributes["mcptui.cause"].string_value == "output_schema_without_structured_content"
    assert attributes["mcptui.error.code"].string_value == "424"
    assert call.status.code == call.status.STATUS_CODE_ERROR


def test_a_base_url_gets_v1_traces(receiver: Receiver):
    done = export("--otlp", f"http://127.0.0.1:{receiver.server_address[1]}")
    assert done.returncode == 0, done.stderr
    assert [path for path, _ in receiver.requests] == ["/v1/traces"]


def test_a_collector_that_is_down_gives_one_line_and_exit_2():
    with socket.socket() as taken:  # a port nothing listens on
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    done = export("--otlp", f"http://127.0.0.1:{port}/v1/traces", "--otlp-timeout", "1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"mcptui: OTLP export to http://127.0.0.1:{port}/v1/traces failed")
    assert "Traceback" not in done.stderr


def test_a_collector_that_never_answers_gives_up_with_exit_2():
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        done = export("--otlp", f"http://127.0.0.1:{port}", "--otlp-timeout", "1")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mcptui: OTLP export to http://127.0.0.1:{port}/v1/traces failed: the collector is "
        "down, refused the spans or did not answer within 1 s"
    ]


def test_several_recordings_give_one_trace_per_response(receiver: Receiver):
    port = receiver.server_address[1]
    done = export("recordings/mcp-success.jsonl", "--otlp", f"http://127.0.0.1:{port}")
    assert done.returncode == 0, done.stderr
    roots = [span for span in receiver.spans() if not span.parent_span_id]
    assert len(roots) == 2
    assert len({span.trace_id for span in roots}) == 2
