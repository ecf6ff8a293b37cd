"""What a tap saw on the MCP wire, in the model: which response a message belongs to, which
item it is tied to, what it proves about a failure, and a tap recording merged with a stream
made apart. Timelines here are built from notes shaped as tui/mcptui/capture/tap.py writes them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcptui.io.merge import merge_tap
from mcptui.io.recording import Loaded
from mcptui.model.diagnosis import diagnose_events
from mcptui.model.events import Event, note
from mcptui.model.timeline import Timeline
from mcptui.model.wire import exchanges, in_causal_order, link

SCHEMA = {"type": "object", "properties": {"hits": {"type": "array"}}, "required": ["hits"]}
LISTING = {
    "tools": [
        {"name": "broken", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA},
        {"name": "search", "inputSchema": {"type": "object"}},
    ]
}


class Wire:
    """Builds tap notes: requests with ids, and the answers to them."""

    def __init__(self, session: str | None = "s1", labels: tuple[str, ...] = ("demo",)) -> None:
        self.session = session
        self.labels = list(labels)
        self.next_id = 0

    def _note(
        self,
        direction: str,
        message: str,
        t: float,
        jsonrpc: Any = None,
        kind: str = "mcp",
        **fields: Any,
    ) -> Event:
        extra = {"jsonrpc": jsonrpc} if jsonrpc is not None else {}
        return note(
            kind,
            message,
            t,
            direction=direction,
            transport="streamable_http",
            session=self.session,
            http="POST /mcp",
            server_labels=self.labels,
            **extra,
            **fields,
        )

    def ask(self, method: str, t: float, **params: Any) -> tuple[Event, int]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params:
            message["params"] = params
        return self._note("sent", f"→ {method}", t, message), self.next_id

    def answer(self, request_id: int, t: float, result: Any = None, error: Any = None) -> Event:
        message = {"jsonrpc": "2.0", "id": request_id}
        message.update({"error": error} if error is not None else {"result": result})
        return self._note("received", "← answer", t, message)

    def tell(self, method: str, t: float, **params: Any) -> Event:
        return self._note(
            "sent", f"→ {method}", t, {"jsonrpc": "2.0", "method": method, "params": params}
        )

    def http_error(self, status: int, t: float, ids: list[int]) -> Event:
        return self._note(
            "received",
            f"← HTTP {status} to POST /mcp",
            t,
            kind="http_error",
            http_status=status,
            ids=ids,
            level="warning",
        )


def stream(
    *calls: tuple[str, dict[str, Any], str | None], start: float = 1.0, response: str = "resp_1"
) -> list[Event]:
    """A response listing tools, then one mcp_call per (tool, arguments, error or None)."""
    t = start
    raw: list[tuple[float, dict[str, Any]]] = []

    def add(event: dict[str, Any]) -> None:
        nonlocal t
        raw.append((t, {**event, "sequence_number": len(raw)}))
        t += 0.01

    add({"type": "response.created", "response": {"id": response, "status": "in_progress"}})
    add(
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "demo"},
        }
    )
    add(
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "demo", "tools": []},
        }
    )
    for position, (tool, arguments, error) in enumerate(calls, 1):
        item = {
            "id": f"mcp_{position}",
            "type": "mcp_call",
            "name": tool,
            "server_label": "demo",
            "arguments": "",
        }
        add({"type": "response.output_item.added", "output_index": position, "item": item})
        add(
            {
                "type": "response.mcp_call_arguments.done",
                "output_index": position,
                "item_id": item["id"],
                "arguments": json.dumps(arguments),
            }
        )
        t += 0.2  # the call on the wire happens here
        done = {
            **item,
            "arguments": json.dumps(arguments),
            "status": "failed" if error else "completed",
            "error": error,
        }
        add({"type": "response.output_item.done", "output_index": position, "item": done})
    add({"type": "response.completed", "response": {"id": response, "status": "completed"}})
    return [Event(event, t=time) for time, event in raw]


def in_time_order(*groups: list[Event]) -> list[Event]:
    return sorted((e for group in groups for e in group), key=lambda e: e.t or 0.0)


def listing(wire: Wire, t: float) -> list[Event]:
    ask, number = wire.ask("tools/list", t)
    return [ask, wire.answer(number, t + 0.01, LISTING)]


def call(
    wire: Wire,
    tool: str,
    arguments: dict[str, Any],
    t: float,
    result: Any = None,
    error: Any = None,
    answered: float = 0.01,
) -> list[Event]:
    ask, number = wire.ask("tools/call", t, name=tool, arguments=arguments)
    if result is None and error is None:
        return [ask]
    return [ask, wire.answer(number, t + answered, result, error)]


def folded(events: list[Event]) -> Timeline:
    timeline = Timeline(events)
    timeline.seek_end()
    return timeline


def texts(timeline: Timeline, indexes: list[int]) -> list[str]:
    return [timeline.events[i].raw["message"] for i in indexes]


def top_cause(events: list[Event]) -> tuple[str, str, str]:
    diagnosis = diagnose_events(events)
    ((_, causes),) = diagnosis.item_causes.items()
    return causes[0].cause.key, causes[0].confidence, causes[0].evidence[0]


GOOD = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"hits": []}}
NO_STRUCTURED = {"content": [{"type": "text", "text": "ok"}]}
TASKGROUP = "http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"


# -- which response, which item --------------------------------------------------------------


def test_a_listing_before_the_stream_belongs_to_the_response_that_follows():
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("search", {"q": 1}, None)),
        call(wire, "search", {"q": 1}, 1.06, GOOD),
    )
    timeline = folded(events)
    (resp,) = timeline.state.responses
    assert resp.id == "resp_1" and len(resp.wire) == 4
    links = link(resp, timeline.events)
    listing_item, call_item = resp.items[0], resp.items[1]
    assert texts(timeline, links.item_notes(listing_item.key)) == ["→ tools/list", "← answer"]
    assert texts(timeline, links.item_notes(call_item.key)) == ["→ tools/call", "← answer"]
    assert links.loose == []


def test_a_new_session_after_a_finished_response_opens_the_next_one():
    first, second = Wire("s1"), Wire("s2")
    events = in_time_order(
        listing(first, 0.5),
        stream(("search", {"q": 1}, None), start=1.0),
        [first.tell("notifications/goodbye", 1.5)],  # the first session, after its end
        listing(second, 1.8),
        stream(("search", {"q": 2}, None), start=2.0, response="r2"),
    )
    timeline = folded(events)
    one, two = timeline.state.responses
    assert (one.id, two.id) == ("resp_1", "r2")
    assert texts(timeline, one.wire) == ["→ tools/list", "← answer", "→ notifications/goodbye"]
    assert texts(timeline, two.wire) == ["→ tools/list", "← answer"]


def test_a_refusal_written_after_the_424_it_caused_stays_with_that_response():
    """`run --tap` writes the tap's notes and the run's from two threads: the server's 401 to
    the listing (seen at 1.564 s) can be written after the API's 424 (1.566 s). Its time says
    it is the refused request's, not a new response's; a later message opens the next."""
    wire = Wire(session=None)
    ask, number = wire.ask("initialize", 1.439)
    message = "Error retrieving tool list from MCP server: 'demo'. Http status code: 424"
    failed = note(
        "http_error",
        f"POST /responses: HTTP 424: {message}",
        1.566,
        level="error",
        status=424,
        body={"error": {"message": message, "code": "http_error"}},
    )
    late = wire.http_error(401, 1.564, [number])
    again, _ = wire.ask("initialize", 2.5)  # the next run's listing
    timeline = folded([ask, failed, late, again])
    one, two = timeline.state.responses
    assert texts(timeline, one.wire) == ["→ initialize", "← HTTP 401 to POST /mcp"]
    assert texts(timeline, two.wire) == ["→ initialize"]
    causes = diagnose_events([ask, failed, late]).response_causes
    ((_, found),) = causes.items()
    assert (found[0].cause.key, found[0].confidence) == ("auth", "confirmed")


def test_calls_are_tied_by_name_and_arguments_in_order_and_retries_stay_loose():
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("search", {"q": 1}, None), ("search", {"q": 2}, None)),
        call(wire, "search", {"q": 2}, 1.05, GOOD),  # the second item's, sent first
        call(wire, "search", {"q": 1}, 1.06, GOOD),
        call(wire, "search", {"q": 1}, 1.07, GOOD),
    )  # a retry: no item left for it
    timeline = folded(events)
    (resp,) = timeline.state.responses
    links = link(resp, timeline.events)
    first, second = resp.items[1], resp.items[2]
    assert [e.arguments for e in links.by_item[first.key]] == [{"q": 1}]
    assert [e.arguments for e in links.by_item[second.key]] == [{"q": 2}]
    assert [e.arguments for e in links.loose] == [{"q": 1}]
    assert links.by_item[first.key][0].notes[0] < links.loose[0].notes[0]


def test_a_call_seen_before_its_arguments_is_tied_by_name_and_undo_unties_it():
    wire = Wire()
    events = stream(("search", {"q": 1}, None))
    arguments_done = next(
        i for i, e in enumerate(events) if e.raw["type"] == "response.mcp_call_arguments.done"
    )
    events[arguments_done:arguments_done] = call(wire, "search", {"q": 1}, 1.0)
    timeline = Timeline(events)
    timeline.seek(arguments_done + 1)
    (resp,) = timeline.state.responses
    assert link(resp, timeline.events).item_notes(resp.items[1].key) == [arguments_done]
    timeline.seek(arguments_done)
    assert resp.wire == []


def test_a_call_that_overtook_the_stream_is_shown_after_the_arguments():
    wire = Wire()
    events = stream(("search", {"q": 1}, None))
    done = next(
        i for i, e in enumerate(events) if e.raw["type"] == "response.mcp_call_arguments.done"
    )
    events[done:done] = call(wire, "search", {"q": 1}, 1.0, GOOD)  # arrived first
    timeline = folded(events)
    (resp,) = timeline.state.responses
    item = resp.items[1]
    order = in_causal_order(
        item.events, link(resp, timeline.events).item_notes(item.key), timeline.events
    )
    shown = [timeline.events[i].raw.get("type") or timeline.events[i].raw["message"] for i in order]
    assert shown == [
        "response.output_item.added",
        "response.mcp_call_arguments.done",
        "→ tools/call",
        "← answer",
        "response.output_item.done",
    ]


# -- what the wire proves ----------------------------------------------------------------------


def test_an_output_schema_and_a_result_without_structured_content_confirm_that_cause():
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("broken", {"q": 1}, TASKGROUP)),
        call(wire, "broken", {"q": 1}, 1.06, NO_STRUCTURED),
    )
    cause, confidence, evidence = top_cause(events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")
    assert evidence.startswith("tap: tools/list declared an outputSchema for broken")


def test_a_valid_result_rules_out_the_result_shape_causes():
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("broken", {"q": 1}, TASKGROUP)),
        call(wire, "broken", {"q": 1}, 1.06, GOOD),
    )
    causes = diagnose_events(events).item_causes
    ((_, found),) = causes.items()
    shapes = [c for c in found if c.cause.key == "output_schema_without_structured_content"]
    assert shapes and shapes[0].confidence == "possible"
    assert any(
        e.startswith("tap: the server answered tools/call broken with a valid result")
        for e in shapes[0].evidence
    )
    assert not any(c.confidence == "confirmed" for c in found)


def test_json_rpc_errors_is_error_and_http_refusals_each_confirm_theirs():
    cases = [
        ({"error": {"code": -32602, "message": "bad arguments"}}, "protocol_error"),
        ({"error": {"code": -32001, "message": "Session not found"}}, "session_terminated"),
        (
            {"result": {"content": [{"type": "text", "text": "down"}], "isError": True}},
            "tool_error",
        ),
        ({"result": {"content": [{"type": "json", "json": {}}]}}, "invalid_content"),
        ({"status": 401}, "auth"),
        ({"status": 421}, "host_header_421"),
        ({"status": 404}, "session_terminated"),
    ]
    for answer, expected in cases:
        wire = Wire()
        ask, number = wire.ask("tools/call", 1.06, name="search", arguments={"q": 1})
        reply = (
            wire.http_error(answer["status"], 1.07, [number])
            if "status" in answer
            else wire.answer(number, 1.07, answer.get("result"), answer.get("error"))
        )
        events = in_time_order(
            listing(wire, 0.5), stream(("search", {"q": 1}, TASKGROUP)), [ask, reply]
        )
        cause, confidence, evidence = top_cause(events)
        assert (cause, confidence) == (expected, "confirmed"), (answer, cause, evidence)
        assert evidence.startswith("tap: ")


def test_a_call_with_no_answer_before_it_failed_is_a_confirmed_timeout():
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("search", {"q": 1}, TASKGROUP)),
        call(wire, "search", {"q": 1}, 1.06, GOOD, answered=5.0),
    )
    cause, confidence, evidence = top_cause(events)
    assert (cause, confidence) == ("timeout", "confirmed")
    assert "got no answer in the" in evidence and "its answer came" in evidence


def test_a_cancelled_call_is_a_timeout_and_the_cancellation_is_tied_to_it():
    wire = Wire()
    ask, number = wire.ask("tools/call", 1.06, name="search", arguments={"q": 1})
    cancel = wire.tell("notifications/cancelled", 1.2, requestId=number)
    answer = wire.answer(number, 1.201, error={"code": -32800, "message": "Request cancelled"})
    events = in_time_order(
        listing(wire, 0.5), stream(("search", {"q": 1}, TASKGROUP)), [ask, cancel, answer]
    )
    cause, confidence, evidence = top_cause(events)
    assert (cause, confidence) == ("timeout", "confirmed")
    assert "the caller cancelled it" in evidence
    timeline = folded(events)
    (resp,) = timeline.state.responses
    assert "→ notifications/cancelled" in texts(
        timeline, link(resp, timeline.events).item_notes(resp.items[1].key)
    )


def test_a_cancelled_call_whose_connection_then_drops_is_still_a_timeout():
    """The caller cancels, then closes the call's stream: the tap notes the broken
    connection after the cancellation (which of the two it sees first was a race in
    `mcptui run --tap`, and the broken connection used to win)."""
    wire = Wire()
    ask, number = wire.ask("tools/call", 1.06, name="search", arguments={"q": 1})
    cancel = wire.tell("notifications/cancelled", 1.2, requestId=number)
    dropped = wire._note(
        "received",
        "✗ POST /mcp (tools/call search): the client disconnected mid-stream",
        1.21,
        kind="disconnect",
        ids=[number],
        level="warning",
    )
    events = in_time_order(
        listing(wire, 0.5), stream(("search", {"q": 1}, TASKGROUP)), [ask, cancel, dropped]
    )
    cause, confidence, evidence = top_cause(events)
    assert (cause, confidence) == ("timeout", "confirmed")
    assert "the caller cancelled it" in evidence


# -- a tap recording merged with a stream made apart --------------------------------------------


def test_a_tap_recording_is_aligned_on_the_matching_call():
    wire = Wire(labels=())
    tap = listing(wire, 100.0) + call(wire, "broken", {"q": 1}, 100.5, NO_STRUCTURED)
    events = stream(("broken", {"q": 1}, TASKGROUP))
    merged = merge_tap(
        Loaded(events, source="s.jsonl", format="recording"),
        Loaded(tap, source="tap.jsonl", format="recording"),
    )
    assert merged.header is not None and merged.header["tap"]["aligned"] == "on tools/call broken"
    done = next(e for e in merged.events if e.raw.get("type") == "response.mcp_call_arguments.done")
    sent = next(e for e in merged.events if e.raw.get("message") == "→ tools/call")
    assert sent.t == pytest.approx(done.t)
    assert merged.events.index(sent) == merged.events.index(done) + 1
    cause, confidence, _ = top_cause(merged.events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")


def test_a_stream_without_times_gets_the_tap_messages_first():
    wire = Wire(labels=())
    tap = listing(wire, 3.0) + call(wire, "broken", {"q": 1}, 3.5, NO_STRUCTURED)
    events = [Event(e.raw) for e in stream(("broken", {"q": 1}, TASKGROUP))]
    merged = merge_tap(Loaded(events, format="paste"), Loaded(tap, source="tap.jsonl"))
    assert [e.is_note for e in merged.events[:4]] == [True] * 4
    cause, confidence, _ = top_cause(merged.events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")


def test_a_file_with_no_tap_messages_merges_nothing_and_says_so():
    events = stream(("search", {"q": 1}, None))
    merged = merge_tap(Loaded(events), Loaded(events, source="other.jsonl"))
    assert len(merged.events) == len(events)
    assert "other.jsonl: no MCP messages a tap recorded" in str(merged.problems[0])


# -- earlier sessions in a tap file, the modern era, and normal ends ---------------------------


def probe(session: str, t: float, tool: str, arguments: dict[str, Any], result: Any) -> list[Event]:
    """`mcptui probe --tool` through the same tap: its own session, a listing, one call."""
    wire = Wire(session)
    return listing(wire, t) + call(wire, tool, arguments, t + 0.1, result)


def tied_call(events: list[Event]) -> Any:
    timeline = folded(events)
    (resp,) = timeline.state.responses
    links = link(resp, timeline.events)
    return links, links.call_of(resp.items[1].key), resp


def test_an_earlier_session_in_the_tap_is_not_the_items_and_its_listing_session_wins():
    """Two probes of the same tool through the tap before the run: the item's call is the
    run's own (its session listed tools for this response), not the first of the file."""
    run = Wire("run")
    events = in_time_order(
        probe("p1", 0.1, "broken", {"q": 1}, GOOD),
        probe("p2", 0.4, "broken", {"q": 1}, GOOD),
        listing(run, 0.9),
        stream(("broken", {"q": 1}, TASKGROUP)),
        call(run, "broken", {"q": 1}, 1.06, NO_STRUCTURED, answered=0.005),
    )
    links, tied, resp = tied_call(events)
    assert tied is not None and tied.session == "run" and tied.seconds == pytest.approx(0.005)
    (listed,) = links.by_item[resp.items[0].key]
    assert listed.session == "run"
    cause, confidence, _ = top_cause(events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")


def test_a_call_of_another_session_never_wins_over_one_of_the_listing_session():
    run, other = Wire("run"), Wire("other")
    events = in_time_order(
        listing(run, 0.5),
        stream(("broken", {"q": 1}, TASKGROUP)),
        call(other, "broken", {"q": 1}, 1.05, GOOD),  # another client, same arguments, first
        call(run, "broken", {"q": 1}, 1.06, NO_STRUCTURED),
    )
    links, tied, _ = tied_call(events)
    assert tied.session == "run"
    assert [e.session for e in links.loose] == ["other"]


def test_a_call_sent_out_of_the_items_time_is_not_its_call():
    """Sent long before the arguments were done, or after the item ended: not its call,
    whatever its name and arguments (the item failed with no call of its own on the wire)."""
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        call(wire, "search", {"q": 1}, -5.0, GOOD),
        stream(("search", {"q": 1}, TASKGROUP)),
        call(wire, "search", {"q": 1}, 4.3, GOOD),
    )
    links, tied, _ = tied_call(events)
    assert tied is None
    assert [e.sent_t for e in links.loose if e.method == "tools/call"] == [-5.0, 4.3]
    causes = diagnose_events(events).item_causes
    assert not any(
        "-" in e.split(" s before")[0][-6:]
        for found in causes.values()
        for c in found
        for e in c.evidence
    )


def modern(note_event: Event, exchange: int) -> Event:
    """A note as the tap writes it for the stateless 2026-07-28 revision: no session, the
    HTTP exchange it crossed in."""
    return Event(
        {**note_event.raw, "era": "modern", "session": None, "http_exchange": exchange},
        t=note_event.t,
        is_note=True,
    )


def test_modern_exchanges_pair_in_their_own_post_and_tie_by_time_name_and_arguments():
    """Two calls that both use `id: 1` (two clients; no session to tell them apart), answered
    in the other order: each answer is its own POST's, each call its own item's."""
    wire = Wire(session=None)
    ask_1 = wire._note(
        "sent",
        "→ tools/call search  [modern]",
        1.05,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"q": 1}},
        },
    )
    ask_2 = wire._note(
        "sent",
        "→ tools/call search  [modern]",
        1.28,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"q": 2}},
        },
    )
    answer_2 = wire._note(
        "received", "← result", 1.29, {"jsonrpc": "2.0", "id": 1, "result": NO_STRUCTURED}
    )
    answer_1 = wire._note("received", "← result", 1.30, {"jsonrpc": "2.0", "id": 1, "result": GOOD})
    notes = [modern(ask_1, 7), modern(ask_2, 9), modern(answer_2, 9), modern(answer_1, 7)]
    events = in_time_order(stream(("search", {"q": 1}, None), ("search", {"q": 2}, None)), notes)
    timeline = folded(events)
    (resp,) = timeline.state.responses
    links = link(resp, timeline.events)
    first, second = (links.call_of(item.key) for item in resp.items[1:3])
    assert first is not None and second is not None
    assert (first.arguments, first.result, first.era) == ({"q": 1}, GOOD, "modern")
    assert (second.arguments, second.result) == ({"q": 2}, NO_STRUCTURED)
    assert links.loose == []


def test_the_client_closing_its_event_stream_is_no_failure():
    """At a session's end the client closes the GET event stream: older taps recorded that as
    a broken connection; it is the session's normal end, never a failure or a cause."""
    wire = Wire()
    opened = wire._note("sent", "→ GET /mcp (open the event stream)", 0.3, http_exchange=2)
    opened.raw["http"] = "GET /mcp"
    closed = wire._note(
        "received",
        "← GET /mcp: the client closed the event stream",
        1.6,
        level="info",
        closed="client",
        http_exchange=2,
    )
    closed.raw["http"] = "GET /mcp"
    older = wire._note(
        "received",
        "✗ GET /mcp: the client disconnected mid-stream; the upstream stream was closed too",
        1.7,
        kind="disconnect",
        level="warning",
    )
    older.raw["http"] = "GET /mcp"
    found = exchanges(range(3), [opened, closed, older])
    assert [(e.notes, e.failure) for e in found] == [([0, 1], None), ([2], None)]


def tap_file(*sessions: list[Event], created: str | None = None) -> Loaded:
    header = {"mcptui": "recording", "source": {"kind": "tap"}}
    if created:
        header["created"] = created
    return Loaded(in_time_order(*sessions), header=header, source="tap.jsonl", format="recording")


def test_a_tap_file_with_earlier_probes_aligns_on_the_runs_call_and_leaves_them_out():
    """`mcptui probe --tool broken` twice through a standalone tap, then the run through it:
    the merge aligns on the run's own call, and the probes' sessions, outside the stream's
    time, are left out (said in the header)."""
    run = Wire("run", labels=())
    probes = [
        probe("p1", 3.0, "broken", {"q": 1}, GOOD),
        probe("p2", 9.0, "broken", {"q": 1}, GOOD),
    ]
    for session in probes:
        for event in session:
            event.raw["server_labels"] = []
    tap = tap_file(*probes, listing(run, 20.0), call(run, "broken", {"q": 1}, 20.3, NO_STRUCTURED))
    merged = merge_tap(
        Loaded(stream(("broken", {"q": 1}, TASKGROUP)), source="s.jsonl", format="recording"), tap
    )
    assert merged.header["tap"]["aligned"] == "on tools/call broken"
    assert merged.header["tap"]["outside"] == 8 and merged.header["tap"]["messages"] == 4
    assert {e.raw.get("session") for e in merged.events if e.is_note} == {"run"}
    cause, confidence, _ = top_cause(merged.events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")


def test_the_recordings_start_times_pick_the_run_among_calls_alike():
    """The run first, probes of the same call after it: the recordings' `created` times say
    which of the tap's calls is the stream's."""
    run = Wire("run", labels=())
    tap = tap_file(
        listing(run, 0.2),
        call(run, "broken", {"q": 1}, 0.5, NO_STRUCTURED),
        probe("p1", 40.0, "broken", {"q": 1}, GOOD),
        created="2026-03-01T10:00:00+00:00",
    )
    header = {"mcptui": "recording", "created": "2026-03-01T10:00:00+00:00"}
    merged = merge_tap(
        Loaded(
            stream(("broken", {"q": 1}, TASKGROUP)),
            header=header,
            source="s.jsonl",
            format="recording",
        ),
        tap,
    )
    assert {e.raw.get("session") for e in merged.events if e.is_note} == {"run"}
    cause, confidence, _ = top_cause(merged.events)
    assert (cause, confidence) == ("output_schema_without_structured_content", "confirmed")


def test_a_server_down_behind_a_standalone_tap_lands_before_the_refused_request():
    """No listing answered (nothing listens behind the tap): the tap's attempts all go before
    the stream's 424, in the response it failed, whose cause they confirm."""
    wire = Wire(labels=())
    ask, number = wire.ask("initialize", 4.3)
    refused = wire._note(
        "received",
        "✗ POST /mcp (initialize): could not reach the upstream "
        "http://127.0.0.1:9/mcp: ConnectError",
        4.54,
        kind="connection_error",
        ids=[number],
        level="warning",
    )
    message = (
        "Error retrieving tool list from MCP server: 'demo'. Http status code: 424 "
        "(Failed Dependency)"
    )
    failed = note(
        "http_error",
        f"POST /responses: HTTP 424: {message}",
        0.8,
        level="error",
        status=424,
        body={
            "error": {"message": message, "code": "http_error", "type": "external_connector_error"}
        },
    )
    merged = merge_tap(
        Loaded([failed], source="rec.jsonl", format="recording"),
        Loaded([ask, refused], source="tap.jsonl", format="recording"),
    )
    assert [e.t < failed.t for e in merged.events if e.is_note and "http" in e.raw] == [True, True]
    causes = diagnose_events(merged.events).response_causes
    ((_, found),) = causes.items()
    assert (found[0].cause.key, found[0].confidence) == ("unreachable", "confirmed")
