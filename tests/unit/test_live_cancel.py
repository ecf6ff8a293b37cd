"""A cancel that ends the stream it cancels is noted before the lookup that stream's end
starts: the recording reads in the order things were asked, whichever answer comes first."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from mcptui.model.player import Player
from mcptui.model.timeline import Timeline
from mcptui.sources.live import LiveRun
from mcptui.sources.session import Session
from openai import AsyncOpenAI

RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "background": True}


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def test_the_cancel_note_comes_before_the_status_of_the_stream_it_ended():
    asked: list[str] = []

    async def run() -> list[str]:
        cancel_sent = asyncio.Event()
        stream_ended = asyncio.Event()

        async def body() -> AsyncIterator[bytes]:
            yield sse({"type": "response.created", "sequence_number": 0, "response": RESPONSE})
            await cancel_sent.wait()
            stream_ended.set()  # ends without a terminal event, as a cancelled run's can

        async def handler(request: httpx2.Request) -> httpx2.Response:
            asked.append(f"{request.method} {request.url.path}")
            if request.url.path.endswith("/cancel"):
                cancel_sent.set()
                await stream_ended.wait()
                # The cancel's answer is slow: give the stream's end every chance to be
                # looked up first (loop turns, not time: nothing here waits on a clock).
                for _ in range(200):
                    await asyncio.sleep(0)
                return httpx2.Response(200, json={**RESPONSE, "status": "cancelled"})
            if request.method == "GET":
                return httpx2.Response(200, json={**RESPONSE, "status": "cancelled"})
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=body()
            )

        client = AsyncOpenAI(
            base_url="http://mcptui.test/v1",
            api_key="k",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        )
        session = Session(Timeline(), source="test", player=Player(instant=True), live=True)
        live = LiveRun(session, client)
        sending = asyncio.create_task(live.send({"model": "m", "background": True}))
        while live.current.id is None:  # the stream has told us the response's id
            await asyncio.sleep(0)
        await live.cancel()
        await sending
        return [event.raw["kind"] for event in session.timeline.events if event.is_note]

    kinds = asyncio.run(run())
    assert asked == [
        "POST /v1/responses",
        "POST /v1/responses/resp_1/cancel",
        "GET /v1/responses/resp_1",
    ]
    assert kinds == ["cancel", "status"], kinds
