"""The tap's recording while its relay waits (tui/mcptui/capture/deferred.py): a request is
recorded once its turn of the loop is over (it has gone on), an answer at the next request or
after a quiet moment, each timed when the relay saw it, all of it whatever fails."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from mcptui.capture.deferred import LARGE, QUIET, DeferredHub
from mcptui.capture.tap import TapHub
from mcptui.model.events import Event

HEADERS = [(b"content-type", b"application/json"), (b"mcp-protocol-version", b"2025-11-25")]


def call(number: int) -> bytes:
    params = {"name": "search", "arguments": {"query": f"q{number}"}}
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})


def answer(number: int) -> bytes:
    result = {"content": [{"type": "text", "text": f"https://example.com/{number}"}]}
    return json.dumps({"jsonrpc": "2.0", "id": number, "result": result}).encode()


def tap_hub(tmp_path: Path) -> tuple[DeferredHub, list[Event], list[str]]:
    tap = TapHub("http://127.0.0.1:9/mcp", tmp_path / "tap.jsonl")
    shown: list[Event] = []
    told: list[str] = []
    tap.on_event = shown.append
    tap.on_problem = told.append
    return DeferredHub(tap), shown, told


def exchange(hub: DeferredHub, number: int) -> tuple[int, Any]:
    key = hub.exchange_for("POST", "/mcp", "/mcp", call(number).encode(), HEADERS)
    assert key is not None
    hub.exchange_started()
    return key, None


def answered(hub: DeferredHub, key: int, number: int) -> None:
    recorder = hub.begin(key, 200, {"content-type": "application/json"})
    recorder.feed(answer(number))
    recorder.end()
    hub.ended(None, key)


def messages(shown: list[Event]) -> list[str]:
    return [str(event.raw["message"]).split("  ")[0] for event in shown]


async def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.001)


async def test_a_request_is_recorded_once_its_turn_is_over(tmp_path: Path) -> None:
    hub, shown, _ = tap_hub(tmp_path)
    exchange(hub, 1)
    assert shown == []  # the relay passes it on first
    await asyncio.sleep(0)
    assert messages(shown) == ["→ tools/call search"]


async def test_an_answer_waits_for_the_next_request_or_a_quiet_moment(tmp_path: Path) -> None:
    hub, shown, _ = tap_hub(tmp_path)
    key, _ = exchange(hub, 1)
    await asyncio.sleep(0)
    answered(hub, key, 1)
    await asyncio.sleep(0)
    assert messages(shown) == ["→ tools/call search"]  # the client's next call may be coming
    key, _ = exchange(hub, 2)  # it came: both go in that turn, in order
    await asyncio.sleep(0)
    assert messages(shown) == ["→ tools/call search", "← result search", "→ tools/call search"]
    answered(hub, key, 2)  # the last call: recorded once the relay has been quiet
    await until(lambda: len(shown) == 4, "the last answer was never recorded")
    assert messages(shown)[-1] == "← result search"
    lines = (tmp_path / "tap.jsonl").read_text().splitlines()
    assert [json.loads(line)["note"]["message"].split("  ")[0] for line in lines[1:]] == (
        messages(shown)
    )


async def test_each_message_is_timed_when_the_relay_saw_it(tmp_path: Path) -> None:
    """Not when it was recorded: an answer is recorded `QUIET` seconds after it passed."""
    hub, shown, _ = tap_hub(tmp_path)

    def now() -> float:
        return time.monotonic() - hub.hub.start

    before = now()
    key, _ = exchange(hub, 1)
    request_seen = (before, now())
    await asyncio.sleep(QUIET * 5)  # a slow server
    before = now()
    answered(hub, key, 1)
    answer_seen = (before, now())
    await until(lambda: len(shown) == 2, "the answer was never recorded")
    request, reply = shown
    assert request.t is not None and reply.t is not None
    assert request_seen[0] <= request.t <= request_seen[1]
    assert answer_seen[0] <= reply.t <= answer_seen[1]
    assert reply.raw["message"].endswith(f"· {round((reply.t - request.t) * 1000)} ms")


async def test_a_step_that_fails_is_told_once_and_the_rest_is_recorded(tmp_path: Path) -> None:
    hub, shown, told = tap_hub(tmp_path)
    failing = hub.hub.exchange_for

    def broken(*args: Any) -> Any:
        if b'"q1"' in args[3]:
            raise RuntimeError("boom")
        return failing(*args)

    hub.hub.exchange_for = broken
    exchange(hub, 1)
    exchange(hub, 1)
    exchange(hub, 2)
    await asyncio.sleep(0)
    assert messages(shown) == ["→ tools/call search"]
    assert len(told) == 1 and "could not be recorded: RuntimeError: boom" in told[0]


def test_closing_records_what_is_still_queued(tmp_path: Path) -> None:
    hub, shown, _ = tap_hub(tmp_path)

    async def relay() -> None:
        key, _ = exchange(hub, 1)
        await asyncio.sleep(0)
        answered(hub, key, 1)

    asyncio.run(relay())  # the loop is gone before the quiet moment came
    assert messages(shown) == ["→ tools/call search"]
    hub.close()
    assert messages(shown) == ["→ tools/call search", "← result search"]
    assert len((tmp_path / "tap.jsonl").read_text().splitlines()) == 3


async def test_a_large_exchange_is_recorded_off_the_relays_thread_and_in_order(
    tmp_path: Path,
) -> None:
    """Recording a large message takes long (a 10 MB answer held the relay 0.28 s): it goes
    to a thread of its own, and what the relay posts meanwhile is recorded after it, in
    order; the relay's own thread records nothing until that is done."""
    hub, shown, _ = tap_hub(tmp_path)
    threads: list[str] = []
    release = threading.Event()
    show = hub.hub.on_event

    def held(event: Event) -> None:
        threads.append(threading.current_thread().name)
        if len(event.raw.get("jsonrpc", {}).get("params", {}).get("arguments", {})) > 1:
            assert release.wait(10)  # the large call's note: held until the test says
        show(event)

    hub.hub.on_event = held
    big = {"query": "q", "text": "x" * (LARGE + 1)}
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "search", "arguments": big},
        }
    ).encode()
    assert hub.exchange_for("POST", "/mcp", "/mcp", body, HEADERS) is not None
    exchange(hub, 1)  # posted while the large one is being recorded
    await asyncio.sleep(0)
    assert shown == []  # nothing recorded out of order, nothing on the relay's thread
    release.set()
    await until(lambda: len(shown) == 2, "the messages were never recorded")
    assert messages(shown) == ["→ tools/call search", "→ tools/call search"]
    assert shown[1].raw["jsonrpc"]["params"]["arguments"] == {"query": "q1"}
    assert threading.current_thread().name not in threads
    await until(
        lambda: "mcptui tap recording" not in [t.name for t in threading.enumerate()],
        "the worker never ended",
    )
    exchange(hub, 2)  # the worker is done: the relay's loop records again
    await until(lambda: len(shown) == 3, "the next request was never recorded")
    assert threads[-1] == threading.current_thread().name
    hub.close()
