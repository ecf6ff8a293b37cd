"""`mcptui export FILE --otlp URL`, the installed command against a real loopback OTLP/HTTP
receiver that decodes what arrived with the protocol's own protobuf types."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _otlp_receiver import Receiver, closed_port, receiving, silent_port

ROOT = Path(__file__).resolve().parents[2]
MCPTUI = Path(sys.executable).parent / "mcptui"
BROKEN = "recordings/mcp-424-broken-schema.jsonl"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as server:
        yield server


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
    port = closed_port()
    done = export("--otlp", f"http://127.0.0.1:{port}/v1/traces", "--otlp-timeout", "1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines == [
        f"mcptui: OTLP export to http://127.0.0.1:{port}/v1/traces failed: connection refused"
    ]
    assert "Traceback" not in done.stderr


def test_a_collector_that_never_answers_gives_up_with_exit_2():
    with silent_port() as port:
        done = export("--otlp", f"http://127.0.0.1:{port}", "--otlp-timeout", "1")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mcptui: OTLP export to http://127.0.0.1:{port}/v1/traces failed: no answer within 1 s"
    ]


def test_several_recordings_give_one_trace_per_response(receiver: Receiver):
    port = receiver.server_address[1]
    done = export("recordings/mcp-success.jsonl", "--otlp", f"http://127.0.0.1:{port}")
    assert done.returncode == 0, done.stderr
    roots = [span for span in receiver.spans() if not span.parent_span_id]
    assert len(roots) == 2
    assert len({span.trace_id for span in roots}) == 2


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--otlp", "http://[::1"), "mcptui: --otlp wants an http(s) URL"),
        (("--otlp", "http://127.0.0.1:99999"), "mcptui: --otlp wants an http(s) URL"),
        (("--otlp", "http://127.0.0.1:4318", "--otlp-timeout", "inf"), "mcptui: --otlp-timeout"),
        (("--otlp-timeout", "3"), "mcptui: --otlp-timeout needs --otlp"),
    ],
)
def test_options_it_cannot_use_are_one_line_and_exit_2(options: tuple[str, ...], said: str):
    done = export(*options)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(said) and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""
