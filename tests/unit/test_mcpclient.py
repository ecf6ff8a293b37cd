"""McpLink's helpers, and its behaviour when the server is not there or goes away."""

from __future__ import annotations

import time

import mcp.types
import pytest
from _ports import free_port
from mcptui.emulator.demo_server import build_app
from mcptui.mcpclient.link import (
    TASKGROUP_424,
    McpLink,
    McpUnavailable,
    request_headers,
    tool_entry,
    transport_for,
)
from mcptui.model.failure_text import describe_exception, unwrap
from mcptui.net.serve import ServerThread


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000/sse", "sse"),
        ("https://example.com/mcp/sse/", "sse"),
        ("http://127.0.0.1:8000/sse?key=1", "sse"),
        ("http://127.0.0.1:8000/mcp", "streamable_http"),
        ("https://example.com/", "streamable_http"),
        ("https://example.com/ssex", "streamable_http"),
    ],
)
def test_transport_for(url: str, expected: str):
    assert transport_for(url) == expected


def test_request_headers_add_the_bearer_token():
    assert request_headers(None, None) == {}
    assert request_headers({"X-Key": 1}, "abc") == {"X-Key": "1", "Authorization": "Bearer abc"}
    assert request_headers(None, "Bearer abc") == {"Authorization": "Bearer abc"}
    assert request_headers({"authorization": "Basic x"}, "abc") == {"Authorization": "Bearer abc"}
    assert request_headers({"Authorization": "Bearer keep"}, None) == {
        "Authorization": "Bearer keep"
    }


def test_unwrap_finds_the_cause_inside_groups_and_cause_chains():
    inner = ConnectionRefusedError(111, "refused")
    try:
        try:
            raise inner
        except OSError as exc:
            raise RuntimeError("wrapper") from exc
    except RuntimeError as exc:
        wrapped = exc
    group = ExceptionGroup(
        "unhandled errors in a TaskGroup (1 sub-exception)", [ExceptionGroup("nested", [wrapped])]
    )
    assert unwrap(group) is inner
    assert unwrap(ValueError("plain")).args == ("plain",)


def test_describe_exception_names_the_real_error_and_a_new_root_cause():
    group = ExceptionGroup(
        "unhandled errors in a TaskGroup (1 sub-exception)",
        [RuntimeError("Tool x has an output schema but did not return structured content")],
    )
    assert describe_exception(group) == (
        "RuntimeError: Tool x has an output schema but did not return structured content"
    )
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed")
        except OSError as exc:
            raise OSError("All connection attempts failed") from exc
    except OSError as exc:
        text = describe_exception(exc)
    assert text.startswith("OSError: All connection attempts failed (ConnectionRefusedError:")


def test_tool_entry_has_openais_shape_without_the_output_schema():
    tool = mcp.types.Tool(
        name="t",
        description="d",
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        annotations=mcp.types.ToolAnnotations(read_only_hint=False),
    )
    assert tool_entry(tool) == {
        "annotations": {"read_only": False},
        "description": "d",
        "input_schema": {"type": "object"},
        "name": "t",
    }
    bare = mcp.types.Tool(name="b", input_schema={"type": "object"})
    assert tool_entry(bare)["annotations"] is None


@pytest.mark.parametrize("path", ["/mcp", "/sse"])
async def test_a_closed_port_fails_fast_as_refused(path: str):
    started = time.monotonic()
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(f"http://127.0.0.1:{free_port()}{path}", timeout=10):
            pass
    assert time.monotonic() - started < 5
    assert "connection refused" in str(caught.value)
    assert "ConnectError" in caught.value.cause


@pytest.mark.parametrize("path", ["/mcp", "/sse"])
async def test_a_server_that_goes_away_turns_calls_into_424_and_closing_does_not_hang(path: str):
    thread = ServerThread(build_app()).start()
    try:
        async with McpLink(thread.url + path, timeout=3) as link:
            assert (await link.call("search", {"query": "x"}, timeout=3)).error is None
            thread.stop()
            outcome = await link.call("search", {"query": "x"}, timeout=1)
            again = await link.call("search", {"query": "x"}, timeout=1)
            started = time.monotonic()
        assert time.monotonic() - started < 4
    finally:
        thread.stop()
    assert outcome.error == TASKGROUP_424
    assert again.error == TASKGROUP_424
    if path == "/mcp":  # the failed POST: only logged by the SDK, picked up by the link
        assert "ConnectionRefusedError" in outcome.cause
    else:  # the server closed the event stream: nothing failed, the stream just ended
        assert "Connection closed" in outcome.cause
    assert again.cause == outcome.cause


async def test_unknown_transport_names_are_refused():
    with pytest.raises(ValueError, match="unknown MCP transport"):
        McpLink("http://127.0.0.1:1/mcp", transport="websocket")
