"""The demo MCP server over a real loopback wire, seen through McpLink as OpenAI would see it.

Every test runs over both transports (streamable HTTP at /mcp, SSE at /sse) of one app, and in
both MCP eras (`era`): the legacy initialize handshake and the stateless 2026-07-28 revision
(server/discover). Each failing tool must fail with the same kind, and the same OpenAI error, in
both; only --forget-sessions is legacy-only (a modern client has no session to forget).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import anyio
import pytest
from mcptui.emulator.demo_server import TOOL_NAMES, DemoModes, banner, build_app
from mcptui.mcpclient.link import TASKGROUP_424, McpLink, McpUnavailable, tool_entry
from mcptui.net.serve import ServerThread

TOKEN = "demo-token"
PATHS = ["/mcp", "/sse"]
ERAS = ["legacy", "modern"]


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with ServerThread(build_app()) as thread:
        yield thread.url


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    with ServerThread(build_app(token=TOKEN)) as thread:
        yield thread.url


@pytest.fixture(params=PATHS)
def url(request: pytest.FixtureRequest, server: str) -> str:
    return server + request.param


async def test_lists_every_tool_and_broken_schema_advertises_an_output_schema(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        assert link.server_info is not None and link.server_info.name == "mcptui-demo"
        assert link.era == era
        assert link.protocol_version == {"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
        tools = {tool.name: tool for tool in await link.list_tools()}
    assert set(tools) == set(TOOL_NAMES)
    assert tools["broken_schema"].output_schema is not None
    assert tools["search"].output_schema is not None
    entry = tool_entry(tools["search"])
    assert list(entry) == ["annotations", "description", "input_schema", "name"]
    assert entry["annotations"] == {"read_only": True}
    assert entry["input_schema"]["required"] == ["query"]


async def test_search_answers_with_structured_content(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        await link.list_tools()
        outcome = await link.call("search", {"query": "mcp", "limit": 2}, timeout=5)
    assert outcome.error is None and outcome.cause is None
    assert outcome.result.structured_content["query"] == "mcp"
    assert len(outcome.result.structured_content["hits"]) == 2
    assert json.loads(outcome.output) == outcome.result.structured_content


async def test_broken_schema_is_the_opaque_424_with_the_missing_structured_content_as_cause(
    url: str, era: str
):
    async with McpLink(url, timeout=5, protocol=era) as link:
        outcome = await link.call("broken_schema", {"query": "x"}, timeout=5)
    assert outcome.error == TASKGROUP_424
    assert outcome.error["message"] == "424: unhandled errors in a TaskGroup (1 sub-exception)"
    assert "output schema but did not return structured content" in outcome.cause
    assert outcome.output is None


async def test_bad_content_is_a_424_caused_by_a_validation_error(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        outcome = await link.call("bad_content", {"query": "x"}, timeout=5)
        after = await link.call("search", {"query": "still here"}, timeout=5)
    assert outcome.error == TASKGROUP_424
    assert outcome.cause.startswith("ValidationError:")
    assert "CallToolResult" in outcome.cause and "'json'" in outcome.cause
    assert after.error is None


async def test_failing_api_is_a_tool_execution_error_that_hides_the_exception_text(
    url: str, era: str
):
    async with McpLink(url, timeout=5, protocol=era) as link:
        outcome = await link.call("failing_api", {"query": "x"}, timeout=5)
    assert outcome.error == {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Error executing tool failing_api"}],
    }
    assert "503" not in json.dumps(outcome.error)
    assert outcome.result.is_error


async def test_a_slow_tool_is_a_424_timeout_and_the_link_still_works(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        outcome = await link.call("slow_search", {"query": "x", "delay_s": 2}, timeout=0.5)
        after = await link.call("search", {"query": "after"}, timeout=5)
    assert outcome.error == TASKGROUP_424
    assert "timed out" in outcome.cause
    assert 0.4 < outcome.seconds < 1.9
    assert after.error is None
    assert after.result.structured_content["query"] == "after"


async def test_a_json_rpc_error_is_an_mcp_protocol_error(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        outcome = await link.call("protocol_error", {"query": "x"}, timeout=5)
    assert outcome.error == {
        "type": "mcp_protocol_error",
        "code": -32602,
        "message": "protocol_error refuses every call ('x')",
    }


async def test_unknown_tools_and_bad_arguments_are_tool_execution_errors(url: str, era: str):
    """MCPServer answers both with isError results, not JSON-RPC errors."""
    async with McpLink(url, timeout=5, protocol=era) as link:
        unknown = await link.call("no_such_tool", {}, timeout=5)
        bad_args = await link.call("search", {"limit": "many"}, timeout=5)
    assert unknown.error == {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Unknown tool: no_such_tool"}],
    }
    assert bad_args.error["type"] == "mcp_tool_execution_error"
    assert "validation error" in bad_args.error["content"][0]["text"]


async def test_job_handles_keep_slow_work_under_the_timeout(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        started = await link.call("start_job", {"query": "slow", "duration_s": 0.3}, timeout=1)
        job_id = started.result.structured_content["job_id"]
        running = await link.call("check_job", {"job_id": job_id}, timeout=1)
        await anyio.sleep(0.35)
        finished = await link.call("check_job", {"job_id": job_id}, timeout=1)
        unknown = await link.call("check_job", {"job_id": "job_nope"}, timeout=1)
    assert started.error is None and started.result.structured_content["status"] == "running"
    assert running.result.structured_content["status"] == "running"
    assert finished.result.structured_content["status"] == "done"
    assert finished.result.structured_content["result"]["query"] == "slow"
    assert unknown.error["type"] == "mcp_tool_execution_error"
    assert "unknown job id" in unknown.error["content"][0]["text"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "headers", [None, {"Authorization": "Bearer wrong"}], ids=["no-token", "wrong-token"]
)
async def test_a_missing_or_wrong_token_is_unavailable_with_401(
    token_server: str, path: str, headers: dict[str, str] | None, era: str
):
    started = time.monotonic()
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(token_server + path, headers=headers, timeout=5, protocol=era):
            pass
    assert "HTTP 401" in str(caught.value)
    assert "token" in str(caught.value)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("path", PATHS)
async def test_the_right_token_works(token_server: str, path: str, era: str):
    async with McpLink(
        token_server + path, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5, protocol=era
    ) as link:
        assert len(await link.list_tools()) == len(TOOL_NAMES)
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.error is None


@pytest.mark.parametrize("path", ["/nope", "/nope/sse"])
async def test_a_wrong_path_is_unavailable_with_404(server: str, path: str, era: str):
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(server + path, timeout=5, protocol=era):
            pass
    assert "HTTP 404" in str(caught.value)


def test_the_banner_names_both_endpoints_and_the_modes_without_their_tokens():
    text = banner(
        DemoModes(token=TOKEN, call_token="call-" + TOKEN, host_check=True, forget_sessions=True)
    ).format(url="http://127.0.0.1:8765")
    assert "http://127.0.0.1:8765/mcp" in text
    assert "http://127.0.0.1:8765/sse" in text
    assert "421 at 127.0.0.1" in text and "404 on the call" in text
    assert "--call-token" in text
    assert TOKEN not in text


async def test_mismatched_schema_answers_structured_content_its_schema_refuses(url: str, era: str):
    async with McpLink(url, timeout=5, protocol=era) as link:
        await link.list_tools()
        outcome = await link.call("mismatched_schema", {"query": "x"}, timeout=5)
    assert outcome.error == TASKGROUP_424
    assert outcome.kind == "invalid_structured_content"
    assert "Invalid structured content" in (outcome.cause or "")


@pytest.fixture(scope="module")
def mode_server() -> Iterator[dict[str, str]]:
    with (
        ServerThread(build_app(modes=DemoModes(host_check=True))) as host,
        ServerThread(build_app(modes=DemoModes(call_token=TOKEN))) as call,
        ServerThread(build_app(modes=DemoModes(forget_sessions=True))) as forget,
    ):
        yield {"host": host.url, "call": call.url, "forget": forget.url}


@pytest.mark.parametrize("path", PATHS)
async def test_host_check_answers_421_to_127_0_0_1_and_serves_localhost(
    mode_server: dict[str, str], path: str, era: str
):
    url = mode_server["host"] + path
    with pytest.raises(McpUnavailable) as caught:
        async with McpLink(url, timeout=5, protocol=era):
            pass
    assert caught.value.kind == "http_421"
    assert "Host header" in str(caught.value)
    async with McpLink(url.replace("127.0.0.1", "localhost"), timeout=5, protocol=era) as link:
        assert "search" in {tool.name for tool in await link.list_tools()}


async def test_call_token_lists_tools_but_refuses_the_call_with_401(
    mode_server: dict[str, str], era: str
):
    async with McpLink(
        mode_server["call"] + "/mcp",
        timeout=5,
        protocol=era,
        headers={"Authorization": "Bearer wrong"},
    ) as link:
        assert "search" in {tool.name for tool in await link.list_tools()}
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.error == {
        "type": "mcp_protocol_error",
        "code": -32603,
        "message": "Server returned an error response",
    }
    assert outcome.kind == "http_401"
    assert "HTTP 401" in (outcome.cause or "")
    async with McpLink(
        mode_server["call"] + "/mcp",
        timeout=5,
        protocol=era,
        headers={"Authorization": f"Bearer {TOKEN}"},
    ) as link:
        await link.list_tools()
        assert (await link.call("search", {"query": "x"}, timeout=5)).error is None


async def test_forget_sessions_answers_the_call_after_listing_with_a_lost_session(
    mode_server: dict[str, str],
):
    async with McpLink(mode_server["forget"] + "/mcp", timeout=5, protocol="legacy") as link:
        await link.list_tools()
        outcome = await link.call("search", {"query": "x"}, timeout=5)
    assert outcome.kind == "session_terminated"
    assert outcome.error == {
        "type": "mcp_protocol_error",
        "code": 32600,
        "message": "Session terminated",
    }
    assert "Session not found" in (outcome.cause or "")


async def test_forget_sessions_leaves_the_modern_era_alone(mode_server: dict[str, str]):
    """2026-07-28 has no session to forget: listing, then calling, just works."""
    async with McpLink(mode_server["forget"] + "/mcp", timeout=5, protocol="modern") as link:
        assert link.era == "modern"
        await link.list_tools()
        first = await link.call("search", {"query": "x"}, timeout=5)
        await link.list_tools()
        second = await link.call("search", {"query": "y"}, timeout=5)
    assert first.error is None and second.error is None


def test_the_banner_names_the_revisions_served():
    both = banner(DemoModes()).format(url="http://127.0.0.1:8765")
    assert "2026-07-28 (server/discover) and 2025-11-25 (initialize)" in both
    old = banner(DemoModes(legacy_only=True)).format(url="http://127.0.0.1:8765")
    assert "MCP revisions:    2025-11-25 (initialize)\n" in old
    assert "legacy only" in old
