"""The verdict on an edited re-send (model/resend_verdict.py): fixed, still failing, a
different failure, now failing, both fine, not finished."""

from __future__ import annotations

from mcptui.model.resend_verdict import verdict
from mcptui.model.state import ItemState, ResponseState

SCHEMA_424 = {
    "type": "http_error",
    "code": 424,
    "message": "Error retrieving tool list... broken_schema: structured content missing",
}


def call(name: str, *, error: object = None, label: str = "demo") -> ItemState:
    return ItemState(
        key=0,
        type="mcp_call",
        name=name,
        server_label=label,
        status="failed" if error is not None else "completed",
        error=error,
    )


def response(key: int, *items: ItemState, status: str = "completed", error: object = None):
    return ResponseState(key=key, id=f"resp_{key}", status=status, error=error, items=list(items))


def test_a_failed_call_that_now_completes_is_fixed() -> None:
    before = response(0, call("search"), call("broken_schema", error=SCHEMA_424))
    after = response(1, call("search"), call("broken_schema"))
    assert verdict(before, after).text == "fixed: broken_schema now completes"
    assert verdict(before, after).good is True


def test_a_failed_call_no_longer_made_is_fixed_and_says_so() -> None:
    before = response(0, call("search"), call("broken_schema", error=SCHEMA_424))
    after = response(1, call("search"))
    assert verdict(before, after).text == (
        "fixed: the response completes (broken_schema was not called)"
    )


def test_the_same_kind_of_error_again_is_still_failing() -> None:
    before = response(0, call("broken_schema", error=SCHEMA_424))
    again = {**SCHEMA_424, "message": "other words, same type and code"}
    found = verdict(before, response(1, call("broken_schema", error=again)))
    assert found.kind == "still failing" and found.good is False
    assert found.detail.startswith("same error (broken_schema: ")


def test_timeouts_that_differ_only_in_their_numbers_are_the_same_error() -> None:
    before = response(0, call("slow", error="Request timed out after 31 s"))
    after = response(1, call("slow", error="Request timed out after 30 s"))
    assert verdict(before, after).kind == "still failing"


def test_another_call_failing_is_a_different_failure() -> None:
    before = response(0, call("broken_schema", error=SCHEMA_424))
    after = response(1, call("broken_schema"), call("slow", error="timed out"))
    assert verdict(before, after).text == "different failure: slow: timed out"


def test_a_response_that_newly_fails_and_one_still_running() -> None:
    fine = response(0, call("search"))
    failed = response(1, status="failed", error={"code": "server_error", "message": "boom"})
    assert verdict(fine, failed).kind == "now failing"
    assert verdict(fine, response(1, call("search"))).kind == "both complete"
    running = response(1, status="in_progress")
    assert verdict(fine, running).kind == "not finished"
    assert verdict(fine, running).good is None


def test_a_response_stopped_at_approval_requests_is_not_called_fixed():
    before = response(0, call("broken_schema", error=SCHEMA_424))
    asked = ItemState(key=0, type="mcp_approval_request", name="broken_schema", status="completed")
    found = verdict(before, response(1, asked))
    assert found.kind == "awaiting approval" and found.good is None
    assert found.detail.startswith("broken_schema (a approves")
