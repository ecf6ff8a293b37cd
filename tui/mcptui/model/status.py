"""The status a person should read for an item: the API's own, or what it came to.

The API's `status` is kept as sent (`ItemState.status`). What the screen says adds what the
status alone cannot: an item left `in_progress` by a cancelled, failed or incomplete response
was interrupted, and an `mcp_approval_request` (which has no status) waits for an answer that
only a later request gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcptui.model.errors import describe_error
from mcptui.model.state import TERMINAL_STATUSES, ItemState, ResponseState, SessionState

APPROVAL_REQUEST = "mcp_approval_request"
APPROVAL_RESPONSE = "mcp_approval_response"
INTERRUPTING = frozenset({"cancelled", "failed", "incomplete"})
"""Response statuses that stop whatever items were still running."""


@dataclass(slots=True, frozen=True)
class ShownStatus:
    word: str
    """`completed`, `failed`, `in_progress`, `interrupted`, `awaiting approval`, `approved`…"""
    reason: str | None = None
    """Why, when the word alone does not say: the response's reason for an interruption."""

    @property
    def text(self) -> str:
        return f"{self.word} ({self.reason})" if self.reason else self.word


def approval_responses(value: Any) -> list[dict[str, Any]]:
    """The `mcp_approval_response` items of a request's `input`."""
    if not isinstance(value, list):
        return []
    return [
        item for item in value if isinstance(item, dict) and item.get("type") == APPROVAL_RESPONSE
    ]


def approval_answers(request: Any) -> list[tuple[str, bool]]:
    """(approval_request_id, approved) for each answer a request carries."""
    if not isinstance(request, dict):
        return []
    return [
        (answer["approval_request_id"], answer.get("approve") is True)
        for answer in approval_responses(request.get("input"))
        if isinstance(answer.get("approval_request_id"), str)
    ]


def request_purpose(request: Any, state: SessionState) -> str:
    """What a follow-up request does, for its note: `approves slow_search (mcpr_1) of
    resp_1`, `denies …`, `continues resp_1`; empty for a fresh request (a re-run)."""
    if not isinstance(request, dict):
        return ""
    answers = []
    for request_id, approved in approval_answers(request):
        owner = next(
            (resp for resp in reversed(state.responses) if request_id in resp.by_item_id), None
        )
        item = owner.by_item_id[request_id] if owner is not None else None
        what = f"{item.name} ({request_id})" if item is not None and item.name else request_id
        of = f" of {owner.id}" if owner is not None and owner.id else ""
        answers.append(f"{'approves' if approved else 'denies'} {what}{of}")
    if answers:
        return "; ".join(answers)
    previous = request.get("previous_response_id")
    return f"continues {previous}" if isinstance(previous, str) else ""


def response_reason(resp: ResponseState) -> str:
    """Why a response stopped, in a few words: `response cancelled`, `response failed: …`."""
    status = resp.status or "unknown"
    if status == "failed" and resp.error is not None:
        return f"response failed: {describe_error(resp.error)}"
    if status == "incomplete" and resp.incomplete_reason:
        return f"response incomplete: {resp.incomplete_reason}"
    return f"response {status}"


def is_open(resp: ResponseState, item: ItemState) -> bool:
    """Still running: the item's clock keeps counting while the response's does."""
    return resp.status not in TERMINAL_STATUSES and item_status(resp, item).word in (
        "in_progress",
        "queued",
    )


def waiting_for(resp: ResponseState | None) -> str:
    """What a silence waits on: the newest running tool call's name, else the newest running
    item's type, else `the next event`."""
    running = [item for item in resp.items if is_open(resp, item)] if resp is not None else []
    calls = [item for item in running if item.name]
    if calls:
        return calls[-1].name or ""
    return running[-1].type if running else "the next event"


def item_status(resp: ResponseState, item: ItemState) -> ShownStatus:
    """What the item came to, as far as the events applied so far tell."""
    if item.failed:
        return ShownStatus("failed")
    if item.type == APPROVAL_REQUEST:
        if item.answer is not None:
            return ShownStatus("approved" if item.answer else "denied")
        return ShownStatus("awaiting approval")
    if item.status not in TERMINAL_STATUSES and resp.status in INTERRUPTING:
        return ShownStatus("interrupted", response_reason(resp))
    return ShownStatus(item.status)
