"""The proxy's capture side without a network: which calls are recorded, how bodies become
timeline entries, and how concurrent streams stay apart in one timeline."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcptui.capture.captures import CaptureHub, Exchange, classify, upstream_path
from mcptui.capture.proxy_run import UpstreamError, check_upstream
from mcptui.capture.tap import TapHub
from mcptui.io.formats import load_path
from mcptui.model.events import Event
from mcptui.model.timeline import Timeline
from mcptui.share.inspect_output import Inspection
from mcptui.ui.widgets.labels import event_label


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("POST", "/v1/responses", ("create", None)),
        ("POST", "/openai/v1/responses/", ("create", None)),
        ("GET", "/v1/responses/resp_1", ("retrieve", "resp_1")),
        ("POST", "/v1/responses/resp_1/cancel", ("cancel", "resp_1")),
        ("GET", "/v1/responses", None),
        ("DELETE", "/v1/responses/resp_1", None),
        ("GET", "/v1/responses/resp_1/input_items", None),
        ("POST", "/v1/responses/input_tokens", None),
        ("POST", "/v1/chat/completions", None),
        ("GET", "/v1/models", None),
    ],
)
def test_only_responses_calls_are_recorded(method: str, path: str, expected: Any):
    assert classify(method, path) == expected


def test_client_paths_map_onto_the_upstream_base():
    assert upstream_path("/v1/responses?stream=true") == "/responses?stream=true"
    assert upstream_path("/v1") == ""
    assert upstream_path("/responses") == "/responses"
    assert upstream_path("/v10/x") == "/v10/x"


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://example.com/v1", "must be an http(s) URL"),
        ("api.openai.com/v1", "must be an http(s) URL"),
        ("http://127.0.0.1:8788/v1", "is the proxy itself"),
        ("http://localhost:8788", "is the proxy itself"),
    ],
)
def test_an_unusable_upstream_is_refused_with_the_reason(url: str, fragment: str):
    with pytest.raises(UpstreamError, match=re.escape(fragment)):
        check_upstream(url, 8788)
    assert check_upstream("http://127.0.0.1:8787/v1", 8788) == "http://127.0.0.1:8787/v1"


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def created(response_id: str, seq: int = 0) -> dict[str, Any]:
    return {
        "type": "response.created",
        "sequence_number": seq,
        "response": {"id": response_id, "status": "in_progress", "output": []},
    }


def failed_call(item_id: str, seq: int) -> dict[str, Any]:
    return {
        "type": "response.output_item.done",
        "sequence_number": seq,
        "output_index": 0,
        "item": {
            "id": item_id,
            "type": "mcp_call",
            "name": "search",
            "status": "failed",
            "error": {
                "type": "http_error",
                "code": 424,
                "message": "unhandled errors in a TaskGroup (1 sub-exception)",
            },
        },
    }


def kept_hub(folder: Path) -> CaptureHub:
    """A hub recording into `folder` that also keeps each capture's events, as the --no-tui
    printer has it."""
    hub = CaptureHub("http://up/v1", folder)
    hub.keep_events = True
    return hub


def create(request: dict[str, Any] | None = None) -> Exchange:
    return Exchange(
        "POST",
        "/v1/responses",
        "create",
        None,
        request or {"model": "m"},
        {"user-agent": "app/1.0"},
    )


def test_a_gzip_stream_is_recorded_decoded_while_the_raw_bytes_pass_on(tmp_path: Path):
    hub = kept_hub(tmp_path)
    done = {
        "type": "response.completed",
        "sequence_number": 2,
        "response": {"id": "resp_gz", "status": "completed", "output": []},
    }
    body = gzip.compress(sse(created("resp_gz"), failed_call("mcp_1", 1), done))
    recorder = hub.begin(
        create(), 200, {"content-type": "text/event-stream", "content-encoding": "gzip"}
    )
    for start in range(0, len(body), 7):  # compressed bytes split anywhere
        recorder.feed(body[start : start + 7])
    recorder.end()
    hub.close()
    (path,) = tmp_path.glob("*.jsonl")
    assert "resp_gz" in path.name
    failures = Inspection.of(load_path(str(path))).failures
    assert [(f.type, f.name) for f in failures] == [("mcp_call", "search")]


def test_an_encoding_it_cannot_read_is_said_not_guessed(tmp_path: Path):
    hub = kept_hub(tmp_path)
    recorder = hub.begin(
        create(), 200, {"content-type": "text/event-stream", "content-encoding": "br"}
    )
    recorder.feed(b"\x8b\x00garbage")
    recorder.end()
    (note,) = recorder.capture.events
    assert note.raw["kind"] == "body" and "br-encoded" in note.raw["message"]


def test_an_error_answer_is_a_failure_with_its_body_and_request_id(tmp_path: Path):
    hub = kept_hub(tmp_path)
    body = {
        "error": {
            "message": "Error retrieving tool list from MCP server: 'demo'. Http "
            "status code: 424 (Failed Dependency)",
            "type": "external_connector_error",
            "code": "http_error",
        }
    }
    recorder = hub.begin(
        create(), 424, {"content-type": "application/json", "x-request-id": "req_42"}
    )
    recorder.feed(json.dumps(body).encode())
    recorder.end()
    (note,) = recorder.capture.events
    assert note.raw["kind"] == "http_error" and note.raw["status"] == 424
    assert note.raw["body"] == body and note.raw["request_id"] == "req_42"
    assert recorder.capture.failed_exchange


def test_a_later_retrieve_joins_the_capture_of_its_response(tmp_path: Path):
    hub = kept_hub(tmp_path)
    first = hub.begin(create(), 200, {"content-type": "application/json"})
    first.feed(
        json.dumps(
            {
                "id": "resp_bg",
                "object": "response",
                "status": "queued",
                "background": True,
                "output": [],
            }
        ).encode()
    )
    first.end()
    poll = hub.begin(
        Exchange("GET", "/v1/responses/resp_bg", "retrieve", "resp_bg"),
        200,
        {"content-type": "application/json"},
    )
    poll.feed(
        json.dumps(
            {"id": "resp_bg", "object": "response", "status": "completed", "output": []}
        ).encode()
    )
    poll.end()
    assert poll.capture is first.capture and len(hub.captures) == 1
    assert first.capture.status == "completed" and first.capture.background
    kinds = [e.raw["kind"] for e in first.capture.events]
    assert kinds == ["poll", "request", "poll"]


def test_concurrent_streams_tagged_by_capture_stay_apart():
    """Two responses streamed at once interleave in the proxy's timeline; each event goes to
    its own response, whatever arrived in between."""
    a = [created("resp_a"), failed_call("mcp_a", 1)]
    b = [
        created("resp_b"),
        {
            "type": "response.output_text.delta",
            "sequence_number": 1,
            "item_id": "msg_b",
            "output_index": 0,
            "delta": "hi",
        },
    ]
    interleaved = [
        Event(a[0], stream=0),
        Event(b[0], stream=1),
        Event(a[1], stream=0),
        Event(b[1], stream=1),
    ]
    timeline = Timeline(interleaved)
    timeline.seek_end()
    first, second = timeline.state.responses
    assert (first.id, second.id) == ("resp_a", "resp_b")
    assert [item.item_id for item in first.items] == ["mcp_a"] and first.items[0].failed
    assert [item.item_id for item in second.items] == ["msg_b"]
    assert second.items[0].text == "hi" and not second.items[0].failed
    timeline.seek(2)  # undo goes back through the streams' bindings too
    timeline.seek_end()
    assert [item.item_id for item in timeline.state.responses[1].items] == ["msg_b"]


def test_a_token_in_the_tapped_servers_url_is_in_no_note_or_header(tmp_path: Path):
    upstream = "http://127.0.0.1:1/s/tok-SECRET-42/mcp?key=k-SECRET-9"
    hub = TapHub(upstream, tmp_path / "tap.jsonl")
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    hub.exchange_for(
        "POST", "/s/tok-SECRET-42/mcp", "/s/tok-SECRET-42/mcp?key=k-SECRET-9", body, []
    )
    hub.close()
    text = (tmp_path / "tap.jsonl").read_text()
    assert "→ tools/list" in text and "/s/<redacted>/mcp" in text
    assert "SECRET" not in text


# -- the tap: eras, pairing, and what is normal on an MCP wire --------------------------------

MODERN = [(b"mcp-protocol-version", b"2026-07-28")]


def tap_hub(folder: Path) -> tuple[TapHub, list[dict[str, Any]]]:
    """A tap hub recording into `folder`, and the notes it made (as they were made)."""
    hub = TapHub("http://127.0.0.1:1/mcp", folder / "tap.jsonl")
    seen: list[dict[str, Any]] = []
    hub.on_event = lambda event: seen.append(event.raw)
    return hub, seen


def rpc(message_id: Any, method: str, **params: Any) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
    ).encode()


def modern_call(hub: TapHub, tool: str, message_id: int = 1) -> Any:
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    headers = [*MODERN, (b"mcp-method", b"tools/call"), (b"mcp-name", tool.encode())]
    return hub.exchange_for(
        "POST",
        "/mcp",
        "/mcp",
        rpc(message_id, "tools/call", name=tool, arguments={"q": 1}, **meta),
        headers,
    )


def answer(
    hub: TapHub,
    exchange: Any,
    message_id: Any,
    *,
    status: int = 200,
    session: str | None = None,
    broken: str | None = None,
    body: Any = None,
) -> None:
    headers = {"content-type": "application/json"}
    if session:
        headers["mcp-session-id"] = session
    recorder = hub.begin(exchange, status, headers)
    if body is None and message_id is not None:
        body = {
            "jsonrpc": "2.0",
            "id": message_id,
            "result": {"content": [], "structuredContent": {}},
        }
    if body is not None:
        recorder.feed(json.dumps(body).encode())
    recorder.end(broken)


def test_two_modern_clients_asking_the_same_id_are_never_crossed(tmp_path: Path):
    """The 2026-07-28 revision has no session: each POST carries one request, answered on the
    same POST. Two clients both asking `id: 1` must each get their own answer's summary."""
    hub, seen = tap_hub(tmp_path)
    slow = modern_call(hub, "slow")
    fast = modern_call(hub, "fast")
    answer(hub, fast, 1)
    answer(hub, slow, 1)
    hub.close()
    answers = [n["message"].split("  · ")[0] for n in seen if n["direction"] == "received"]
    assert answers == ["← result fast", "← result slow"]
    sent = [n for n in seen if n["direction"] == "sent"]
    assert [n["message"] for n in sent] == [
        "→ tools/call slow  [modern]",
        "→ tools/call fast  [modern]",
    ]
    assert {n["era"] for n in seen} == {"modern"} and {n["session"] for n in seen} == {None}
    assert sent[0]["mcp_headers"] == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "slow",
    }
    assert sent[0]["http_exchange"] != sent[1]["http_exchange"]


def test_the_era_is_told_from_the_request_itself(tmp_path: Path):
    hub, seen = tap_hub(tmp_path)
    discover = rpc(1, "server/discover")  # no headers, no _meta: the method says it
    hub.exchange_for("POST", "/mcp", "/mcp", discover, [])
    hub.exchange_for(
        "POST",
        "/mcp",
        "/mcp",
        rpc(2, "initialize", protocolVersion="2025-11-25"),
        [(b"mcp-protocol-version", b"2025-06-18")],
    )
    hub.exchange_for("GET", "/mcp", "/mcp", b"", [(b"mcp-session-id", b"s1")])
    hub.close()
    assert [(n["message"], n["era"]) for n in seen] == [
        ("→ server/discover  [modern]", "modern"),
        ("→ initialize", "legacy"),
        ("→ GET /mcp (open the event stream of session s1)", "legacy"),
    ]


def test_an_answer_that_names_a_new_session_still_answers_its_request(tmp_path: Path):
    """initialize is sent before the session exists (its answer names it); a request sent with
    a session the server no longer knows may be answered under a new one: either pairs."""
    hub, seen = tap_hub(tmp_path)
    first = hub.exchange_for("POST", "/mcp", "/mcp", rpc(1, "initialize"), [])
    answer(hub, first, 1, session="s-new")
    stale = hub.exchange_for(
        "POST", "/mcp", "/mcp", rpc(2, "tools/list"), [(b"mcp-session-id", b"s-old")]
    )
    answer(hub, stale, 2, session="s-newer")
    hub.close()
    answers = [n for n in seen if n["direction"] == "received"]
    assert [n["message"].split("  · ")[0] for n in answers] == [
        "← result initialize",
        "← result tools/list",
    ]
    assert all("  · " in n["message"] for n in answers)  # timed from their requests
    assert [n["session"] for n in answers] == ["s-new", "s-newer"]


def test_the_end_of_a_session_is_not_a_failure(tmp_path: Path):
    """The client closing its GET event stream at its session's end, a POST closed after its
    answer was complete, a DELETE the server had no need of: none is a failure."""
    hub, seen = tap_hub(tmp_path)
    session = [(b"mcp-session-id", b"s1")]
    stream = hub.exchange_for("GET", "/mcp", "/mcp", b"", session)
    call = hub.exchange_for("POST", "/mcp", "/mcp", rpc(3, "tools/call", name="search"), session)
    answer(
        hub,
        call,
        3,
        broken="the client disconnected mid-stream; the upstream stream was closed too",
    )
    recorder = hub.begin(stream, 200, {"content-type": "text/event-stream"})
    recorder.end("the client disconnected mid-stream; the upstream stream was closed too")
    ending = hub.exchange_for("DELETE", "/mcp", "/mcp", b"", session)
    answer(hub, ending, None)
    again = hub.exchange_for("DELETE", "/mcp", "/mcp", b"", session)
    answer(
        hub,
        again,
        None,
        status=404,
        body={
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "Session not found"},
        },
    )
    hub.close()
    assert not [n for n in seen if n["kind"] != "mcp" or n.get("level") == "warning"], seen
    shown = [(n["message"].split("  · ")[0], n.get("level")) for n in seen]
    assert shown == [
        ("→ GET /mcp (open the event stream of session s1)", None),
        ("→ tools/call search", None),
        ("← result search", None),
        (
            "← GET /mcp: the client closed the event stream of session s1 (the session's end)",
            "info",
        ),
        ("→ DELETE /mcp (end session s1)", None),
        ("→ DELETE /mcp (end session s1 again: it had ended)", "info"),
        ("← HTTP 404 to DELETE /mcp: the session had already ended", "info"),
    ]
    closed = event_label(Event(seen[3], t=1.0, is_note=True), failing=False)
    assert closed.plain.startswith("MCP ← GET /mcp: the client closed") and all(
        span.style == "dim" for span in closed.spans
    )  # dim: never an answer's green


def test_a_connection_closed_before_the_answer_is_still_a_failure(tmp_path: Path):
    hub, seen = tap_hub(tmp_path)
    call = hub.exchange_for(
        "POST", "/mcp", "/mcp", rpc(4, "tools/call", name="slow"), [(b"mcp-session-id", b"s1")]
    )
    recorder = hub.begin(call, 200, {"content-type": "text/event-stream"})
    recorder.end("the client disconnected mid-stream; the upstream stream was closed too")
    stream = hub.exchange_for("GET", "/mcp", "/mcp", b"", [(b"mcp-session-id", b"s1")])
    recorder = hub.begin(stream, 200, {"content-type": "text/event-stream"})
    recorder.end("the upstream connection broke mid-stream: RemoteProtocolError")
    hub.close()
    broken = [n for n in seen if n["kind"] == "disconnect"]
    assert [n["message"] for n in broken] == [
        "✗ POST /mcp (tools/call slow): the client disconnected mid-stream; the upstream "
        "stream was closed too",
        "✗ GET /mcp: the upstream connection broke mid-stream: RemoteProtocolError",
    ]
    assert broken[0]["ids"] == [4] and broken[0]["level"] == "warning"
