"""`mcptui serve` as a user runs it: the installed command serving a recording on a port, the
unmodified openai SDK as the app. The SDK must get what the recording holds: the same events
(streamed), the same final Response (not streamed), the same HTTP error."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from _ports import free_port

ROOT = Path(__file__).resolve().parents[2]
MCPTUI = Path(sys.executable).parent / "mcptui"
BROKEN_SCHEMA = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
RATE_LIMITED = ROOT / "tests" / "fixtures" / "serve" / "http-429.jsonl"
"""Made with `mcptui run --record` against `mcptui emulate`, `metadata.mcptui_fault: http_429`."""


def recorded(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A recording's header, its events and its notes, as written."""
    header, *lines = [json.loads(line) for line in path.read_text().splitlines()]
    return (
        header,
        [line["event"] for line in lines if "event" in line],
        [line["note"] for line in lines if "note" in line],
    )


def serve(*args: str) -> Iterator[str]:
    """`mcptui serve ARGS --port N` in its own process; the base URL it prints, once it
    prints it (the socket listens before the banner is written)."""
    port = free_port()
    process = subprocess.Popen(
        [str(MCPTUI), "serve", *args, "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1"
        assert f"export OPENAI_BASE_URL={url}" in banner, banner + process.stderr.read()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def broken_schema() -> Iterator[str]:
    yield from serve(str(BROKEN_SCHEMA), "--instant")


@pytest.fixture
def rate_limited() -> Iterator[str]:
    yield from serve(str(RATE_LIMITED), "--instant")


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="sk-app-under-test", max_retries=0)


def test_a_stream_gets_the_recorded_events_with_the_424(broken_schema: str):
    """Every event as the SDK parsed it (`exclude_unset`: the fields the wire held) equals
    the recorded one, payloads included."""
    header, events, _ = recorded(BROKEN_SCHEMA)
    stream = client(broken_schema).responses.create(
        model="gpt-5-mini", input=header["request"]["input"], stream=True
    )
    got = [event.model_dump(mode="json", exclude_unset=True) for event in stream]
    assert [event["type"] for event in got] == [event["type"] for event in events]
    assert got == events
    failed = [
        event["item"]
        for event in got
        if event["type"] == "response.output_item.done" and event["item"]["type"] == "mcp_call"
    ]
    assert failed[0]["status"] == "failed"
    assert failed[0]["error"]["code"] == 424


def test_not_streamed_gets_the_recorded_final_response(broken_schema: str):
    _, events, _ = recorded(BROKEN_SCHEMA)
    response = client(broken_schema).responses.create(model="gpt-5-mini", input="anything")
    assert response.model_dump(mode="json", exclude_unset=True) == events[-1]["response"]
    assert response.status == "completed"


def test_a_recorded_429_is_answered_with_its_status_and_body(rate_limited: str):
    _, _, notes = recorded(RATE_LIMITED)
    with pytest.raises(openai.RateLimitError) as raised:
        client(rate_limited).responses.create(model="gpt-5-mini", input="hi", stream=True)
    assert raised.value.status_code == 429
    assert raised.value.response.json() == notes[0]["body"]
    assert raised.value.response.headers["retry-after"] == "1"


def test_the_sdks_retries_of_a_recorded_429_get_the_429_again(rate_limited: str):
    """After the last recorded response the first comes again: an SDK retrying a 429 sees the
    recorded error each time, not a made-up one."""
    retrying = openai.OpenAI(base_url=rate_limited, api_key="sk-app-under-test", max_retries=2)
    with pytest.raises(openai.RateLimitError):
        retrying.with_options(timeout=20).responses.create(model="gpt-5-mini", input="other")
