"""`mcptui serve` plays a recording at its pace: each wait is the recorded gap, divided by
`--speed`, and the first event of a response waits its own time to first byte (from when its
request was sent). The waits are read off the play loop, not timed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcptui.emulator import served
from mcptui.emulator.served import RecordedBuilder, ServedRecording, recorded_responses
from mcptui.emulator.store import StoredResponse
from mcptui.io.formats import load_path

ROOT = Path(__file__).resolve().parents[2]
BROKEN_SCHEMA = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"


def waits_of(path: Path, speed: float, monkeypatch: pytest.MonkeyPatch) -> list[list[float]]:
    """The sleeps each recorded response's play asks for, response by response."""
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(served.asyncio, "sleep", sleep)
    found: list[list[float]] = []

    async def play_all() -> None:
        server = ServedRecording(recorded_responses(load_path(str(path))), speed=speed)
        for recorded in server.responses:
            builder = RecordedBuilder({"model": "m", "input": "x"}, recorded)
            asked.clear()
            await server.play(StoredResponse(builder), builder)
            found.append(list(asked))

    asyncio.run(play_all())
    return found


def times_of(path: Path) -> list[float]:
    return [
        json.loads(line)["t"] for line in path.read_text().splitlines()[1:] if '"event"' in line
    ]


def test_the_first_event_waits_its_time_to_first_byte(monkeypatch: pytest.MonkeyPatch):
    times = times_of(BROKEN_SCHEMA)
    (waits,) = waits_of(BROKEN_SCHEMA, 2.0, monkeypatch)
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False) if b > a]
    assert waits == pytest.approx([gap / 2.0 for gap in gaps])
    assert waits[0] == pytest.approx(times[0] / 2.0)  # 0.412 s to the first byte, at 2x
    assert sum(waits) == pytest.approx(times[-1] / 2.0)


def test_a_later_response_waits_from_its_own_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def event(t: float, kind: str, number: int, status: str) -> dict[str, Any]:
        response = {"id": f"resp_{int(t)}", "object": "response", "status": status, "output": []}
        return {"t": t, "event": {"type": kind, "sequence_number": number, "response": response}}

    lines: list[dict[str, Any]] = [
        {
            "mcptui": "recording",
            "format": 1,
            "created": "2026-11-27T10:00:00+00:00",
            "request": {"input": "one"},
        },
        event(0.5, "response.created", 0, "in_progress"),
        event(1.0, "response.completed", 1, "completed"),
        {"t": 9.0, "note": {"kind": "request", "request": {"input": "two"}}},
        event(9.25, "response.created", 0, "in_progress"),
        event(10.0, "response.completed", 1, "completed"),
    ]
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first, second = waits_of(path, 1.0, monkeypatch)
    assert first == pytest.approx([0.5, 0.5])
    assert second == pytest.approx([0.25, 0.75])  # not 8.25 s from the first response's end


def test_instant_never_waits(monkeypatch: pytest.MonkeyPatch):
    assert waits_of(BROKEN_SCHEMA, 0.0, monkeypatch) == [[]]
