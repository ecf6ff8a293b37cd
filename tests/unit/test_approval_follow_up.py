"""The follow-up that answers an approval request carries the tools of the request that made
the response it answers: an edited re-send's (`e`), not the run's first request's."""

from __future__ import annotations

from mcptui.model.timeline import Timeline
from mcptui.sources.live import LiveRun, Tracked
from mcptui.sources.session import Session
from openai import AsyncOpenAI


def tools(approval: str) -> list[dict[str, str]]:
    return [{"type": "mcp", "server_label": "demo", "server_url": "http://x/mcp",
             "require_approval": approval}]  # fmt: skip


async def test_the_answer_keeps_the_edited_request_s_tools():
    client = AsyncOpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    run = LiveRun(Session(Timeline()), client)
    first = {"model": "gpt-5", "input": "x", "tools": tools("never")}
    edited = {**first, "tools": tools("always")}
    run.first_request = first
    run.followed += [Tracked(id="resp_1", request=first), Tracked(id="resp_2", request=edited)]
    answer = run.approval_request("resp_2", "mcpr_1", True)
    assert answer["tools"] == tools("always")
    assert answer["previous_response_id"] == "resp_2"
    assert run.approval_request("resp_1", "mcpr_0", False)["tools"] == tools("never")
    await client.close()
