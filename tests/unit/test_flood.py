"""The emulator's `flood:N` fault: N text deltas, pre-serialised, exactly as the rest is sent."""

from __future__ import annotations

import asyncio
import random

import pytest
from mcptui.emulator.app import sse, tail
from mcptui.emulator.builder import ResponseBuilder
from mcptui.emulator.faults import FAULTS, FaultError, parse_faults
from mcptui.emulator.runner import FLOOD_BLOCK, Run, RunConfig
from mcptui.emulator.store import Store, StoredResponse
from mcptui.model.conformance import check_stream
from mcptui.model.ingest import StreamIngester
from mcptui.model.timeline import Timeline


def test_flood_is_parsed_and_documented():
    assert parse_faults("flood:200000").flood == 200_000
    assert parse_faults("flood:3,stall:1").flood == 3
    assert "flood:N" in FAULTS
    for bad in ("flood:", "flood:x", "flood:0"):
        with pytest.raises(FaultError):
            parse_faults(bad)


async def flooded(count: int, fault: str) -> tuple[StoredResponse, bytes]:
    request = {"model": "gpt-5-mini", "input": "hi", "stream": True}
    stored = StoredResponse(ResponseBuilder(request, rng=random.Random(1)), parse_faults(fault))
    stored.builder.on_event = stored.notify
    store = Store()
    store.add(stored)
    stored.task = asyncio.create_task(Run(stored, store, RunConfig(delta_delay=0)).run())
    body = b"".join([chunk async for chunk in tail(stored, -1, stored.faults)])
    await stored.task
    return stored, body


@pytest.mark.parametrize("fault", ["flood:{n}", "flood:{n},stall:0.001@2"])
def test_a_flood_is_the_stream_the_events_say_well_formed(fault: str):
    """Sent in pre-serialised blocks (or event by event when another fault needs that), the
    bytes are those of the events one by one; numbered, one item, done events agreeing."""
    count = FLOOD_BLOCK + 7  # two blocks, the second one short
    stored, body = asyncio.run(flooded(count, fault.format(n=count)))
    events = stored.builder.events
    assert body == b"".join(sse(event) for event in events)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert len(deltas) == count
    assert len({e["item_id"] for e in deltas}) == 1
    text = "".join(e["delta"] for e in deltas)
    done = next(e for e in events if e["type"] == "response.output_text.done")
    assert done["text"] == text
    assert events[-1]["type"] == "response.completed"
    assert events[-1]["response"]["output"][0]["content"][0]["text"] == text
    ingester = StreamIngester()
    timeline = Timeline(ingester.feed(body) + ingester.finish())
    timeline.seek_end()
    findings = check_stream(timeline.events, timeline.state, complete=True)
    assert [f for f in findings if f.severity == "error"] == []
