"""`--otlp URL` on `run`, `proxy` and `tap`: the installed command against the emulator, the demo
MCP server (built with the `mcp` SDK) and a loopback OTLP/HTTP receiver; and with a collector
that is down or hangs, the run still ends as it would without one, and says so."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _e2e_support import Servers, calls, raw_events, start_listening
from _otlp_receiver import Receiver, attributes, closed_port, receiving, silent_port
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openai import OpenAI
from test_run_cli import (
    API_KEY,
    cli_env,
    read_recording,
    request_body,
    run_cli,
    run_request,
    write_request,
)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
APP_PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
CALL_TRACE = "11112222333344445555666677778888"
CALL_PARENT = f"00-{CALL_TRACE}-1234567812345678-01"


@pytest.fixture
def receiver() -> Any:
    with receiving() as server:
        yield server


def otlp_line(stderr: str) -> str:
    """The end's line of what was sent (after the one saying that it waits, if it did)."""
    (line,) = [line for line in stderr.splitlines() if line.startswith("mcptui: OTLP: sent ")]
    return line


# -- run ----------------------------------------------------------------------------------------


def test_a_tapped_run_sends_its_spans_and_says_openai_sent_no_trace_context(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    body = request_body(servers, ("search", {"query": "x"}), ("broken_schema", {"query": "x"}))
    done, _, _ = run_request(servers, tmp_path, body, "--tap", "--otlp", receiver.url)
    assert done.returncode == 1, done.stderr  # the broken call: as without --otlp
    spans = receiver.spans()  # all sent before the command returned
    names = [span.name for span in spans]
    assert "chat gpt-5-mini" in names
    assert {"execute_tool search", "execute_tool broken_schema", "tools/list"} <= set(names)
    assert len({span.trace_id for span in spans}) == 1
    line = otlp_line(done.stderr)
    assert line.startswith(f"mcptui: OTLP: sent {len(spans)} spans to {receiver.url}")
    assert "mcptui: 2 of 2 tapped tool calls carried no trace context" in done.stderr
    broken = next(s for s in spans if s.name == "execute_tool broken_schema")
    assert broken.status.code == broken.status.STATUS_CODE_ERROR
    assert "424" in broken.status.message
    found = attributes(broken)
    assert found["mcptui.mcp.trace_context"] == "none"
    assert found["mcptui.cause"] == "output_schema_without_structured_content"
    events = [event.name for event in broken.events]
    assert events[:2] == ["mcp → tools/call", "mcp ← result"]
    assert not broken.links


def test_no_secret_of_a_run_or_a_proxied_app_reaches_the_collector(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    """The MCP header value and the app's API key (in the requests the run and the proxy
    see), the server URL's token (echoed in the response's tools and the call's arguments):
    none is in any byte sent."""
    header_value, url_token = "hdr-Secret-0a1b2c3d4e5f", "tok9Zq8Yx7Wv6Ut5"
    tool = servers.tool(
        url=f"{servers.mcp}/mcp?token={url_token}", headers={"X-Api-Key": header_value}
    )
    body = request_body(servers, ("broken_schema", {"query": url_token}), tool=tool)
    done, _, _ = run_request(servers, tmp_path, body, "--tap", "--otlp", receiver.url)
    assert done.returncode == 1, done.stderr
    process, address = proxy(servers, tmp_path, receiver.url)
    try:
        with OpenAI(base_url=f"{address}/v1", api_key=API_KEY, max_retries=0) as app:
            streamed = raw_events(app, model="gpt-5-mini", tools=[tool], input=body["input"])
    finally:
        stop(process)
    assert url_token in json.dumps(streamed)  # the app got it back; the spans must not
    sent = b"".join(request.SerializeToString() for _, request in receiver.requests)
    assert sum(span.name == "execute_tool broken_schema" for span in receiver.spans()) == 2
    for secret in (header_value, url_token, API_KEY):
        assert secret.encode() not in sent, secret


def test_an_attached_background_response_is_sent_once_it_ends(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    from test_run_cli import attach, background_response

    response_id = background_response(servers)
    done, _, _ = attach(servers, tmp_path, response_id, "--otlp", receiver.url)
    assert done.returncode == 0, done.stderr
    roots = [s for s in receiver.spans() if not s.parent_span_id]
    assert [attributes(r)["gen_ai.response.id"] for r in roots] == [response_id]
    assert otlp_line(done.stderr).startswith("mcptui: OTLP: sent ")


def test_a_run_whose_collector_is_down_ends_as_usual_and_says_why(servers: Servers, tmp_path: Path):
    port = closed_port()
    body = request_body(servers, ("search", {"query": "x"}))
    url = f"http://127.0.0.1:{port}/v1/traces"
    done, _, entries = run_request(servers, tmp_path, body, "--otlp", url, "--otlp-timeout", "1")
    assert done.returncode == 0, done.stderr
    assert any(e.get("event", {}).get("type") == "response.completed" for e in entries)
    line = otlp_line(done.stderr)
    assert line.startswith(f"mcptui: OTLP: sent 0 spans to {url}, ")
    assert "spans not sent (connection refused)" in line


def test_a_run_whose_collector_hangs_ends_as_usual_and_says_why(servers: Servers, tmp_path: Path):
    body = request_body(servers, ("search", {"query": "x"}))
    with silent_port() as port:
        done, _, entries = run_request(
            servers, tmp_path, body, "--otlp", f"http://127.0.0.1:{port}", "--otlp-timeout", "1"
        )
    assert done.returncode == 0, done.stderr
    assert any(e.get("event", {}).get("type") == "response.completed" for e in entries)
    line = otlp_line(done.stderr)
    assert "spans not sent (no answer within 1 s" in line


@pytest.mark.parametrize("command", ["run", "proxy", "tap"])
def test_otlp_refusals_are_one_line_before_anything_starts(
    servers: Servers, tmp_path: Path, command: str
):
    write_request(tmp_path, request_body(servers, ("search", {"query": "x"})))
    start = {
        "run": ["run", "request.json", "--base-url", servers.emulator],
        "proxy": ["proxy", "--port", "0", "--upstream", servers.emulator],
        "tap": ["tap", "--port", "0", "--upstream", f"{servers.mcp}/mcp"],
    }[command]
    for options, said in (
        (("--otlp", "ftp://x"), "mcptui: --otlp wants an http(s) URL"),
        (("--otlp", "http://[::1"), "mcptui: --otlp wants an http(s) URL"),
        (("--otlp", "http://127.0.0.1:99999/v1/traces"), "mcptui: --otlp wants an http(s) URL"),
        (("--otlp", "http://127.0.0.1:4318", "--otlp-timeout", "0"), "mcptui: --otlp-timeout"),
        *(
            (
                ("--otlp", "http://127.0.0.1:4318", "--otlp-timeout", forever),
                "mcptui: --otlp-timeout",
            )
            for forever in ("inf", "nan")  # inf overflowed a timer in the recorder child
        ),
        (("--otlp-timeout", "5"), "mcptui: --otlp-timeout needs --otlp"),
    ):
        done = run_cli([*start, "--no-tui", *options], tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(said) and done.stderr.count("\n") == 1, done.stderr


# -- proxy --------------------------------------------------------------------------------------


def proxy(servers: Servers, tmp_path: Path, otlp: str, *more: str) -> Any:
    return start_listening(
        [
            "proxy",
            "--no-tui",
            "--port",
            "0",
            "--upstream",
            servers.emulator,
            "--record",
            "rec",
            "--otlp",
            otlp,
            *more,
        ],
        tmp_path,
        cli_env(api_key=None),
        "v1",
    )


def stop(process: Any) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=30)


def test_every_span_of_a_proxied_call_carries_the_apps_trace_id(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    process, address = proxy(servers, tmp_path, receiver.url)
    try:
        with OpenAI(
            base_url=f"{address}/v1",
            api_key=API_KEY,
            max_retries=0,
            default_headers={"traceparent": APP_PARENT},
        ) as app:
            raw_events(
                app,
                model="gpt-5-mini",
                tools=[servers.tool()],
                input=calls("q", ("search", {"query": "x"}), ("broken_schema", {"query": "x"})),
            )
            app.responses.create(model="gpt-5-mini", input="hello")
            # live: the spans arrive while the proxy still runs
            spans = receiver.wait_for(
                lambda got: sum(s.name == "chat gpt-5-mini" for s in got) == 2
            )
    finally:
        out, err = stop(process)
    assert "Traceback" not in out + err, err
    spans = receiver.spans()
    assert len(spans) >= 8
    assert {span.trace_id.hex() for span in spans} == {TRACE_ID}
    roots = [s for s in spans if s.name == "chat gpt-5-mini"]
    assert {s.parent_span_id.hex() for s in roots} == {"00f067aa0ba902b7"}
    assert otlp_line(err) == f"mcptui: OTLP: sent {len(spans)} spans to {receiver.url}"
    recordings = list((tmp_path / "rec").glob("*.jsonl"))
    assert all(API_KEY not in path.read_text() for path in recordings)


def test_a_proxy_whose_collector_hangs_relays_as_usual_and_says_so(
    servers: Servers, tmp_path: Path
):
    with silent_port() as port:
        process, address = proxy(
            servers, tmp_path, f"http://127.0.0.1:{port}", "--otlp-timeout", "1"
        )
        try:
            with OpenAI(base_url=f"{address}/v1", api_key=API_KEY, max_retries=0) as app:
                for _ in range(3):
                    answer = app.responses.create(model="gpt-5-mini", input="hello")
                    assert answer.status == "completed"
        finally:
            out, err = stop(process)
    assert process.returncode == 0, err
    assert "3 responses captured, 0 with failures" in out
    line = otlp_line(err)
    assert line.startswith(f"mcptui: OTLP: sent 0 spans to http://127.0.0.1:{port}/v1/traces, ")
    assert "not sent (no answer within 1 s" in line


# -- tap ----------------------------------------------------------------------------------------


async def call_through(url: str) -> None:
    """A real `mcp` SDK client: a call in a trace (`_meta.traceparent`), and one not."""
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.list_tools()
        await session.call_tool("search", {"query": "x"}, meta={"traceparent": CALL_PARENT})
        await session.call_tool("failing_api", {"query": "x"})


def start_tap(servers: Servers, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """`mcptui tap --no-tui` in front of the demo server, recording to tap.jsonl."""
    return start_listening(
        [
            *("tap", "--no-tui", "--port", "0", "--upstream", f"{servers.mcp}/mcp"),
            *("--record", "tap.jsonl", *extra),
        ],
        tmp_path,
        cli_env(api_key=None),
        "mcp",
    )


def test_the_tap_sends_a_span_per_request_in_the_trace_the_call_carried(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    process, address = start_tap(servers, tmp_path, "--otlp", receiver.url)
    try:
        asyncio.run(call_through(f"{address}/mcp"))
        receiver.wait_for(lambda got: any(s.name == "tools/call failing_api" for s in got))
    finally:
        out, err = stop(process)
    assert "Traceback" not in out + err, err
    spans = {span.name: span for span in receiver.spans()}
    assert {"initialize", "tools/list", "tools/call search", "tools/call failing_api"} <= set(spans)
    search = spans["tools/call search"]
    assert search.trace_id.hex() == CALL_TRACE
    assert search.parent_span_id.hex() == "1234567812345678"
    assert attributes(search)["mcptui.mcp.trace_context"] == "_meta"
    assert attributes(search)["mcp.method.name"] == "tools/call"
    assert attributes(search)["gen_ai.tool.name"] == "search"
    untraced = spans["tools/call failing_api"]
    assert untraced.trace_id.hex() != CALL_TRACE
    assert attributes(untraced)["mcptui.mcp.trace_context"] == "none"
    assert otlp_line(err).startswith("mcptui: OTLP: sent ")
    _, entries = read_recording(tmp_path / "tap.jsonl")
    sent = [
        e["note"]
        for e in entries
        if "note" in e and (e["note"].get("jsonrpc") or {}).get("method") == "tools/call"
    ]
    assert [n.get("trace_context") for n in sent] == [
        {"traceparent": CALL_PARENT, "carrier": "_meta"},
        None,
    ]


def test_the_tap_keeps_a_traceparent_header(servers: Servers, tmp_path: Path):
    import urllib.request

    process, address = start_tap(servers, tmp_path)
    try:
        request = urllib.request.Request(
            f"{address}/mcp",
            data=json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            ).encode(),
            headers={
                "traceparent": APP_PARENT,
                "tracestate": "vendor=abc",
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "x-api-key": "never-recorded-secret",
            },
        )
        with contextlib.suppress(OSError):  # what the server answers is not the point
            urllib.request.urlopen(request, timeout=10).read()
    finally:
        stop(process)
    text = (tmp_path / "tap.jsonl").read_text()
    assert "never-recorded-secret" not in text
    _, entries = read_recording(tmp_path / "tap.jsonl")
    (sent,) = [e["note"] for e in entries if "note" in e and e["note"].get("direction") == "sent"]
    assert sent["trace_context"] == {
        "traceparent": APP_PARENT,
        "carrier": "header",
        "tracestate": "vendor=abc",
    }


# -- export of a tapped run ---------------------------------------------------------------------


def test_export_links_a_tapped_call_to_the_context_it_carried(
    servers: Servers, tmp_path: Path, receiver: Receiver
):
    """A `run --tap` recording whose tools/call carried `_meta.traceparent` (the emulator's
    client sends none: written into the recorded message, as a client in a trace sends it)."""
    body = request_body(servers, ("search", {"query": "x"}))
    run_request(servers, tmp_path, body, "--tap")
    path = tmp_path / "rec.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        message = (line.get("note") or {}).get("jsonrpc") or {}
        if message.get("method") == "tools/call":
            message["params"]["_meta"] = {"traceparent": CALL_PARENT}
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = run_cli(["export", "rec.jsonl", "--otlp", receiver.url], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "carried no trace context" not in done.stderr
    call = next(s for s in receiver.spans() if s.name == "execute_tool search")
    (link,) = call.links
    assert link.trace_id.hex() == CALL_TRACE and link.span_id.hex() == "1234567812345678"
    assert attributes(call)["mcptui.mcp.trace_context"] == "_meta"
    assert [e.name for e in call.events][:2] == ["mcp → tools/call", "mcp ← result"]
