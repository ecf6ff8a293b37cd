"""Conformance findings: what `check_stream` tells a user about a stream.

Broken streams (unknown or misspelt event types, sequence faults, events out of their item's
order, deltas that disagree with `.done`, no terminal event) are errors; fields the installed
SDK expects that another API version did not send are warnings naming the SDK version; every
real upstream fixture and sample recording is free of errors.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import openai
import pytest
from _support import (
    APPROVAL_1,
    APPROVAL_2,
    ERROR,
    FAILED_ONLY,
    FIXTURES,
    MCP_TOOL,
    WEB_SEARCH,
    fold,
    message_stream,
    read_chunks,
    renumber,
)
from mcptui.emulator.builder import ResponseBuilder, usage
from mcptui.io.formats import load_path
from mcptui.model.conformance import check_stream
from mcptui.model.events import ARGUMENT_DELTA, ARGUMENT_DONE, Event, note
from mcptui.model.findings import Finding
from mcptui.model.timeline import Timeline

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = sorted((REPO / "recordings").glob("*.jsonl"))
SDK = f"openai {openai.__version__}"


def check(raws: list[dict[str, Any]], *, complete: bool = True) -> list[Finding]:
    timeline = fold(raws)
    return check_stream(timeline.events, timeline.state, complete=complete)


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "error"]


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def of_code(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def index_of(raws: list[dict[str, Any]], kind: str, nth: int = 0, **match: Any) -> int:
    found = [
        n
        for n, raw in enumerate(raws)
        if raw["type"] == kind and all(raw.get(k) == v for k, v in match.items())
    ]
    return found[nth]


def builder_stream(
    *,
    docs_names: bool = False,
    deltas: int = 3,
    pieces: tuple[str, ...] = ("It is ", "21 °C ", "in Paris."),
) -> list[dict[str, Any]]:
    """A complete MCP stream as the emulator shapes it: tool listing, one call with argument
    deltas, a message, `response.completed` with usage."""
    request = {
        "model": "gpt-5-mini",
        "input": "weather in Paris?",
        "tools": [
            {
                "type": "mcp",
                "server_label": "demo",
                "server_url": "https://mcp.example.com/mcp",
                "require_approval": "never",
            }
        ],
    }
    b = ResponseBuilder(request, rng=random.Random(3), created_at=1_756_230_063)
    b.start()
    b.set_in_progress()
    listing = b.list_tools_started("demo")
    b.list_tools_ended(
        listing,
        [
            {
                "name": "get_weather",
                "description": "Weather.",
                "input_schema": {"type": "object", "properties": {}},
                "annotations": {"read_only": True},
            }
        ],
    )
    call = b.call_started("get_weather", "demo")
    arguments = '{"city": "Paris", "units": "metric"}'
    step = -(-len(arguments) // deltas)
    for start in range(0, len(arguments), step):
        b.call_argument_delta(call, arguments[start : start + step], docs_names=docs_names)
    b.call_arguments_done(call, docs_names=docs_names)
    b.call_ended(call, output='{"temp": 21}', error=None)
    message = b.message_started()
    for piece in pieces:
        b.message_delta(message, piece)
    b.message_ended(message)
    b.finish("completed", usage_=usage(120, 30))
    return copy.deepcopy(b.events)


# -- clean streams ---------------------------------------------------------------------------


def test_a_clean_emulated_mcp_stream_has_no_findings_at_all():
    assert check(builder_stream()) == []


def test_a_hand_made_stream_gets_drift_warnings_but_no_errors():
    findings = check(message_stream("Hello there, world"))
    assert errors(findings) == []
    # Its response objects omit tools, tool_choice, ... which the SDK requires (protocol.md §4).
    drift = of_code(findings, "sdk_drift")
    assert drift and all(f.severity == "warning" for f in drift)
    assert any("response.tools" in f.message and SDK in f.message for f in drift)


# -- event types -----------------------------------------------------------------------------


def test_docs_spelled_argument_events_are_errors_with_the_wire_spelling_suggested():
    raws = builder_stream(docs_names=True, deltas=3)
    findings = check(raws)
    unknown = of_code(findings, "unknown_event_type")
    delta_indexes = [
        n for n, r in enumerate(raws) if r["type"] == "response.mcp_call.arguments.delta"
    ]
    done_index = index_of(raws, "response.mcp_call.arguments.done")
    # One finding per event, so each misspelt event is marked in the timeline.
    assert [f.event_index for f in unknown] == [*delta_indexes, done_index]
    assert all(f.severity == "error" for f in unknown)
    assert {f.suggestion for f in unknown if f.event_index in delta_indexes} == {ARGUMENT_DELTA}
    assert unknown[-1].suggestion == ARGUMENT_DONE
    assert all(SDK in f.message and "mis-parse" in f.message for f in unknown)
    assert all(f.item_key == 1 for f in unknown)  # the mcp_call, after the tool listing
    # Otherwise the stream is sound: the docs-spelled deltas still join to the .done arguments.
    assert set(codes(findings)) == {"unknown_event_type"}


def test_old_sdk_spelling_is_suggested_the_wire_spelling_too():
    raws = message_stream("hi there")
    raws[index_of(raws, ARGUMENT_DELTA)]["type"] = "response.mcp_call.arguments_delta"
    raws[index_of(raws, ARGUMENT_DONE)]["type"] = "response.mcp_call.arguments_done"
    unknown = of_code(check(raws), "unknown_event_type")
    assert [f.suggestion for f in unknown] == [ARGUMENT_DELTA, ARGUMENT_DONE]


def test_a_near_miss_type_gets_the_closest_known_name_and_a_made_up_one_none():
    raws = message_stream("Hello there, world")
    first_delta = index_of(raws, "response.output_text.delta")
    raws[first_delta]["type"] = "response.output_text.delt"
    raws[-2]["type"] = "acme.telemetry"  # the message's output_item.done
    findings = of_code(check(raws), "unknown_event_type")
    near, made_up = findings
    assert near.event_index == first_delta
    assert near.suggestion == "response.output_text.delta"
    assert "misspelling of 'response.output_text.delta'" in near.message
    assert SDK in near.message
    assert made_up.event_index == len(raws) - 2 and made_up.suggestion is None
    assert "'acme.telemetry'" in made_up.message


# -- sequence numbers ------------------------------------------------------------------------


def test_a_gap_in_sequence_numbers_says_how_many_events_are_missing():
    raws = message_stream("Hello there, world")
    del raws[8:10]  # both text deltas: 7 is followed by 10
    findings = check(raws)
    [gap] = of_code(findings, "sequence_gap")
    assert gap.message == "sequence jumps from 7 to 10: 2 events missing"
    assert gap.event_index == 8 and gap.severity == "error" and gap.response_key == 0


def test_a_single_dropped_event_is_a_gap_of_one():
    raws = message_stream("Hello there, world")
    del raws[8]  # the first text delta: 7 is followed by 9
    findings = check(raws)
    [gap] = of_code(findings, "sequence_gap")
    assert gap.message == "sequence jumps from 7 to 9: 1 event missing"
    assert gap.event_index == 8 and gap.severity == "error"


def test_a_swapped_pair_is_one_out_of_order_event_not_a_gap():
    raws = message_stream("Hello there, world")
    raws[1], raws[2] = raws[2], raws[1]  # in_progress (seq 1) after output_item.added (seq 2)
    findings = check(raws)
    [late] = of_code(findings, "sequence_out_of_order")
    assert late.event_index == 2 and late.severity == "error"
    assert late.message == "sequence_number 1 arrives after 2: out of order"
    # Every number did arrive: nothing is missing and nothing repeated.
    assert codes(findings).count("sequence_gap") == 0
    assert codes(findings).count("sequence_duplicate") == 0


def test_a_duplicate_event():
    raws = message_stream("Hello there, world")
    raws.insert(6, copy.deepcopy(raws[5]))  # mcp_call.completed sent twice
    [dup] = of_code(check(raws), "sequence_duplicate")
    assert dup.event_index == 6 and dup.severity == "error"
    assert dup.message == "sequence_number 5 again (after 5): a duplicate event"


def test_one_stray_event_far_ahead_makes_two_findings_not_one_per_later_event():
    raws = builder_stream()
    raws.insert(3, copy.deepcopy(raws[-1]))  # the terminal event, early, as well as at the end
    findings = check(raws)
    sequence = [f for f in findings if f.code.startswith("sequence_")]
    assert [(f.code, f.event_index) for f in sequence] == [
        ("sequence_out_of_order", 4),
        ("sequence_duplicate", len(raws) - 1),
    ]


def test_a_stream_joined_mid_way_is_not_a_fault():
    raws = builder_stream()
    joined = index_of(raws, ARGUMENT_DELTA, 1)  # attached during the call's second delta
    # No sequence gap before the first event seen, no complaint about the mcp_call's events
    # before its (unseen) output_item.added, nor about its arguments missing the first delta.
    assert check(raws[joined:]) == []


# -- item order and identity -----------------------------------------------------------------


def test_an_item_event_before_its_output_item_added():
    raws = message_stream("Hello there, world")
    added = index_of(raws, "response.output_item.added", output_index=1)
    delta = raws.pop(added + 1)
    raws.insert(added, delta)  # the first text delta now precedes the message's added
    findings = check(renumber(raws))
    [early] = of_code(findings, "event_before_added")
    assert early.event_index == added and early.item_key == 1 and early.severity == "error"
    assert "before its output_item.added" in early.message and "msg_1" in early.message


def test_an_item_that_was_never_added():
    raws = message_stream("Hello there, world")
    del raws[index_of(raws, "response.output_item.added", output_index=1)]
    [never] = of_code(check(renumber(raws)), "event_before_added")
    assert "no output_item.added ever came" in never.message
    # Two deltas, output_text.done and output_item.done: all before any added.
    assert "4 events" in never.message and never.item_key == 1


def test_an_item_event_after_its_output_item_done():
    raws = message_stream("Hello there, world")
    done = index_of(raws, "response.output_item.done", output_index=1)
    late = raws.pop(done - 1)  # output_text.done
    raws.insert(done, late)
    findings = check(renumber(raws))
    [after] = of_code(findings, "event_after_done")
    assert after.event_index == done and after.item_key == 1
    assert "output_text.done" in after.message


def test_an_event_whose_output_index_is_another_items():
    raws = message_stream("Hello there, world")
    first_delta = index_of(raws, "response.output_text.delta")
    raws[first_delta]["output_index"] = 0  # the mcp_call's place, but item_id msg_1
    [mismatch] = of_code(check(raws), "item_mismatch")
    assert mismatch.event_index == first_delta and mismatch.item_key == 1
    assert "output_index 0" in mismatch.message and "output_index 1" in mismatch.message
    assert "msg_1" in mismatch.message


def test_an_event_whose_item_id_belongs_to_no_item_at_its_output_index():
    raws = message_stream("Hello there, world")
    first_delta = index_of(raws, "response.output_text.delta")
    raws[first_delta]["item_id"] = "msg_other"
    findings = check(raws)
    [mismatch] = of_code(findings, "item_mismatch")
    assert mismatch.event_index == first_delta
    assert "msg_other" in mismatch.message and "msg_1" in mismatch.message
    # Its text went elsewhere, so msg_1's deltas no longer add up to its text either.
    assert of_code(findings, "delta_mismatch")
    assert not of_code(findings, "event_before_added")  # the mismatch explains it


# -- deltas against .done --------------------------------------------------------------------


def test_text_deltas_that_disagree_with_output_text_done():
    raws = message_stream("Hello there, world")
    done = index_of(raws, "response.output_text.done")
    raws[done]["text"] = "Hello there, World!"
    [mismatch] = of_code(check(raws), "delta_mismatch")
    assert mismatch.event_index == done and mismatch.item_key == 1
    assert mismatch.severity == "error"
    assert "18 characters" in mismatch.message and "19" in mismatch.message
    assert "position 13" in mismatch.message
    assert "'Hello there, world' vs 'Hello there, World!'" in mismatch.message


def test_a_long_text_mismatch_shows_only_the_place_where_it_differs():
    text = "".join(f"word{n} " for n in range(100))
    raws = message_stream(text)
    done = index_of(raws, "response.output_text.done")
    raws[done]["text"] = text.replace("word57 ", "word57! ")
    [mismatch] = of_code(check(raws), "delta_mismatch")
    at = text.index("word57 ") + 6
    assert f"position {at}" in mismatch.message
    assert "…" in mismatch.message and "word57 word58" in mismatch.message
    assert "word10 " not in mismatch.message and len(mismatch.message) < 300


def test_argument_deltas_and_the_final_item_arguments_are_compared():
    raws = builder_stream()
    done = index_of(raws, ARGUMENT_DONE)
    raws[done]["arguments"] = '{"city": "Lyon", "units": "metric"}'
    mismatches = of_code(check(raws), "delta_mismatch")
    item_done = index_of(raws, "response.output_item.done", output_index=1)
    # The deltas disagree with .done, and .done disagrees with the finished item.
    assert [f.event_index for f in mismatches] == [done, item_done]
    assert "mcp_call_arguments deltas" in mismatches[0].message
    assert "item's arguments in output_item.done" in mismatches[1].message
    assert '\'{"city": "Lyon"' in mismatches[1].message  # .done's side, then the item's
    assert mismatches[1].message.index("Lyon") < mismatches[1].message.index("Paris")
    assert all(f.item_key == 1 for f in mismatches)


def test_docs_spelled_argument_deltas_are_compared_too():
    raws = builder_stream(docs_names=True)
    raws[index_of(raws, "response.mcp_call.arguments.done")]["arguments"] = "{}"
    assert len(of_code(check(raws), "delta_mismatch")) == 2


# -- terminal events -------------------------------------------------------------------------


def test_a_response_that_never_ends():
    raws = message_stream("Hello there, world")[:-1]
    [open_] = of_code(check(raws), "no_terminal_event")
    assert open_.severity == "error" and open_.event_index == len(raws) - 1
    assert "'in_progress'" in open_.message and f"{len(raws)} events" in open_.message
    # Live, the rest may still come.
    assert not of_code(check(raws, complete=False), "no_terminal_event")


def test_a_background_response_finished_by_a_poll_is_terminal():
    raws = builder_stream()[:3]  # created, in_progress, output_item.added
    response = {**raws[0]["response"], "status": "completed"}
    events = [Event(raw) for raw in raws] + [note("poll", "poll: completed", response=response)]
    timeline = Timeline(events)
    timeline.seek_end()
    findings = check_stream(timeline.events, timeline.state)
    assert not of_code(findings, "no_terminal_event")
    assert all(f.event_index != 3 for f in findings)  # the note itself is never checked


# -- field validation ------------------------------------------------------------------------


def test_wrong_json_types_are_errors_and_each_bad_delta_is_found():
    raws = builder_stream()
    deltas = [n for n, r in enumerate(raws) if r["type"] == "response.output_text.delta"]
    raws[deltas[0]]["output_index"] = "2"
    raws[deltas[1]]["delta"] = 5
    findings = errors(check(raws))
    assert [(f.code, f.event_index) for f in findings] == [
        ("wrong_type", deltas[0]),
        ("wrong_type", deltas[1]),
    ]
    assert findings[0].message.startswith("output_index:") and "a string" in findings[0].message
    assert findings[1].message.startswith("delta:") and "an integer" in findings[1].message


def test_a_missing_structural_field_is_an_error_a_missing_logprobs_is_drift():
    raws = builder_stream()
    deltas = [n for n, r in enumerate(raws) if r["type"] == "response.output_text.delta"]
    del raws[deltas[0]]["item_id"]
    del raws[deltas[1]]["logprobs"]  # required since openai-python 1.97, absent before
    findings = check(raws)
    [missing] = of_code(findings, "missing_field")
    assert missing.event_index == deltas[0] and missing.severity == "error"
    assert "'item_id'" in missing.message
    [drift] = of_code(findings, "sdk_drift")
    assert drift.event_index == deltas[1] and drift.severity == "warning"
    assert "logprobs" in drift.message and SDK in drift.message


def test_union_fields_are_reported_for_the_member_the_object_claims_to_be():
    raws = builder_stream()
    done = index_of(raws, "response.output_item.done", output_index=2)
    raws[done]["item"]["content"][0]["annotations"] = [
        {"type": "url_citation", "url": 5, "title": "t", "start_index": 0, "end_index": 1}
    ]
    findings = [f for f in check(raws) if f.event_index == done]
    # Not dozens of errors, one per member of the item and annotation unions: just this one.
    assert [(f.severity, f.code) for f in findings] == [("error", "wrong_type")]
    assert findings[0].message.startswith("item.content.0.annotations.0.url:")


def test_an_unknown_item_type_is_a_warning_and_an_item_without_type_an_error():
    raws = builder_stream()
    added = index_of(raws, "response.output_item.added", output_index=2)
    raws[added]["item"]["type"] = "hologram_call"
    findings = [f for f in check(raws) if f.event_index == added]
    assert [(f.severity, f.code) for f in findings] == [("warning", "unknown_item_type")]
    assert "'hologram_call'" in findings[0].message

    del raws[added]["item"]["type"]
    findings = [f for f in check(raws) if f.event_index == added]
    assert [(f.severity, f.code) for f in findings] == [("error", "missing_field")]

    raws[added]["item"] = "msg"
    findings = [f for f in check(raws) if f.event_index == added]
    assert [(f.severity, f.code) for f in findings] == [("error", "wrong_type")]


def test_a_value_the_sdk_does_not_list_is_drift():
    raws = builder_stream()
    raws[-1]["type"] = "response.failed"
    raws[-1]["response"]["status"] = "failed"
    raws[-1]["response"]["error"] = {"code": "brand_new_code", "message": "x"}
    [drift] = check(raws)
    assert (drift.severity, drift.code) == ("warning", "sdk_drift")
    assert "response.error.code is 'brand_new_code'" in drift.message
    assert SDK in drift.message
    # Not a string at all is no new value, just the wrong type.
    raws[-1]["response"]["error"]["code"] = 42
    [wrong] = check(raws)
    assert (wrong.severity, wrong.code) == ("error", "wrong_type")
    assert wrong.message.startswith("response.error.code:") and "an integer" in wrong.message


def test_an_undeclared_field_is_info_once_per_type_and_obfuscation_is_not_reported():
    raws = builder_stream()
    for raw in raws:
        if raw["type"] == "response.output_text.delta":
            raw["x_debug"] = {"worker": 3}
    findings = check(raws)
    first_delta = index_of(raws, "response.output_text.delta")
    assert [(f.severity, f.code, f.event_index) for f in findings] == [
        ("info", "extra_field", first_delta)
    ]
    assert "'x_debug'" in findings[0].message
    assert all("obfuscation" in raw for raw in raws if raw["type"].endswith(".delta"))


# -- real streams ----------------------------------------------------------------------------

CACHE_WRITE = ("sdk_drift", "response.usage.input_tokens_details.cache_write_tokens")
EXPECTED_WARNINGS: dict[str, list[tuple[str, str]]] = {
    MCP_TOOL: [CACHE_WRITE],
    APPROVAL_1: [CACHE_WRITE],
    APPROVAL_2: [CACHE_WRITE],
    WEB_SEARCH: [("sdk_drift", "expects item.action")] * 4 + [CACHE_WRITE],
    ERROR: [
        ("sdk_drift", "nests its fields in an 'error' object"),
        ("sdk_drift", "response.error.code is 'insufficient_quota'"),
    ],
    FAILED_ONLY: [],
}


@pytest.mark.parametrize("name", FIXTURES)
def test_real_fixtures_have_no_errors_only_the_known_drift(upstream_dir: Path, name: str):
    findings = check(read_chunks(upstream_dir / name))
    assert errors(findings) == []
    warnings = [f for f in findings if f.severity == "warning"]
    assert len(warnings) == len(EXPECTED_WARNINGS[name]), [f.message for f in warnings]
    for finding, (code, text) in zip(warnings, EXPECTED_WARNINGS[name], strict=True):
        assert finding.code == code and text in finding.message
        assert SDK in finding.message
    assert [f for f in findings if f.severity == "info"] == []


def test_web_search_drift_is_on_the_in_progress_items(upstream_dir: Path):
    raws = read_chunks(upstream_dir / WEB_SEARCH)
    findings = [f for f in check(raws) if "item.action" in f.message]
    for finding in findings:
        raw = raws[finding.event_index]
        assert raw["type"] == "response.output_item.added"
        assert raw["item"]["type"] == "web_search_call" and "action" not in raw["item"]
        assert finding.item_key is not None


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_sample_recordings_have_no_errors(path: Path):
    loaded = load_path(path)
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    assert errors(check_stream(timeline.events, timeline.state)) == []


# -- text deltas read fast ---------------------------------------------------------------------


def streamed(raws: list[dict[str, Any]]) -> list[Event]:
    """`raws` as the app reads a stream: text deltas read fast, their JSON kept as bytes."""
    from mcptui.model.ingest import StreamIngester

    ingester = StreamIngester()
    payloads = "".join(f"event: e\ndata: {json.dumps(raw)}\n\n" for raw in raws)
    return [*ingester.feed(payloads.encode()), *ingester.finish()]


def odd_deltas(raws: list[dict[str, Any]], every: int = 2) -> list[dict[str, Any]]:
    """`raws` with one text delta in `every` made odd in the ways a check looks at: an extra
    field, a field missing, a value of another class, log probabilities, another item's id
    or index, a content index out of step."""
    out = copy.deepcopy(raws)
    deltas = [raw for raw in out if raw.get("type") == "response.output_text.delta"]
    changes = [
        lambda d: d.update(surprise=1),
        lambda d: d.pop("content_index", None),
        lambda d: d.pop("output_index", None),
        lambda d: d.update(output_index=float(d.get("output_index", 0))),
        lambda d: d.update(content_index=True),
        lambda d: d.update(logprobs=[{"token": "x", "logprob": -0.1, "top_logprobs": []}]),
        lambda d: d.update(logprobs="none"),
        lambda d: d.update(item_id="msg_someone_else"),
        lambda d: d.update(output_index=d.get("output_index", 0) + 7),
        lambda d: d.update(content_index=3),
        lambda d: d.update(obfuscation="abc"),
        lambda d: d.update(delta=None),
    ]
    for delta, change in zip(deltas[1::every], changes * 50, strict=False):
        change(delta)
    return out


RUN_CHANGES = {
    "no output_index": lambda d: d.pop("output_index"),
    "another output_index": lambda d: d.update(output_index=d["output_index"] + 7),
    "content_index 1": lambda d: d.update(content_index=1),
    "another item_id": lambda d: d.update(item_id="msg_someone_else"),
    "no logprobs": lambda d: d.pop("logprobs", None),
    "obfuscation": lambda d: d.update(obfuscation="abc"),
    "an extra field": lambda d: d.update(surprise=1),
}


@pytest.mark.parametrize("source", ["stream", "recording"])
@pytest.mark.parametrize(
    "change", [*RUN_CHANGES, "mixed", "before output_item.added", "after output_item.done"]
)
def test_a_long_run_of_text_deltas_changed_alike_gets_the_findings_their_dicts_get(
    tmp_path: Path, change: str, source: str
):
    """A run of text deltas in a row is read in one go when they have the same fields: 40
    changed alike (or alternately, "mixed", or all sent out of place) get the
    findings the same deltas get as dicts."""
    raws = builder_stream(pieces=tuple(f"word {n} " for n in range(40)))
    deltas = [raw for raw in raws if raw["type"] == "response.output_text.delta"]
    for n, delta in enumerate(deltas):
        if change in RUN_CHANGES:
            RUN_CHANGES[change](delta)
        elif change == "mixed" and n % 2:
            delta.pop("output_index")
    if change == "after output_item.done":
        message_done = index_of(raws, "response.output_item.done", 2)
        raws = [raw for raw in raws if raw not in deltas]
        raws[message_done - len(deltas) + 1 : message_done - len(deltas) + 1] = deltas
    if change == "before output_item.added":
        message_added = index_of(raws, "response.output_item.added", 2)
        raws = [raw for raw in raws if raw not in deltas]
        raws[message_added:message_added] = deltas
    as_dicts = fold(raws)
    events = streamed(raws) if source == "stream" else recorded(raws, tmp_path)
    fast = Timeline(events)
    fast.seek_end()
    found = check_stream(events, fast.state)
    assert found == check_stream(as_dicts.events, as_dicts.state)
    if change not in ("obfuscation", "content_index 1"):
        assert found  # a change the checks report (the others: the same as dicts is all)


def out_of_place(raws: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`raws` with each message's first text delta moved before its `output_item.added` and
    its last one after its `output_item.done`."""
    out = copy.deepcopy(raws)
    for item_id in {
        raw["item_id"] for raw in out if raw.get("type") == "response.output_text.delta"
    }:
        deltas = [
            raw
            for raw in out
            if raw.get("type") == "response.output_text.delta" and raw["item_id"] == item_id
        ]
        ends = [
            i
            for i, raw in enumerate(out)
            if raw.get("type", "").startswith("response.output_item.")
            and raw.get("item", {}).get("id") == item_id
        ]
        if len(deltas) < 2 or len(ends) < 2:
            continue
        first, last = deltas[0], deltas[-1]
        out.remove(last)
        out.insert(ends[-1], last)  # after output_item.done (one place earlier now)
        out.remove(first)
        out.insert(ends[0], first)  # before output_item.added
    return out


def recorded(raws: list[dict[str, Any]], folder: Path) -> list[Event]:
    """`raws` written as a recording and read back as the app reads one: text deltas read
    fast, each event's JSON left in the file."""
    path = folder / "recorded.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"mcptui": "recording", "format": 1}),
                *(json.dumps({"t": index / 100, "event": raw}) for index, raw in enumerate(raws)),
            ]
        )
        + "\n"
    )
    return load_path(str(path)).events


@pytest.mark.parametrize("source", ["stream", "recording"])
@pytest.mark.parametrize("odd", [False, True, "one in 20", "out of place"])
@pytest.mark.parametrize("name", FIXTURES)
def test_text_deltas_read_fast_get_the_findings_their_dicts_get(
    upstream_dir: Path, tmp_path: Path, name: str, odd: bool | str, source: str
):
    """check_stream reads a fast-read text delta without building its dict (from a stream's
    payload or a recording's line): what it finds must be what it finds in the same stream
    held as dicts, odd deltas included (one in 20: an odd one amid a run of plain ones, which
    is read in one go)."""
    raws = read_chunks(upstream_dir / name)
    if odd == "out of place":
        raws = out_of_place(raws)
    elif odd == "one in 20":
        raws = odd_deltas(raws, every=20)
    elif odd:
        raws = odd_deltas(raws)
    as_dicts = fold(raws)
    events = streamed(raws) if source == "stream" else recorded(raws, tmp_path)
    assert any(e.lite is not None for e in events) or not any(
        raw.get("type") == "response.output_text.delta" for raw in raws
    )
    fast = Timeline(events)
    fast.seek_end()
    assert check_stream(events, fast.state) == check_stream(as_dicts.events, as_dicts.state)
    if odd is True and any(raw.get("type") == "response.output_text.delta" for raw in raws):
        assert errors(check_stream(events, fast.state))  # the odd ones are seen


def test_an_item_whose_type_is_not_a_string_is_reported_not_a_crash():
    raws = builder_stream()
    done = index_of(raws, "response.output_item.done", 2)
    raws[done]["item"]["type"] = ["message"]
    assert "missing_field" in codes(check(raws))  # "has no 'type'" the SDK can read
