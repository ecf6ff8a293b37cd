"""The emulator driven by the unmodified openai SDK, against the demo MCP server, on loopback."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import httpx2
import openai
import pytest
from _e2e_support import TOKEN, TOOL_TIMEOUT, Servers, calls, items_done, raw_events
from mcptui.emulator.app import Emulator
from mcptui.emulator.runner import RunConfig
from mcptui.model.sdktypes import response_errors, validation_errors
from mcptui.net.serve import ServerThread
from openai import OpenAI

HTTP_424 = {
    "type": "http_error",
    "code": 424,
    "message": "424: unhandled errors in a TaskGroup (1 sub-exception)",
}
QUESTION = "What is the webhook retry policy?"


def assert_conforming(events: list[dict]) -> None:
    """Strictly valid for the SDK, numbered 0..n-1, ending in a terminal event."""
    problems = {i: validation_errors(e) for i, e in enumerate(events) if validation_errors(e)}
    assert problems == {}
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] in {"response.completed", "response.failed"}


def mcp_call(events: list[dict], name: str) -> dict:
    (item,) = [i for i in items_done(events, "mcp_call") if i["name"] == name]
    return item


# -- the normal stream --------------------------------------------------------------------------


def test_success_stream_has_the_real_shape_and_validates(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls(QUESTION, ("search", {"query": "webhook retries"})),
        tools=[servers.tool()],
    )
    assert_conforming(events)
    types = [e["type"] for e in events]
    assert types[:6] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.output_item.done",
    ]
    # gpt-5-mini reasons before its call (an `rs_` item, added and done), as real streams show
    call_types = types[6 : types.index("response.mcp_call.completed") + 2]
    assert call_types == [
        "response.output_item.added",
        "response.output_item.done",  # the reasoning item
        "response.output_item.added",
        "response.mcp_call.in_progress",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.mcp_call.completed",
        "response.output_item.done",
    ]
    assert types.count("response.output_text.delta") > 3
    assert types[-1] == "response.completed"

    response = events[0]["response"]
    assert response["id"].startswith("resp_") and response["model"] == "gpt-5-mini-2025-08-07"
    (listing,) = items_done(events, "mcp_list_tools")
    assert listing["id"].startswith("mcpl_")
    assert {"search", "broken_schema", "slow_search"} <= {t["name"] for t in listing["tools"]}
    call = mcp_call(events, "search")
    assert call["id"].startswith("mcp_") and call["status"] == "completed"
    assert json.loads(call["arguments"]) == {"query": "webhook retries"}
    assert call["error"] is None and "webhook" in call["output"].lower()
    deltas = [e for e in events if e["type"].endswith(".delta")]
    assert all("obfuscation" in e for e in deltas)
    assert all((len(e["delta"]) + len(e["obfuscation"])) % 16 == 0 for e in deltas)
    (message,) = items_done(events, "message")
    assert message["id"].startswith("msg_")
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert message["content"][0]["text"] == text and "search" in text
    final = events[-1]["response"]
    assert final["usage"]["total_tokens"] > 0
    assert [i["id"] for i in final["output"]] == [
        e["item"]["id"] for e in events if e["type"] == "response.output_item.done"
    ]
    assert response_errors(final) == []


def test_sdk_typed_stream_parses_every_event(client: OpenAI, servers: Servers):
    stream = client.responses.create(
        model="gpt-5-mini",
        input=calls(QUESTION, ("search", {"query": "x"})),
        tools=[servers.tool()],
        stream=True,
    )
    events = list(stream)
    assert type(events[-1]).__name__ == "ResponseCompletedEvent"
    assert {type(e).__name__ for e in events} >= {
        "ResponseMcpCallArgumentsDeltaEvent",
        "ResponseMcpCallCompletedEvent",
        "ResponseMcpListToolsCompletedEvent",
        "ResponseTextDeltaEvent",
    }
    assert events[-1].response.output_text.startswith("The search tool returned")


def test_secrets_in_tool_headers_are_not_echoed(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=QUESTION,
        tools=[servers.tool(headers={"X-Api-Key": "sk-very-secret"}, authorization="also-secret")],
    )
    assert "secret" not in json.dumps(events)
    assert events[0]["response"]["tools"][0]["headers"] is None


def test_without_call_lines_the_first_allowed_tool_gets_schema_arguments(
    client: OpenAI, servers: Servers
):
    events = raw_events(
        client, model="gpt-5-mini", input=QUESTION, tools=[servers.tool(allowed_tools=["search"])]
    )
    (listing,) = items_done(events, "mcp_list_tools")
    assert [t["name"] for t in listing["tools"]] == ["search"]
    (call,) = items_done(events, "mcp_call")
    assert call["name"] == "search" and call["status"] == "completed"
    assert json.loads(call["arguments"])["query"] == QUESTION


def test_a_call_line_for_a_tool_allowed_tools_leaves_out_is_not_made(
    client: OpenAI, servers: Servers
):
    """The model is only offered the allowed tools: a scripted call of another is skipped (the
    app's "re-run with only this tool" relies on it)."""
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("search", {"query": "x"}), ("broken_schema", {"query": "x"})),
        tools=[servers.tool(allowed_tools=["broken_schema"])],
    )
    assert [call["name"] for call in items_done(events, "mcp_call")] == ["broken_schema"]


def test_non_streaming_create_returns_the_finished_response(client: OpenAI, servers: Servers):
    response = client.responses.create(
        model="gpt-5-mini", input=calls("q", ("search", {"query": "x"})), tools=[servers.tool()]
    )
    assert response.status == "completed"
    assert [item.type for item in response.output] == [
        "mcp_list_tools",
        "reasoning",
        "mcp_call",
        "reasoning",
        "message",
    ]


def test_sse_transport_for_sse_urls(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("search", {"query": "x"})),
        tools=[servers.tool(url=f"{servers.mcp}/sse")],
    )
    assert_conforming(events)
    assert mcp_call(events, "search")["status"] == "completed"


def test_headers_and_authorization_reach_the_mcp_server(client: OpenAI, servers: Servers):
    for auth in ({"headers": {"Authorization": f"Bearer {TOKEN}"}}, {"authorization": TOKEN}):
        events = raw_events(
            client,
            model="gpt-5-mini",
            input=calls("q", ("search", {"query": "x"})),
            tools=[servers.tool(url=f"{servers.mcp_token}/mcp", **auth)],
        )
        assert mcp_call(events, "search")["status"] == "completed"


# -- as the real API shapes it (compared with the recorded streams in tests/fixtures/upstream) ----


def upstream(upstream_dir: Path, name: str) -> list[dict]:
    return [
        json.loads(line) for line in (upstream_dir / name).read_text().splitlines() if line.strip()
    ]


def test_every_delta_carries_obfuscation_unless_the_request_turns_it_off(
    client: OpenAI, servers: Servers
):
    body = {
        "model": "gpt-5-mini",
        "tools": [servers.tool()],
        "input": calls(QUESTION, ("search", {"query": "webhook retries"})),
    }
    padded = raw_events(client, **body)
    plain = raw_events(client, stream_options={"include_obfuscation": False}, **body)
    kinds = {"response.output_text.delta", "response.mcp_call_arguments.delta"}
    for events in (padded, plain):
        assert_conforming(events)
        assert {e["type"] for e in events if e["type"].endswith(".delta")} == kinds
    deltas = [e for e in padded if e["type"].endswith(".delta")]
    assert all(
        isinstance(e["obfuscation"], str) and (len(e["delta"]) + len(e["obfuscation"])) % 16 == 0
        for e in deltas
    )
    assert len({e["obfuscation"] for e in deltas}) > 1  # random padding, not one string
    assert not any("obfuscation" in e for e in plain)


def test_a_resumed_stream_honours_include_obfuscation_false(client: OpenAI, servers: Servers):
    created = client.responses.create(
        model="gpt-5-mini",
        background=True,
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"})),
    )
    plain = list(
        client.responses.retrieve(
            created.id, stream=True, starting_after=-1, include_obfuscation=False
        )
    )
    padded = list(client.responses.retrieve(created.id, stream=True, starting_after=-1))
    assert plain[-1].type == padded[-1].type == "response.completed"
    padded_deltas = [e for e in padded if e.type.endswith(".delta")]
    assert padded_deltas and all("obfuscation" in (e.model_extra or {}) for e in padded_deltas)
    assert not any("obfuscation" in (e.model_extra or {}) for e in plain)


def test_listed_tools_carry_annotations_as_the_api_maps_them(
    client: OpenAI, servers: Servers, upstream_dir: Path
):
    events = raw_events(client, model="gpt-5-mini", input="q", tools=[servers.tool()])
    (listing,) = items_done(events, "mcp_list_tools")
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert tools["search"]["annotations"] == {"read_only": True}  # readOnlyHint: true
    assert tools["failing_api"]["annotations"] == {"read_only": False}  # no annotations at all
    assert all(isinstance(tool["annotations"], dict) for tool in tools.values())
    real = [
        tool
        for event in upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")
        if event["type"] == "response.output_item.done"
        and event["item"]["type"] == "mcp_list_tools"
        for tool in event["item"]["tools"]
    ]
    assert {tuple(tool) for tool in real} == {tuple(tool) for tool in tools.values()}


def test_one_argument_delta_per_call_as_the_api_sends(
    client: OpenAI, servers: Servers, upstream_dir: Path
):
    events = raw_events(
        client,
        model="gpt-5-mini",
        tools=[servers.tool()],
        input=calls(
            "q",
            ("search", {"query": "webhook retries and backoff"}),
            ("failing_api", {"query": "a longer query than a dozen characters"}),
        ),
    )
    assert_conforming(events)
    made = items_done(events, "mcp_call")
    assert len(made) == 2
    for call in made:
        deltas = [
            e
            for e in events
            if e["type"] == "response.mcp_call_arguments.delta" and e["item_id"] == call["id"]
        ]
        assert [d["delta"] for d in deltas] == [call["arguments"]]
        assert (len(deltas[0]["delta"]) + len(deltas[0]["obfuscation"])) % 16 == 0
    real = [
        e
        for e in upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")
        if e["type"] == "response.mcp_call_arguments.delta"
    ]
    assert len(real) == len({e["item_id"] for e in real}) == 2  # the recording: one per call
    ours = [e for e in events if e["type"] == "response.mcp_call_arguments.delta"]
    assert {tuple(e) for e in ours} == {tuple(e) for e in real}


@pytest.mark.parametrize(
    ("asked", "before", "after"),
    [(None, "auto", "default"), ("auto", "auto", "default"), ("flex", "flex", "flex")],
)
def test_service_tier_is_resolved_on_completion(
    client: OpenAI, servers: Servers, upstream_dir: Path, asked, before, after
):
    body = {} if asked is None else {"service_tier": asked}
    events = raw_events(client, model="gpt-5-mini", input="q", tools=[servers.tool()], **body)
    tiers = [e["response"]["service_tier"] for e in events if "response" in e]
    assert tiers == [before, before, after]
    assert client.responses.retrieve(events[0]["response"]["id"]).service_tier == after
    real = [
        e["response"]["service_tier"]
        for e in upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")
        if "response" in e
    ]
    assert real == ["auto", "auto", "default"]  # what the first case copies


def test_a_reasoning_model_reasons_before_each_step(
    client: OpenAI, servers: Servers, upstream_dir: Path
):
    events = raw_events(
        client,
        model="gpt-5-mini",
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"}), ("search", {"query": "y"})),
    )
    assert_conforming(events)
    final = events[-1]["response"]
    assert [item["type"] for item in final["output"]] == [
        "mcp_list_tools",
        "reasoning",
        "mcp_call",
        "reasoning",
        "mcp_call",
        "reasoning",
        "message",
    ]
    reasoning = items_done(events, "reasoning")
    assert all(item["id"].startswith("rs_") and item["summary"] == [] for item in reasoning)
    assert all(list(item) == ["id", "type", "summary"] for item in reasoning)
    for item in reasoning:  # only added and done, the same item both times
        about = [
            e
            for e in events
            if e.get("item", {}).get("id") == item["id"] or e.get("item_id") == item["id"]
        ]
        assert [e["type"] for e in about] == [
            "response.output_item.added",
            "response.output_item.done",
        ]
        assert about[0]["item"] == about[1]["item"]
    real = upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")[-1]["response"]["output"]
    assert [item["type"] for item in real] == [
        "mcp_list_tools",
        "reasoning",
        "mcp_call",
        "reasoning",
        "mcp_call",
        "reasoning",
        "message",
    ]
    assert final["reasoning"]["effort"] == "medium"


@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-4o"])
def test_a_model_that_does_not_reason_has_no_reasoning_items(
    client: OpenAI, servers: Servers, model: str
):
    events = raw_events(
        client, model=model, tools=[servers.tool()], input=calls("q", ("search", {"query": "x"}))
    )
    assert_conforming(events)
    assert [item["type"] for item in events[-1]["response"]["output"]] == [
        "mcp_list_tools",
        "mcp_call",
        "message",
    ]
    assert events[-1]["response"]["reasoning"] == {"effort": None, "summary": None}


def test_reasoning_before_an_approval_request_but_not_before_the_approved_call(
    client: OpenAI, servers: Servers, upstream_dir: Path
):
    tool = servers.tool(require_approval="always")
    first = raw_events(
        client, model="gpt-5-mini", tools=[tool], input=calls("q", ("search", {"query": "x"}))
    )
    assert [i["type"] for i in first[-1]["response"]["output"]] == [
        "mcp_list_tools",
        "reasoning",
        "mcp_approval_request",
    ]
    real = upstream(upstream_dir, "openai-mcp-tool-approval.1.chunks.txt")
    assert [i["type"] for i in real[-1]["response"]["output"]] == [
        "mcp_list_tools",
        "reasoning",
        "mcp_approval_request",
    ]
    (request,) = items_done(first, "mcp_approval_request")
    second = raw_events(
        client,
        model="gpt-5-mini",
        tools=[tool],
        previous_response_id=first[0]["response"]["id"],
        input=[
            {"type": "mcp_approval_response", "approve": True, "approval_request_id": request["id"]}
        ],
    )
    assert_conforming(second)
    assert [i["type"] for i in second[-1]["response"]["output"]] == [
        "mcp_list_tools",
        "mcp_call",
        "reasoning",
        "message",
    ]


# -- HTTP answers as the API gives them ---------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "status", "message"),
    [
        ("POST", "/chat/completions", 404, "Invalid URL (POST /v1/chat/completions)"),
        ("GET", "/nowhere", 404, "Invalid URL (GET /v1/nowhere)"),
        ("GET", "/responses", 405, "Invalid method for URL (GET /v1/responses)"),
        (
            "DELETE",
            "/responses/resp_x/cancel",
            405,
            "Invalid method for URL (DELETE /v1/responses/resp_x/cancel)",
        ),
    ],
)
def test_unknown_routes_and_wrong_methods_get_the_api_error_body(
    servers: Servers, method: str, path: str, status: int, message: str
):
    with httpx2.Client() as http:
        answer = http.request(
            method, f"{servers.emulator}{path}", headers={"Authorization": "Bearer k"}
        )
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    }
    assert answer.headers["x-request-id"].startswith("req_")


def test_the_sdk_raises_its_own_error_for_an_unknown_route(client: OpenAI):
    with pytest.raises(openai.NotFoundError, match="Invalid URL"):
        client.post("/chat/completions", cast_to=object, body={"model": "m"})


def test_every_answer_has_its_own_request_id_and_the_measured_processing_time(
    client: OpenAI, servers: Servers
):
    delay = 0.4
    slow = client.responses.with_raw_response.create(
        model="gpt-5-mini",
        tools=[servers.tool()],
        input=calls("q", ("slow_search", {"query": "x", "delay_s": delay})),
    )
    quick = client.responses.with_raw_response.retrieve(slow.parse().id)
    with httpx2.Client() as http:
        refused = http.post(f"{servers.emulator}/responses", json={"model": "m", "input": "x"})
    answers = (slow, quick, refused)
    ids = [answer.headers["x-request-id"] for answer in answers]
    assert all(i.startswith("req_") for i in ids) and len(set(ids)) == len(ids)
    took = [int(answer.headers["openai-processing-ms"]) for answer in answers]
    assert took[0] >= delay * 1000  # the call's time is in it: measured, not a constant
    assert took[1] < took[0]


# -- tool failures, mapped as OpenAI maps them --------------------------------------------------


def test_broken_schema_gives_the_exact_424(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("broken_schema", {"query": "x"})),
        tools=[servers.tool()],
    )
    assert_conforming(events)
    assert "response.mcp_call.failed" in [e["type"] for e in events]
    call = mcp_call(events, "broken_schema")
    assert call["status"] == "failed" and call["error"] == HTTP_424 and call["output"] is None
    assert events[-1]["type"] == "response.completed"  # a failed call does not fail the response


def test_slow_tool_past_the_timeout_gives_the_424(client: OpenAI, servers: Servers):
    started = time.monotonic()
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("slow_search", {"query": "x", "delay_s": 6})),
        tools=[servers.tool()],
    )
    took = time.monotonic() - started
    assert mcp_call(events, "slow_search")["error"] == HTTP_424
    assert TOOL_TIMEOUT <= took < TOOL_TIMEOUT + 4


def test_failing_api_is_a_tool_execution_error(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("failing_api", {"query": "x"})),
        tools=[servers.tool()],
    )
    # MCPServer turns the tool's exception into `isError: true` and keeps its text to itself.
    assert mcp_call(events, "failing_api")["error"] == {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Error executing tool failing_api"}],
    }


def test_bad_content_gives_the_424(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("bad_content", {"query": "x"})),
        tools=[servers.tool()],
    )
    assert mcp_call(events, "bad_content")["error"] == HTTP_424


def test_json_rpc_error_is_a_protocol_error(client: OpenAI, servers: Servers):
    events = raw_events(
        client,
        model="gpt-5-mini",
        input=calls("q", ("protocol_error", {"query": "x"})),
        tools=[servers.tool()],
    )
    error = mcp_call(events, "protocol_error")["error"]
    assert error["type"] == "mcp_protocol_error"
    assert isinstance(error["code"], int) and "refuses every call" in error["message"]


def test_a_tool_the_server_does_not_know(client: OpenAI, servers: Servers):
    events = raw_events(
        client, model="gpt-5-mini", input=calls("q", ("no_such_tool", {})), tools=[servers.tool()]
    )
    assert_conforming(events)
    assert mcp_call(events, "no_such_tool")["status"] == "failed"


# -- HTTP errors ------------------------------------------------------------------------------


def test_unreachable_mcp_server_is_http_424_with_the_real_body(client: OpenAI, servers: Servers):
    with pytest.raises(openai.APIStatusError) as caught:
        client.responses.create(
            model="gpt-5-mini",
            input="q",
            stream=True,
            tools=[servers.tool(url="http://127.0.0.1:9/mcp")],
        )
    assert caught.value.status_code == 424
    assert caught.value.response.json() == {
        "error": {
            "message": "Error retrieving tool list from MCP server: 'demo'. Http status code: 424 "
            "(Failed Dependency)",
            "type": "external_connector_error",
            "param": "tools",
            "code": "http_error",
        }
    }


def test_wrong_token_is_a_tool_list_failure(client: OpenAI, servers: Servers):
    with pytest.raises(openai.APIStatusError) as caught:
        client.responses.create(
            model="gpt-5-mini",
            input="q",
            tools=[servers.tool(url=f"{servers.mcp_token}/mcp", authorization="wrong")],
        )
    assert caught.value.status_code == 424


def test_missing_api_key_is_401_and_bad_json_is_400(servers: Servers):
    url = f"{servers.emulator}/responses"
    with httpx2.Client() as http:
        refused = http.post(url, json={"model": "m", "input": "x"})
        broken = http.post(url, content=b'{"model": ', headers={"Authorization": "Bearer k"})
        missing = http.post(url, json={"input": "x"}, headers={"Authorization": "Bearer k"})
    assert refused.status_code == 401
    assert refused.json()["error"]["type"] == "invalid_request_error"
    assert "API key" in refused.json()["error"]["message"]
    assert broken.status_code == 400 and "parse the JSON body" in broken.json()["error"]["message"]
    assert missing.status_code == 400 and missing.json()["error"]["param"] == "model"


HOSTILE_BODIES = {
    "nested 5000 deep": b'{"model": "m", "input": "x", "metadata": '
    + b"[" * 5000
    + b"]" * 5000
    + b"}",
    "an array 5000 deep": b"[" * 5000 + b"]" * 5000,
    "a number past float range": b'{"model": "m", "input": "x", "max_output_tokens": 1e999999}',
    "NaN": b'{"model": "m", "input": "x", "max_output_tokens": NaN}',
    "-Infinity": b'{"model": "m", "input": "x", "temperature": -Infinity}',
    "deep call arguments": b'{"model": "m", "input": "call search ' + b"[" * 3000 + b'"}',
    "metadata not an object": b'{"model": "m", "input": "x", "metadata": true}',
    "a tool not an object": b'{"model": "m", "input": "x", "tools": [1]}',
    "header values not strings": b'{"model": "m", "input": "x", "tools": [{"type": "mcp", '
    b'"server_label": "d", "server_url": "http://127.0.0.1:9/mcp", '
    b'"headers": {"X-Key": 1}}]}',
    "authorization not a string": b'{"model": "m", "input": "x", "tools": [{"type": "mcp", '
    b'"server_label": "d", "server_url": "http://127.0.0.1:9/m", '
    b'"authorization": 1}]}',
    "a server_url that is no URL": b'{"model": "m", "input": "x", "tools": [{"type": "mcp", '
    b'"server_label": "d", "server_url": "http://[::1/"}]}',
    "allowed_tools of numbers": b'{"model": "m", "input": "x", "tools": [{"type": "mcp", '
    b'"server_label": "d", "server_url": "http://127.0.0.1:9/m", '
    b'"allowed_tools": 1e308}]}',
}


@pytest.mark.parametrize("body", HOSTILE_BODIES.values(), ids=HOSTILE_BODIES.keys())
@pytest.mark.parametrize("stream", [False, True])
def test_a_hostile_body_is_a_400_in_the_api_error_shape(
    servers: Servers, body: bytes, stream: bool
):
    if stream and body.startswith(b"{"):
        body = b'{"stream": true, ' + body[1:]
    with httpx2.Client() as http:
        answer = http.post(
            f"{servers.emulator}/responses", content=body, headers={"Authorization": "Bearer k"}
        )
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error" and error["message"]


def test_sdk_raises_its_own_errors_for_401_and_400(servers: Servers):
    with (
        OpenAI(base_url=servers.emulator, api_key="k", max_retries=0) as sdk,
        pytest.raises(openai.BadRequestError, match="not valid JSON"),
    ):
        sdk.responses.create(model="m", input="call search {oops")


def test_unknown_response_id_is_404(client: OpenAI):
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve("resp_nope")


# -- approvals --------------------------------------------------------------------------------


def test_approval_round_trip(client: OpenAI, servers: Servers):
    tool = servers.tool(require_approval="always")
    first = raw_events(
        client,
        model="gpt-5-mini",
        tools=[tool],
        input=calls("q", ("search", {"query": "approve me"})),
    )
    assert_conforming(first)
    (request,) = items_done(first, "mcp_approval_request")
    assert request["id"].startswith("mcpr_") and request["name"] == "search"
    assert json.loads(request["arguments"]) == {"query": "approve me"}
    assert items_done(first, "mcp_call") == [] and first[-1]["type"] == "response.completed"

    second = raw_events(
        client,
        model="gpt-5-mini",
        tools=[tool],
        previous_response_id=first[0]["response"]["id"],
        input=[
            {"type": "mcp_approval_response", "approve": True, "approval_request_id": request["id"]}
        ],
    )
    assert_conforming(second)
    assert second[0]["response"]["previous_response_id"] == first[0]["response"]["id"]
    call = mcp_call(second, "search")
    assert call["approval_request_id"] == request["id"] and call["status"] == "completed"
    assert json.loads(call["arguments"]) == {"query": "approve me"}


def test_denied_approval_makes_no_call(client: OpenAI, servers: Servers):
    tool = servers.tool(require_approval={"always": {"tool_names": ["search"]}})
    first = raw_events(
        client, model="gpt-5-mini", tools=[tool], input=calls("q", ("search", {"query": "x"}))
    )
    (request,) = items_done(first, "mcp_approval_request")
    second = raw_events(
        client,
        model="gpt-5-mini",
        tools=[tool],
        previous_response_id=first[0]["response"]["id"],
        input=[
            {
                "type": "mcp_approval_response",
                "approve": False,
                "approval_request_id": request["id"],
            }
        ],
    )
    assert items_done(second, "mcp_call") == []
    assert "not approve" in items_done(second, "message")[0]["content"][0]["text"]


# -- background -------------------------------------------------------------------------------


def test_background_poll_until_done(client: OpenAI, servers: Servers):
    created = client.responses.create(
        model="gpt-5-mini",
        background=True,
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"})),
    )
    assert created.status == "queued" and created.background is True
    seen = {created.status}
    deadline = time.monotonic() + 10
    response = created
    while response.status in ("queued", "in_progress") and time.monotonic() < deadline:
        time.sleep(0.02)
        response = client.responses.retrieve(created.id)
        seen.add(response.status)
    assert response.status == "completed"
    assert "in_progress" in seen or "queued" in seen


def test_background_stream_resumes_after_a_drop_without_loss(client: OpenAI, servers: Servers):
    stream = client.responses.create(
        model="gpt-5-mini",
        background=True,
        stream=True,
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"})),
        metadata={"mcptui_fault": "drop_after:5"},
    )
    received = []
    with pytest.raises(openai.APIConnectionError):
        for event in stream:
            received.append(event)
    assert [e.sequence_number for e in received] == [0, 1, 2, 3, 4]
    assert [e.type for e in received[:2]] == ["response.created", "response.queued"]
    response_id = received[0].response.id
    last = received[-1].sequence_number
    rest = list(client.responses.retrieve(response_id, stream=True, starting_after=last))
    numbers = [e.sequence_number for e in received + rest]
    assert numbers == list(range(len(numbers)))
    assert rest[-1].type == "response.completed"


def test_background_resume_from_the_start(client: OpenAI, servers: Servers):
    created = client.responses.create(
        model="gpt-5-mini",
        background=True,
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"})),
    )
    events = list(client.responses.retrieve(created.id, stream=True, starting_after=-1))
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    again = list(client.responses.retrieve(created.id, stream=True, starting_after=3))
    assert [e.sequence_number for e in again] == list(range(4, len(events)))


def test_cancel_a_background_run(client: OpenAI, servers: Servers):
    created = client.responses.create(
        model="gpt-5-mini",
        background=True,
        tools=[servers.tool()],
        input=calls("q", ("slow_search", {"query": "x", "delay_s": 1.0})),
    )
    deadline = time.monotonic() + 10  # running: the slow call is under way
    while client.responses.retrieve(created.id).status == "queued" and time.monotonic() < deadline:
        time.sleep(0.02)
    cancelled = client.responses.cancel(created.id)
    assert cancelled.status == "cancelled"
    assert client.responses.cancel(created.id).status == "cancelled"  # idempotent
    assert client.responses.retrieve(created.id).status == "cancelled"


def test_cancel_refuses_a_foreground_response(client: OpenAI, servers: Servers):
    done = client.responses.create(
        model="gpt-5-mini", input=calls("q", ("search", {})), tools=[servers.tool()]
    )
    with pytest.raises(openai.BadRequestError, match="background"):
        client.responses.cancel(done.id)


# -- faults -----------------------------------------------------------------------------------


def fault(client: OpenAI, servers: Servers, name: str, **body) -> list[dict]:
    return raw_events(
        client,
        model="gpt-5-mini",
        tools=[servers.tool()],
        input=calls("q", ("search", {"query": "x"})),
        metadata={"mcptui_fault": name},
        **body,
    )


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (3, ["response.created", "response.in_progress", "response.output_item.added"]),
        (0, []),  # drop_after:0 sends nothing (it used to send one event)
    ],
)
def test_fault_drop_after_closes_a_plain_stream(
    client: OpenAI, servers: Servers, after: int, expected: list[str]
):
    received = []
    with pytest.raises(openai.APIConnectionError):
        for event in client.responses.create(
            model="gpt-5-mini",
            stream=True,
            tools=[servers.tool()],
            input="q",
            metadata={"mcptui_fault": f"drop_after:{after}"},
        ):
            received.append(event.type)
    assert received == expected


def test_fault_stall_pauses_mid_stream(client: OpenAI, servers: Servers):
    """The fifth event comes no sooner than the stall after the request began (a bound that
    load cannot break: the emulator shares this process, so the fourth event may reach the
    client late, which shortens the gap it sees but never the time to the fifth)."""
    began = time.monotonic()
    stamps = []
    for _event in client.responses.create(
        model="gpt-5-mini",
        stream=True,
        tools=[servers.tool()],
        input="q",
        metadata={"mcptui_fault": "stall:1.2"},
    ):
        stamps.append(time.monotonic())
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert stamps[4] - began >= 1.2
    assert gaps.index(max(gaps)) == 3  # after the fourth event


def test_fault_malformed_line(client: OpenAI, servers: Servers):
    with client.responses.with_streaming_response.create(
        model="gpt-5-mini",
        stream=True,
        tools=[servers.tool()],
        input="q",
        metadata={"mcptui_fault": "malformed_line"},
    ) as response:
        data = [line[5:] for line in response.iter_lines() if line.startswith("data:")]
    broken = []
    for position, text in enumerate(data):
        try:
            json.loads(text)
        except ValueError:
            broken.append(position)
    assert broken == [3]
    assert json.loads(data[-1])["type"] == "response.completed"


def test_fault_unknown_event(client: OpenAI, servers: Servers):
    events = fault(client, servers, "unknown_event")
    unknown = [e for e in events if validation_errors(e)]
    assert [e["type"] for e in unknown] == ["response.mcp_call.progress"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_fault_docs_event_names(client: OpenAI, servers: Servers):
    types = {e["type"] for e in fault(client, servers, "docs_event_names")}
    assert {"response.mcp_call.arguments.delta", "response.mcp_call.arguments.done"} <= types
    assert "response.mcp_call_arguments.delta" not in types


@pytest.mark.parametrize(
    ("name", "error"),
    [("http_429", openai.RateLimitError), ("http_500", openai.InternalServerError)],
)
def test_fault_http_errors(client: OpenAI, servers: Servers, name, error):
    with pytest.raises(error):
        fault(client, servers, name)


def test_fault_insufficient_quota_stream_is_an_error_event_then_failed(
    client: OpenAI, servers: Servers, upstream_dir: Path
):
    """As the real API reports running out of credit mid-stream (openai-error.1): HTTP 200,
    created, in_progress, a nested `error` event, then `response.failed`."""
    body = {
        "model": "gpt-5-mini",
        "tools": [servers.tool()],
        "input": "q",
        "metadata": {"mcptui_fault": "insufficient_quota_stream"},
    }
    with client.responses.with_streaming_response.create(stream=True, **body) as response:
        status = response.status_code
        events = [
            json.loads(line[5:]) for line in response.iter_lines() if line.startswith("data:")
        ]
    assert status == 200
    real = upstream(upstream_dir, "openai-error.1.chunks.txt")
    assert (
        [e["type"] for e in events]
        == [e["type"] for e in real]
        == ["response.created", "response.in_progress", "error", "response.failed"]
    )
    assert [e["sequence_number"] for e in events] == [0, 1, 2, 3]
    assert events[2] == real[2]
    failed, real_failed = events[3]["response"], real[3]["response"]
    assert failed["status"] == "failed" and failed["error"] == real_failed["error"]
    assert failed["output"] == [] and failed["service_tier"] == real_failed["service_tier"]
    with pytest.raises(openai.APIError, match="exceeded your current quota"):  # as the SDK does
        for _event in client.responses.create(stream=True, **body):
            pass


def test_fault_insufficient_quota_stays_an_http_429(client: OpenAI, servers: Servers):
    with pytest.raises(openai.RateLimitError) as caught:
        fault(client, servers, "insufficient_quota")
    assert caught.value.code == "insufficient_quota"


def test_fault_background_fail(client: OpenAI, servers: Servers):
    events = fault(client, servers, "background_fail", background=True)
    assert_conforming(events)
    assert [e["type"] for e in events] == ["response.created", "response.queued", "response.failed"]
    assert events[-1]["response"]["status"] == "failed"
    assert events[-1]["response"]["error"] is None


def test_unknown_fault_is_a_400(client: OpenAI, servers: Servers):
    with pytest.raises(openai.BadRequestError, match="unknown fault"):
        fault(client, servers, "explode")


def test_tests_cannot_leave_loopback():
    with pytest.raises(httpx2.ConnectError, match="must stay on loopback"), httpx2.Client() as http:
        http.get("http://93.184.215.14/")


async def test_async_clients_cannot_leave_loopback_either():
    with pytest.raises(httpx2.ConnectError) as caught:
        async with httpx2.AsyncClient() as http:
            await http.get("http://93.184.215.14/")
    reasons = []
    exc: BaseException | None = caught.value
    while exc is not None:
        reasons.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    assert any("must stay on loopback" in reason for reason in reasons)


def test_the_emulator_keeps_only_the_newest_finished_responses(servers: Servers):
    """--keep N: a long-lived emulator forgets the least recently used finished responses
    (404 for them, as the API answers for an unknown id) instead of growing without bound."""
    config = RunConfig(tool_timeout=TOOL_TIMEOUT, delta_delay=0.0, queue_delay=0.0)
    with (
        ServerThread(Emulator(config, keep=2).app) as emulator,
        OpenAI(base_url=f"{emulator.url}/v1", api_key="sk-test", max_retries=0) as sdk,
    ):
        tool = servers.tool()
        ids = [
            sdk.responses.create(model="gpt-5-mini", input=f"hello {n}", tools=[tool]).id
            for n in range(3)
        ]
        assert sdk.responses.retrieve(ids[1]).id == ids[1]  # now the most recently used
        sdk.responses.create(model="gpt-5-mini", input="hello 3", tools=[tool])

        with pytest.raises(openai.NotFoundError):
            sdk.responses.retrieve(ids[0])
        with pytest.raises(openai.NotFoundError):
            sdk.responses.retrieve(ids[2])
        assert sdk.responses.retrieve(ids[1]).status == "completed"
