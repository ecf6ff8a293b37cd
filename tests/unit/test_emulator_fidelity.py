"""The emulator's builder and faults against what the real recorded streams show
(tests/fixtures/upstream): obfuscation on and off, tool annotations, the service tier, reasoning
items, the in-stream quota error. The end-to-end side is in tests/e2e/test_emulator.py."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from mcptui.emulator.app import sse, tail
from mcptui.emulator.builder import (
    QUOTA_MESSAGE,
    ResponseBuilder,
    is_reasoning_model,
    listed_tool,
)
from mcptui.emulator.faults import FAULTS, parse_faults
from mcptui.emulator.runner import Run, RunConfig
from mcptui.emulator.store import Store, StoredResponse

Json = dict[str, Any]


def upstream(upstream_dir: Path, name: str) -> list[Json]:
    return [
        json.loads(line) for line in (upstream_dir / name).read_text().splitlines() if line.strip()
    ]


def builder(**request: Any) -> ResponseBuilder:
    return ResponseBuilder(
        {"model": "gpt-5-mini", "input": "q", **request}, rng=random.Random(5), reasoning_items=True
    )


def a_call_and_a_message(b: ResponseBuilder) -> list[Json]:
    b.start()
    b.set_in_progress()
    call = b.call_started("search", "demo")
    b.call_argument_delta(call, '{"query": "webhook retries"}')
    b.call_arguments_done(call)
    b.call_ended(call, output="ok", error=None)
    message = b.message_started()
    for piece in ("The", " search", " worked."):
        b.message_delta(message, piece)
    b.message_ended(message)
    b.finish("completed")
    return b.events


def test_deltas_are_padded_by_default_and_not_when_the_request_says_so():
    padded = [e for e in a_call_and_a_message(builder()) if e["type"].endswith(".delta")]
    plain = [
        e
        for e in a_call_and_a_message(builder(stream_options={"include_obfuscation": False}))
        if e["type"].endswith(".delta")
    ]
    assert len(padded) == len(plain) == 4
    assert all((len(e["delta"]) + len(e["obfuscation"])) % 16 == 0 for e in padded)
    assert not any("obfuscation" in e for e in plain)
    # include_obfuscation: true, or other stream options, leave it on
    on = builder(stream_options={"include_obfuscation": True, "other": 1})
    assert all("obfuscation" in e for e in a_call_and_a_message(on) if "delta" in e)


async def flood(request: Json) -> tuple[list[Json], bytes]:
    stored = StoredResponse(
        ResponseBuilder(request, rng=random.Random(1)), parse_faults("flood:50")
    )
    stored.builder.on_event = stored.notify
    store = Store()
    store.add(stored)
    stored.task = asyncio.create_task(Run(stored, store, RunConfig(delta_delay=0)).run())
    body = b"".join([chunk async for chunk in tail(stored, -1, stored.faults)])
    await stored.task
    return stored.builder.events, body


@pytest.mark.parametrize("include", [True, False])
def test_a_flood_is_padded_or_not_as_asked_and_its_bytes_are_its_events(include: bool):
    events, body = asyncio.run(
        flood(
            {
                "model": "gpt-5-mini",
                "input": "hi",
                "stream": True,
                "stream_options": {"include_obfuscation": include},
            }
        )
    )
    assert body == b"".join(sse(event) for event in events)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert len(deltas) == 50
    assert all(("obfuscation" in e) is include for e in deltas)


async def resumed(obfuscate: bool) -> list[Json]:
    b = builder()
    stored = StoredResponse(b, parse_faults(None))
    a_call_and_a_message(b)
    stored.end()
    body = b"".join([chunk async for chunk in tail(stored, -1, stored.faults, obfuscate=obfuscate)])
    return [json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:")]


def test_a_resume_without_obfuscation_strips_the_padding_and_nothing_else():
    padded, plain = asyncio.run(resumed(True)), asyncio.run(resumed(False))
    assert any("obfuscation" in e for e in padded)
    assert not any("obfuscation" in e for e in plain)
    assert plain == [{k: v for k, v in e.items() if k != "obfuscation"} for e in padded]


def test_listed_tools_always_carry_annotations_as_the_recordings_do(upstream_dir: Path):
    bare = {
        "name": "t",
        "description": "d",
        "input_schema": {"type": "object"},
        "annotations": None,
    }
    assert listed_tool(bare)["annotations"] == {"read_only": False}
    assert listed_tool({**bare, "annotations": {"read_only": True}})["annotations"] == {
        "read_only": True
    }
    b = builder()
    index = b.list_tools_started("demo")
    b.list_tools_ended(index, [bare, {k: v for k, v in bare.items() if k != "annotations"}])
    assert [t["annotations"] for t in b.output[index]["tools"]] == [{"read_only": False}] * 2
    real = {
        json.dumps(tool["annotations"])
        for name in ("openai-mcp-tool.1.chunks.txt", "openai-mcp-tool-approval.1.chunks.txt")
        for event in upstream(upstream_dir, name)
        if event["type"] == "response.output_item.done"
        and event["item"]["type"] == "mcp_list_tools"
        for tool in event["item"]["tools"]
    }
    assert real == {'{"read_only": false}'}  # never null in a real stream


def test_one_argument_delta_per_call_in_the_recording(upstream_dir: Path):
    events = upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")
    deltas = [e for e in events if e["type"] == "response.mcp_call_arguments.delta"]
    done = {
        e["item_id"]: e["arguments"]
        for e in events
        if e["type"] == "response.mcp_call_arguments.done"
    }
    assert {e["item_id"]: e["delta"] for e in deltas} == done and len(deltas) == len(done)


@pytest.mark.parametrize(
    ("asked", "status", "tier"),
    [
        (None, "in_progress", "auto"),
        (None, "completed", "default"),
        ("auto", "completed", "default"),
        (None, "incomplete", "default"),
        (None, "failed", "auto"),
        ("priority", "completed", "priority"),
        ("flex", "in_progress", "flex"),
    ],
)
def test_the_service_tier_is_resolved_once_the_model_ran(asked: str | None, status: str, tier: str):
    b = builder(**({} if asked is None else {"service_tier": asked}))
    b.status = status
    assert b.response()["service_tier"] == tier


def test_the_recordings_resolve_the_tier_on_completion_only(upstream_dir: Path):
    tiers = {
        name: [
            e["response"]["service_tier"] for e in upstream(upstream_dir, name) if "response" in e
        ]
        for name in ("openai-mcp-tool.1.chunks.txt", "openai-error.1.chunks.txt")
    }
    assert tiers == {
        "openai-mcp-tool.1.chunks.txt": ["auto", "auto", "default"],
        "openai-error.1.chunks.txt": ["auto", "auto", "auto"],
    }


@pytest.mark.parametrize(
    ("model", "reasons"),
    [
        ("gpt-5", True),
        ("gpt-5-mini", True),
        ("gpt-5-nano-2025-08-07", True),
        ("o1", True),
        ("o3", True),
        ("o3-mini", True),
        ("o4-mini", True),
        ("gpt-4.1", False),
        ("gpt-4o", False),
        ("gpt-4o-mini", False),
        ("o4", False),
    ],
)
def test_reasoning_models(model: str, reasons: bool):
    assert is_reasoning_model(model) is reasons
    effort = builder(model=model).response()["reasoning"]["effort"]
    assert (effort == "medium") if reasons else effort is None


def test_a_reasoning_item_is_shaped_as_the_recordings_show_it(upstream_dir: Path):
    events = a_call_and_a_message(builder())
    ours = [e for e in events if e.get("item", {}).get("type") == "reasoning"]
    real = [
        e
        for e in upstream(upstream_dir, "openai-mcp-tool.1.chunks.txt")
        if e.get("item", {}).get("type") == "reasoning"
    ]
    assert (
        [e["type"] for e in ours]
        == [e["type"] for e in real[:4]]
        == ["response.output_item.added", "response.output_item.done"] * 2
    )
    assert all(
        list(e) == list(r) and list(e["item"]) == list(r["item"])
        for e, r in zip(ours, real, strict=False)
    )
    assert all(e["item"]["id"].startswith("rs_") and e["item"]["summary"] == [] for e in ours)
    assert [item["type"] for item in events[-1]["response"]["output"]] == [
        "reasoning",
        "mcp_call",
        "reasoning",
        "message",
    ]
    approved = builder()
    approved.call_started("search", "demo", approval_request_id="mcpr_1")
    assert [item["type"] for item in approved.output] == ["mcp_call"]


def test_the_quota_fault_in_a_stream_is_parsed_and_documented():
    assert parse_faults("insufficient_quota_stream").insufficient_quota_stream
    assert not parse_faults("insufficient_quota").insufficient_quota_stream
    assert "insufficient_quota_stream" in FAULTS and "insufficient_quota" in FAULTS


def test_the_quota_error_event_is_the_recorded_one(upstream_dir: Path):
    real = upstream(upstream_dir, "openai-error.1.chunks.txt")
    b = builder()
    b.start()
    b.set_in_progress()
    b.error_event("insufficient_quota", QUOTA_MESSAGE)
    b.finish("failed", error={"code": "insufficient_quota", "message": QUOTA_MESSAGE})
    assert b.events[2] == real[2]
    assert b.events[3]["response"]["error"] == real[3]["response"]["error"]
    assert [e["type"] for e in b.events] == [e["type"] for e in real]
