"""The status shown for an item: the API's own, interrupted with the response's reason, and
approval requests awaiting an answer."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from _support import APPROVAL_1, fold, message_stream, read_chunks
from mcptui.model.events import Event, note
from mcptui.model.status import item_status, request_purpose
from mcptui.model.timeline import Timeline


def cut_after_call_started(stream_end: dict[str, Any]) -> list[dict[str, Any]]:
    """message_stream's call, stopped while running, and a terminal event `stream_end` whose
    Response object lists the call `in_progress` (as the API does after a cancel)."""
    raws = message_stream("hi")[:4]
    running = copy.deepcopy(raws[2]["item"])
    end = copy.deepcopy(stream_end)
    end.setdefault("response", {}).setdefault("output", [running])
    end["response"].setdefault("id", "resp_synthetic")
    return [*raws, {**end, "sequence_number": 4}]


@pytest.mark.parametrize(
    ("end", "reason"),
    [
        ({"type": "response.cancelled", "response": {"status": "cancelled"}}, "response cancelled"),
        (
            {
                "type": "response.failed",
                "response": {
                    "status": "failed",
                    "error": {"code": "server_error", "message": "boom"},
                },
            },
            "response failed: server_error: boom",
        ),
        (
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                },
            },
            "response incomplete: max_output_tokens",
        ),
    ],
)
def test_an_item_left_running_keeps_its_status_and_reads_interrupted(end, reason):
    state = fold(cut_after_call_started(end)).state
    (resp,) = state.responses
    (call,) = resp.items
    assert call.status == "in_progress"  # as the final Response object lists it
    shown = item_status(resp, call)
    assert (shown.word, shown.reason) == ("interrupted", reason)
    assert shown.text == f"interrupted ({reason})"


def test_a_completed_response_completes_items_it_lists_without_a_status():
    raws = message_stream("hi")
    for item in raws[-1]["response"]["output"]:
        item.pop("status")
    raws = [raw for raw in raws if raw["type"] != "response.output_item.done"]
    (resp,) = fold(raws).state.responses
    assert [item_status(resp, item).word for item in resp.items] == ["completed", "completed"]


def test_a_running_item_of_a_running_response_is_in_progress():
    (resp,) = fold(message_stream("hi")[:4]).state.responses
    assert item_status(resp, resp.items[0]).word == "in_progress"


def test_an_approval_request_awaits_until_a_request_answers_it(upstream_dir: Path):
    raws = read_chunks(upstream_dir / APPROVAL_1)
    events = [Event(raw) for raw in raws]
    timeline = Timeline(events)
    timeline.seek_end()
    (resp,) = timeline.state.responses
    (ask,) = [item for item in resp.items if item.type == "mcp_approval_request"]
    assert item_status(resp, ask).word == "awaiting approval"

    request = {
        "previous_response_id": resp.id,
        "input": [
            {"type": "mcp_approval_response", "approval_request_id": ask.item_id, "approve": False}
        ],
    }
    assert (
        request_purpose(request, timeline.state)
        == f"denies {ask.name} ({ask.item_id}) of {resp.id}"
    )
    timeline.append(note("request", "POST /responses: HTTP 200", request=request))
    timeline.seek_end()
    assert item_status(resp, ask).word == "denied"
    timeline.seek(len(events))  # stepping back before the answer: waiting again
    (resp,) = timeline.state.responses
    assert item_status(resp, resp.by_item_id[ask.item_id]).word == "awaiting approval"


def test_a_fresh_request_has_no_purpose_and_a_continuation_names_its_response():
    state = fold(message_stream("hi")).state
    assert request_purpose({"input": "again"}, state) == ""
    assert (
        request_purpose({"previous_response_id": "resp_1", "input": "more"}, state)
        == "continues resp_1"
    )
