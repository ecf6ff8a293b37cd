"""The reducer and the timeline: what each stream folds to, and stepping in both directions."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from _support import (
    APPROVAL_1,
    APPROVAL_2,
    ERROR,
    FAILED_ONLY,
    FIXTURES,
    HTTP_ERROR_424,
    MCP_TOOL,
    TASKGROUP_424,
    WEB_SEARCH,
    dump_state,
    events_of,
    fold,
    item_ids_of_type,
    read_chunks,
    renumber,
    with_failed_mcp_call,
)
from mcptui.model.errors import describe_error
from mcptui.model.events import Event
from mcptui.model.ingest import StreamIngester
from mcptui.model.reducer import Reducer
from mcptui.model.summary import failure_count, failures
from mcptui.model.timeline import Timeline

# -- final state per fixture -----------------------------------------------------------------

EXPECTED_ITEMS = {
    MCP_TOOL: [
        "mcp_list_tools",
        "reasoning",
        "mcp_call",
        "reasoning",
        "mcp_call",
        "reasoning",
        "message",
    ],
    APPROVAL_1: ["mcp_list_tools", "reasoning", "mcp_approval_request"],
    APPROVAL_2: ["mcp_list_tools", "reasoning", "message"],
    ERROR: [],
    FAILED_ONLY: [],
    WEB_SEARCH: ["reasoning", "web_search_call"] * 4 + ["reasoning", "message"],
}
EXPECTED_STATUS = {
    MCP_TOOL: "completed",
    APPROVAL_1: "completed",
    APPROVAL_2: "completed",
    ERROR: "failed",
    FAILED_ONLY: "failed",
    WEB_SEARCH: "completed",
}


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_folds_to_expected_items(upstream_dir: Path, name: str):
    raws = read_chunks(upstream_dir / name)
    timeline = fold(raws)
    [resp] = timeline.state.responses

    assert resp.id == raws[0]["response"]["id"]
    assert resp.model == raws[0]["response"]["model"]
    assert resp.status == EXPECTED_STATUS[name]
    assert [item.type for item in resp.items] == EXPECTED_ITEMS[name]
    assert [item.output_index for item in resp.items] == list(range(len(resp.items)))
    assert all(item.status == "completed" for item in resp.items)
    assert not any(item.from_snapshot for item in resp.items)
    # every event lands somewhere exactly once
    owned = sorted(resp.events + [i for item in resp.items for i in item.events])
    assert owned == list(range(len(raws)))


def test_mcp_tool_fixture_details(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    timeline = fold(raws)
    [resp] = timeline.state.responses
    calls = [item for item in resp.items if item.type == "mcp_call"]

    assert [(c.name, c.server_label, c.status, c.error) for c in calls] == [
        ("web_search_exa", "dmcp", "completed", None)
    ] * 2
    assert all(json.loads(c.arguments)["numResults"] == 5 for c in calls)
    assert all(c.output.startswith('{"requestId"') for c in calls)
    assert resp.items[0].tool_names  # the listed tools
    assert "web_search_exa" in resp.items[0].tool_names
    assert resp.usage["total_tokens"] > 0
    assert failures(timeline.state, timeline.events) == []
    assert timeline.failure_indexes == []


def test_approval_request_keeps_name_and_arguments(upstream_dir: Path):
    [resp] = fold(read_chunks(upstream_dir / APPROVAL_1)).state.responses
    request = resp.items[2]

    assert request.name == "create_short_url"
    assert request.server_label == "zip1"
    assert json.loads(request.arguments)["url"] == "https://ai-sdk.dev/"


def test_error_fixture_fails_with_insufficient_quota(upstream_dir: Path):
    timeline = fold(read_chunks(upstream_dir / ERROR))
    [resp] = timeline.state.responses

    assert resp.status == "failed"
    assert resp.failed
    assert resp.error["code"] == "insufficient_quota"
    assert resp.error_events == [2]
    found = failures(timeline.state, timeline.events)
    assert [(f.type, f.event_index) for f in found] == [("error", 2), ("response.failed", 3)]
    assert found[0].error.startswith("insufficient_quota You exceeded your current quota")
    assert found[1].error.startswith("insufficient_quota: You exceeded your current quota")


def test_response_failed_only_fixture(upstream_dir: Path):
    timeline = fold(read_chunks(upstream_dir / FAILED_ONLY))
    [resp] = timeline.state.responses

    assert (resp.id, resp.status) == ("resp_test_failed_001", "failed")
    [failure] = failures(timeline.state, timeline.events)
    assert failure.type == "response.failed"
    assert failure.error.startswith("rate_limit_exceeded: Request too large for gpt-4o-mini")


# -- text and argument assembly ------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_assembled_texts_and_arguments_equal_the_done_values(upstream_dir: Path, name: str):
    raws = read_chunks(upstream_dir / name)
    [resp] = fold(raws).state.responses
    text_done = {r["item_id"]: r["text"] for r in raws if r["type"] == "response.output_text.done"}
    args_done = {
        r["item_id"]: r["arguments"]
        for r in raws
        if r["type"] == "response.mcp_call_arguments.done"
    }
    deltas: dict[str, str] = {}
    for r in raws:
        if r["type"] in ("response.output_text.delta", "response.mcp_call_arguments.delta"):
            deltas[r["item_id"]] = deltas.get(r["item_id"], "") + r["delta"]

    for item_id, text in text_done.items():
        item = resp.by_item_id[item_id]
        assert item.text == text == deltas[item_id]
        assert item.text_parts  # built from the deltas, not copied from .done
    for item_id, arguments in args_done.items():
        item = resp.by_item_id[item_id]
        assert item.arguments == arguments == deltas[item_id]
        assert item.argument_parts


def test_message_text_grows_delta_by_delta(upstream_dir: Path):
    raws = read_chunks(upstream_dir / APPROVAL_2)
    message_id = item_ids_of_type(raws, "message")[0]
    timeline = Timeline(events_of(raws))
    expected = ""
    for raw in raws:
        timeline.step_forward()
        if raw["type"] == "response.output_text.delta":
            expected += raw["delta"]
            assert timeline.state.responses[0].by_item_id[message_id].text == expected
    assert expected.startswith("I wasn’t able to create the short link")


SPELLINGS = [
    ("response.mcp_call_arguments.delta", "response.mcp_call_arguments.done"),
    ("response.mcp_call.arguments.delta", "response.mcp_call.arguments.done"),
    ("response.mcp_call.arguments_delta", "response.mcp_call.arguments_done"),
]


@pytest.mark.parametrize(("delta_type", "done_type"), SPELLINGS)
def test_every_spelling_of_argument_events_assembles_arguments(delta_type: str, done_type: str):
    whole = '{"query": "weather in Oslo", "limit": 3}'
    pieces = [whole[:5], whole[5:17], whole[17:]]
    raws = [
        {"type": "response.created", "response": {"id": "resp_a", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "id": "mcp_a",
                "type": "mcp_call",
                "name": "search",
                "server_label": "s",
                "arguments": "",
                "status": "in_progress",
            },
        },
        *(
            {
                "type": delta_type,
                "output_index": 0,
                "item_id": "mcp_a",
                "delta": p,
                "obfuscation": "xx",
            }
            for p in pieces
        ),
        {"type": done_type, "output_index": 0, "item_id": "mcp_a", "arguments": whole},
        {"type": "response.mcp_call.completed", "output_index": 0, "item_id": "mcp_a"},
    ]
    timeline = Timeline(events_of(renumber(raws)))
    timeline.seek(2 + len(pieces))  # all deltas, not the .done yet
    item = timeline.state.responses[0].by_item_id["mcp_a"]
    assert item.arguments == whole
    assert item.arguments_done is None

    timeline.seek_end()
    [item] = timeline.state.responses[0].items
    assert item.arguments == whole
    assert item.arguments_done == whole
    assert item.status == "completed"
    assert len(item.events) == len(raws) - 1


# -- failing tool calls ------------------------------------------------------------------------


def test_mcp_call_failing_with_http_error_424(upstream_dir: Path):
    raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)
    timeline = fold(raws)
    [resp] = timeline.state.responses
    call = resp.by_item_id[call_id]

    assert resp.status == "completed"  # a failed tool call does not fail the response
    assert call.status == "failed"
    assert call.failed
    assert call.error == HTTP_ERROR_424
    assert call.error_text == f"http_error {TASKGROUP_424}"
    [failure] = failures(timeline.state, timeline.events)
    assert (failure.type, failure.name, failure.item_id) == ("mcp_call", "web_search_exa", call_id)
    assert failure.error == f"http_error {TASKGROUP_424}"
    other = [i for i in resp.items if i.type == "mcp_call" and i.item_id != call_id]
    assert [o.status for o in other] == ["completed"]


def test_mcp_call_failing_with_a_plain_string_error(upstream_dir: Path):
    error = "Error calling tool web_search_exa: connection reset"
    raws, call_id = with_failed_mcp_call(
        read_chunks(upstream_dir / MCP_TOOL), error, keep_status=False
    )
    timeline = fold(raws)
    call = timeline.state.responses[0].by_item_id[call_id]

    assert call.status == "failed"
    assert call.error_text == error
    [failure] = failures(timeline.state, timeline.events)
    assert failure.error == error


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (HTTP_ERROR_424, f"http_error {TASKGROUP_424}"),
        ("plain old string", "plain old string"),
        (
            {"type": "mcp_protocol_error", "code": 32600, "message": "Session terminated"},
            "mcp_protocol_error 32600: Session terminated",
        ),
        (
            {"type": "mcp_protocol_error", "code": -32602, "message": "Invalid params"},
            "mcp_protocol_error -32602: Invalid params",
        ),
        (
            {"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": "boom"}]},
            "mcp_tool_execution_error boom",
        ),
        ({"type": "brand_new_error", "detail": 1}, "brand_new_error"),
        (
            {
                "type": "error",
                "sequence_number": 2,
                "error": {"type": "server_error", "code": "server_error", "message": "Oops"},
            },
            "server_error Oops",
        ),
        (
            {
                "type": "error",
                "code": "rate_limit",
                "message": "Slow down",
                "param": None,
                "sequence_number": 4,
            },
            "rate_limit: Slow down",
        ),
        ({"weird": True}, '{"weird": true}'),
    ],
)
def test_describe_error_reads_every_error_shape(error, shown):
    assert describe_error(error) == shown


# -- several responses in one file -------------------------------------------------------------


def test_two_responses_back_to_back_with_response_created(upstream_dir: Path):
    first = read_chunks(upstream_dir / ERROR)
    second = read_chunks(upstream_dir / MCP_TOOL)
    timeline = fold(first + second)
    responses = timeline.state.responses

    assert [(r.id, r.status, len(r.items)) for r in responses] == [
        (first[0]["response"]["id"], "failed", 0),
        (second[0]["response"]["id"], "completed", 7),
    ]
    assert responses[1].events[0] == len(first)


def test_sequence_number_restart_without_response_created_starts_a_new_response(upstream_dir: Path):
    first = read_chunks(upstream_dir / MCP_TOOL)
    second = renumber(read_chunks(upstream_dir / APPROVAL_1)[1:])  # in_progress is seq 0
    assert second[0]["type"] == "response.in_progress"

    responses = fold(first + second).state.responses

    assert [(r.id, r.status) for r in responses] == [
        (first[0]["response"]["id"], "completed"),
        (second[0]["response"]["id"], "completed"),
    ]
    assert [i.type for i in responses[0].items] == EXPECTED_ITEMS[MCP_TOOL]
    assert [i.type for i in responses[1].items] == EXPECTED_ITEMS[APPROVAL_1]
    assert responses[1].items[2].name == "create_short_url"


# -- events for items never added ------------------------------------------------------------


def test_event_for_an_item_never_added_creates_a_placeholder(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    ghost = {
        "type": "response.output_text.delta",
        "sequence_number": 500,
        "output_index": 9,
        "item_id": "msg_ghost",
        "content_index": 0,
        "delta": "boo",
    }
    lost = {
        "type": "response.mcp_call_arguments.delta",
        "sequence_number": 501,
        "item_id": "mcp_lost",
        "delta": '{"a":',
    }
    spliced = [*raws[:-1], ghost, lost, *raws[-1:]]

    [resp] = fold(spliced).state.responses

    assert len(resp.items) == 9
    placeholder = resp.by_item_id["msg_ghost"]
    assert (placeholder.type, placeholder.output_index, placeholder.text) == ("message", 9, "boo")
    assert placeholder.events == [len(raws) - 1]
    lost_item = resp.by_item_id["mcp_lost"]
    assert (lost_item.type, lost_item.output_index, lost_item.arguments) == (
        "mcp_call",
        None,
        '{"a":',
    )
    assert lost_item.events == [len(raws)]


def test_unknown_item_type_is_shown_under_its_output_index():
    raws = renumber(
        [
            {"type": "response.created", "response": {"id": "resp_x", "status": "in_progress"}},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {"id": "sh_1", "type": "shell_call", "status": "in_progress"},
            },
            {"type": "response.shell_call.completed", "output_index": 0, "item_id": "sh_1"},
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {"id": "sh_1", "type": "shell_call", "status": "completed"},
            },
        ]
    )
    [resp] = fold(raws).state.responses
    [item] = resp.items
    assert (item.type, item.output_index, item.status, item.events) == (
        "shell_call",
        0,
        "completed",
        [1, 2, 3],
    )


# -- stepping ------------------------------------------------------------------------------------


def stepping_streams(upstream_dir: Path) -> dict[str, list[dict]]:
    streams = {name: read_chunks(upstream_dir / name) for name in FIXTURES}
    mcp = streams[MCP_TOOL]
    streams["424"] = with_failed_mcp_call(mcp, HTTP_ERROR_424)[0]
    streams["two-responses"] = (
        streams[ERROR] + streams[APPROVAL_2] + renumber(streams[APPROVAL_1][1:])
    )
    return streams


STREAM_NAMES = [*FIXTURES, "424", "two-responses"]


def fresh_dump(events, n: int):
    reducer = Reducer()
    for event in events[:n]:
        reducer.apply(event)
    return dump_state(reducer.state)


def fresh_dumps(events) -> list:
    """`fresh_dump(events, n)` for every n from 0 to all: one reducer applying the events in
    order and dumped after each (the same applications as a new reducer per n, in O(n));
    each dump deep-copied, so that no later application reaches an earlier one."""
    reducer = Reducer()
    dumps = [copy.deepcopy(dump_state(reducer.state))]
    for event in events:
        reducer.apply(event)
        dumps.append(copy.deepcopy(dump_state(reducer.state)))
    return dumps


@pytest.mark.parametrize("name", STREAM_NAMES)
def test_stepping_back_equals_building_fresh(upstream_dir: Path, name: str):
    raws = stepping_streams(upstream_dir)[name]
    timeline = fold(raws)
    events = timeline.events
    fresh = fresh_dumps(events)

    for n in range(len(events), -1, -1):  # undo path, one event at a time
        assert timeline.position == n
        assert dump_state(timeline.state) == fresh[n], f"after stepping back to {n}"
        timeline.step_back()
    assert timeline.step_back() is None
    assert timeline.state.responses == []

    # The seeks: each step by one of the two, a third of them each (a seek from the end to
    # every step rebuilt the state ~150k times: 2/3 of this test's 2.6 s of CPU).
    for n in [*range(1, len(events) + 1, 3), 0, len(events)]:  # from the end: undo or rebuild
        timeline.seek_end()
        timeline.seek(n)
        assert dump_state(timeline.state) == fresh[n], f"after seek({n}) from the end"

    for n in range(2, len(events) + 1, 3):  # and forward again from the start
        timeline.seek(0)
        timeline.seek(n)
        assert dump_state(timeline.state) == fresh[n], f"after seek(0), seek({n})"


def test_seek_far_back_and_forward_again(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    timeline = fold(raws)
    end = dump_state(timeline.state)
    total = timeline.total

    reducer = timeline.reducer
    timeline.seek(3)  # far back: rebuilt from scratch
    assert timeline.reducer is not reducer
    assert timeline.position == 3
    assert dump_state(timeline.state) == fresh_dump(timeline.events, 3)
    timeline.seek(total - 2)
    reducer = timeline.reducer
    timeline.seek(total // 2 + 10)  # near: undone event by event
    assert timeline.reducer is reducer
    assert dump_state(timeline.state) == fresh_dump(timeline.events, total // 2 + 10)
    timeline.seek(-5)
    assert timeline.position == 0
    timeline.seek(total + 100)
    assert timeline.at_end
    assert dump_state(timeline.state) == end


def test_following_timeline_applies_appended_events_only_at_the_end(upstream_dir: Path):
    raws = read_chunks(upstream_dir / ERROR)
    timeline = Timeline()
    for event in events_of(raws[:2]):
        timeline.append(event)
    assert timeline.position == 2
    timeline.step_back()
    timeline.append(events_of(raws[2:3])[0])  # not following: the cursor stays put
    assert (timeline.position, timeline.total) == (1, 3)
    timeline.seek_end()
    assert timeline.state.responses[0].error_events == [2]


# -- failures on the timeline ----------------------------------------------------------------


def test_failure_indexes_and_failures_applied_for_the_error_fixture(upstream_dir: Path):
    timeline = fold(read_chunks(upstream_dir / ERROR))
    assert timeline.failure_indexes == [2, 3]

    seen = []
    for n in range(timeline.total + 1):
        timeline.seek(n)
        seen.append(timeline.failures_applied())
    assert seen == [0, 0, 0, 1, 2]


def test_failure_indexes_for_a_failed_tool_call(upstream_dir: Path):
    raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)
    timeline = fold(raws)
    failed_at = next(i for i, r in enumerate(raws) if r["type"] == "response.mcp_call.failed")
    done_at = next(
        i
        for i, r in enumerate(raws)
        if r["type"] == "response.output_item.done" and r["item"]["id"] == call_id
    )

    # One stop per failure: the output_item.done that repeats the call's error is not another.
    assert done_at > failed_at
    assert timeline.failure_indexes == [failed_at]
    timeline.seek(failed_at)
    assert timeline.failures_applied() == 0
    assert timeline.state.responses[0].by_item_id[call_id].status == "in_progress"
    timeline.seek(failed_at + 1)
    assert timeline.failures_applied() == 1
    assert timeline.state.responses[0].by_item_id[call_id].status == "failed"
    timeline.seek_end()
    assert timeline.failures_applied() == 1


def test_reducer_does_not_change_the_raw_events(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    before = copy.deepcopy(raws)
    timeline = fold(raws)
    timeline.seek(0)
    timeline.seek_end()
    assert raws == before


def test_stepping_back_over_an_event_that_created_its_response_reports_what_it_touched():
    # A dump that starts mid-stream: the first event creates the response and its item.
    delta = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hi",
        "sequence_number": 7,
    }
    timeline = Timeline([Event(delta)])
    timeline.seek_end()
    resp, item = timeline.step_back()
    assert timeline.state.responses == []
    assert resp is not None and resp.key == 0
    assert item is not None and item.item_id == "msg_1"


def test_polled_response_objects_drive_the_state_and_step_back():
    """A background run that is polled has no events, only notes carrying the Response."""
    from mcptui.model.events import note

    def polled(status: str, output: list) -> Event:
        return note(
            "poll",
            f"poll: {status}",
            response={
                "id": "resp_1",
                "status": status,
                "background": True,
                "model": "m",
                "output": output,
            },
        )

    call = {
        "id": "mcp_1",
        "type": "mcp_call",
        "name": "search",
        "server_label": "s",
        "arguments": "{}",
        "status": "failed",
        "output": None,
        "error": {"type": "http_error", "code": 424, "message": "424: x"},
    }
    timeline = Timeline(
        [polled("queued", []), polled("in_progress", []), polled("completed", [call])]
    )
    timeline.seek_end()
    (resp,) = timeline.state.responses
    assert (resp.id, resp.status, resp.background) == ("resp_1", "completed", True)
    assert [(i.type, i.name, i.failed) for i in resp.items] == [("mcp_call", "search", True)]
    assert len(failures(timeline.state, timeline.events)) == 1
    timeline.step_back()
    assert timeline.state.responses[0].status == "in_progress"
    assert timeline.state.responses[0].items == []
    assert timeline.step_forward() is not None
    assert timeline.state.responses[0].items[0].from_snapshot  # shown as "from response object"


def test_malformed_response_fields_are_ignored_not_stored():
    """A dict for a status or a number for an id must not reach the state (every view and
    check downstream relies on their types); the raw event still shows them."""
    timeline = fold(
        [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {"id": 5, "status": {"a": 1}, "model": ["x"], "background": "yes"},
            },
            {
                "type": "response.in_progress",
                "sequence_number": 1,
                "response": {"id": "resp_ok", "status": "in_progress"},
            },
        ]
    )
    [resp] = timeline.state.responses
    assert (resp.id, resp.status, resp.model, resp.background) == (
        "resp_ok",
        "in_progress",
        None,
        None,
    )


def test_a_snapshot_answering_a_request_on_its_stream_is_that_response():
    """A tagged stream (a capture, an archive's exchange) that opens with a `request` note and
    is answered with a Response object is one response, not an empty root and another."""
    request = Event(
        {"kind": "request", "message": "POST /v1/responses: HTTP 200", "request": {"model": "m"}},
        is_note=True,
        stream=2,
    )
    answer = Event(
        {
            "kind": "response",
            "message": "resp_2 is completed",
            "response": {"id": "resp_2", "object": "response", "status": "completed", "output": []},
        },
        is_note=True,
        stream=2,
    )
    other = Event(
        {"kind": "request", "message": "POST /v1/responses: HTTP 424"}, is_note=True, stream=3
    )
    timeline = Timeline([request, answer, other])

    timeline.seek_end()
    assert [(r.id, r.status, r.events) for r in timeline.state.responses] == [
        ("resp_2", "completed", [0, 1]),
        (None, None, [2]),
    ]
    timeline.step_back()
    timeline.step_back()
    assert [(r.id, r.events) for r in timeline.state.responses] == [(None, [0])]


@pytest.mark.parametrize("name", STREAM_NAMES)
def test_the_headers_failure_count_matches_the_failures_listed_at_every_step(
    upstream_dir: Path, name: str
):
    timeline = fold(stepping_streams(upstream_dir)[name])
    seen = set()
    for n in range(len(timeline.events) + 1):
        timeline.seek(n)
        listed = len(failures(timeline.state, timeline.events))
        assert failure_count(timeline.state) == listed, f"at step {n}"
        seen.add(listed)
    if name in ("424", ERROR):
        assert max(seen) > 0  # the count is tried on failures too, not only on zero


def fast_read(raws: list[dict], timing: str) -> list[Event]:
    """`raws` as the app reads a live stream (tui/mcptui/model/ingest.py: text deltas read fast),
    `timed` with arrival times, `untimed` without, or `mixed` (every third one without)."""
    ticks = iter(range(1, 10_000))
    clock = (lambda: next(ticks) / 100) if timing != "untimed" else None
    ingester = StreamIngester(clock=clock, start=0.0 if clock else None)
    events = [
        event
        for raw in raws  # one at a time: each arrives at its own time
        for event in ingester.feed(f"event: e\ndata: {json.dumps(raw)}\n\n".encode())
    ]
    if timing == "mixed":
        for event in events[::3]:
            event.t = None
    return events


@pytest.mark.parametrize("timing", ["timed", "untimed", "mixed"])
@pytest.mark.parametrize("name", STREAM_NAMES)
def test_stepping_back_over_fast_read_deltas_equals_building_fresh(
    upstream_dir: Path, name: str, timing: str
):
    """Deltas folded in a run are journalled by reference to the delta before them: undoing
    them one by one, or part of a run by a seek, gives what folding fewer events gives."""
    raws = stepping_streams(upstream_dir)[name]
    events = fast_read(raws, timing)
    deltas = sum(raw["type"] == "response.output_text.delta" for raw in raws)
    fast = sum(event.lite is not None for event in events)
    assert fast > deltas / 2 if deltas else fast == 0  # (a delta with a URL goes the dict way)
    timeline = Timeline(events)
    timeline.seek_end()
    fresh = fresh_dumps(events)

    # Every step is compared on one of the two paths (half the whole-state comparisons).
    for n in range(len(events), -1, -1):
        if n % 2 == 0 or n == len(events):
            assert dump_state(timeline.state) == fresh[n], f"after stepping back to {n}"
        timeline.step_back()
    for n in range(len(events) + 1):  # a jump forward folds a run; undo part of it
        timeline.seek(n)
        timeline.seek(max(0, n - 3))
        if n % 2 == 1:
            assert dump_state(timeline.state) == fresh[max(0, n - 3)], f"seek({n}), back 3"
        timeline.seek(n)
        if n % 2 == 1:
            assert dump_state(timeline.state) == fresh[n], f"seek({n}) again"


@pytest.mark.parametrize("name", STREAM_NAMES)
def test_a_jump_after_folding_ahead_piece_by_piece_equals_folding_at_once(
    upstream_dir: Path, name: str
):
    """An instant replay folds each piece of a recording as it is read, the cursor staying
    at step 0 meanwhile; the jump to the end then takes that state: the same as folding all
    at once, and stepping back from it gives every earlier step."""
    raws = stepping_streams(upstream_dir)[name]
    events = fast_read(raws, "timed")
    start_state = dump_state(Reducer().state)
    timeline = Timeline()
    for start in range(0, len(events), 7):  # pieces of 7 events
        timeline.extend(events[start : start + 7], follow=False)
        timeline.fold_ahead()
        assert timeline.position == 0
        assert dump_state(timeline.state) == start_state
    fresh = fresh_dumps(events)  # (numbered now)

    timeline.seek_end()

    assert dump_state(timeline.state) == fresh[len(events)]
    for n in range(len(events), -1, -1):
        assert dump_state(timeline.state) == fresh[n], f"after stepping back to {n}"
        timeline.step_back()


def test_a_jump_short_of_what_was_folded_ahead_folds_from_where_the_cursor_is(upstream_dir: Path):
    events = fast_read(stepping_streams(upstream_dir)[MCP_TOOL], "timed")
    timeline = Timeline(events)
    timeline.fold_ahead()
    timeline.seek(5)
    assert dump_state(timeline.state) == fresh_dump(events, 5)
    timeline.extend([], follow=False)
    timeline.seek_end()  # what was folded ahead is not used twice
    assert dump_state(timeline.state) == fresh_dump(events, len(events))
