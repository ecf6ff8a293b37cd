"""What a server really answered is kept even when the mcp SDK's client rejects it
(mcpclient/link.py `keep_answers`): the tool workspace shows the result a tool sent without
the structuredContent its outputSchema promises, or with one that breaks it."""

from __future__ import annotations

import asyncio

from _e2e_support import Servers
from mcptui.probe.probing import list_tools, probe_call


def test_a_rejected_result_is_still_in_the_report(servers: Servers):
    entry = servers.tool()
    report = asyncio.run(probe_call(entry, "broken_schema", {"query": "x"}))
    (call,) = report.calls
    assert call.kind == "missing_structured_content" and not call.ok
    assert call.result is not None and "structuredContent" not in call.result
    assert call.result["content"][0]["type"] == "text"

    report = asyncio.run(probe_call(entry, "mismatched_schema", {"query": "x"}))
    (call,) = report.calls
    assert call.kind == "invalid_structured_content"
    assert call.result["structuredContent"]["hits"] == "3 hits"

    report = asyncio.run(probe_call(entry, "search", {"query": "x"}))
    (call,) = report.calls
    assert call.ok and call.result["structuredContent"]["query"] == "x"


def test_the_listing_carries_each_tool_s_annotations_and_calls_nothing(servers: Servers):
    report = asyncio.run(list_tools(servers.tool()))
    assert report.reachable and not report.calls
    tools = {tool.name: tool for tool in report.tools}
    assert tools["search"].annotations == {"readOnlyHint": True}
    assert tools["broken_schema"].output_schema is not None
