"""A live stream is read first and parsed in slices: each event keeps the arrival time of the
bytes that completed it, however late it is parsed, and the recording has it once parsed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

from mcptui.io.recording import make_header
from mcptui.model.player import Player
from mcptui.model.timeline import Timeline
from mcptui.sources.live import LiveRun, Recorder, Tracked
from mcptui.sources.session import Session
from openai import AsyncOpenAI


def block(seq: int) -> bytes:
    event = {
        "type": "response.output_text.delta",
        "sequence_number": seq,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": f"d{seq}",
    }
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def test_events_keep_their_arrival_time_not_their_parse_time(tmp_path: Path):
    now = [100.0]
    session = Session(Timeline(), source="test", player=Player(instant=True), live=True)
    recorder = Recorder(tmp_path / "run.jsonl")
    live = LiveRun(
        session,
        AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k"),
        recorder=recorder,
        clock=lambda: now[0],
    )
    recorder.open(make_header("live"))
    # Three chunks, the second event split across two of them, arriving 1 ms apart.
    wire = block(0) + block(1) + block(2)
    cut = len(block(0)) + 10
    chunks = [(100.001, wire[:cut]), (100.002, wire[cut:]), (100.003, b"")]

    async def stream() -> AsyncIterator[bytes]:
        for arrival, chunk in chunks:
            now[0] = arrival
            if chunk:
                yield chunk
        now[0] = 105.0  # parsing happens long after the last byte came

    async def run() -> str:
        return await live._read(stream(), Tracked())

    assert asyncio.run(run()) == "end"
    events = session.timeline.events
    assert [e.sequence_number for e in events] == [0, 1, 2]
    assert [round(e.t or 0, 6) for e in events] == [0.001, 0.002, 0.002]
    assert not live.behind
    lines = (tmp_path / "run.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"]["sequence_number"] for line in lines[1:]] == [0, 1, 2]
