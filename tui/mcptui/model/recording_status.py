"""What a recording came to, in one row of `mcptui watch`'s list: still being written, never
finished, failed or completed, with its responses and failures counted as `inspect` counts
them (tui/mcptui/model/summary.py), so the list and `inspect FILE` never disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcptui.model.state import TERMINAL_STATUSES, SessionState
from mcptui.model.summary import failure_count

Status = Literal["writing", "never finished", "failed", "completed"]
STATUSES: tuple[Status, ...] = ("writing", "never finished", "failed", "completed")


@dataclass(frozen=True, slots=True)
class RecordingSummary:
    """One recording as a whole."""

    status: Status
    """`writing`: a response is still open (no terminal event, no error that says why it
    stopped) and the file grew lately; `never finished`: the same, but the file has stopped
    growing (a run killed, a stream cut off, a request never answered); `failed`: every
    response ended, with a failure (`inspect` exits 1); `completed`: every response ended,
    with none."""
    responses: int
    failures: int
    """Failed calls, error events and failed responses (`summary.failure_count`)."""
    events: int


def summarize(state: SessionState, events: int, *, growing: bool) -> RecordingSummary:
    """`state`, the fold of a recording's `events` entries, as one row; `growing`: the file
    was written to lately, so a response still open is being written, not abandoned."""
    still_open = not state.responses or any(
        resp.status not in TERMINAL_STATUSES and not resp.error_events for resp in state.responses
    )
    failures = failure_count(state)
    status: Status
    if still_open:
        status = "writing" if growing else "never finished"
    else:
        status = "failed" if failures else "completed"
    return RecordingSummary(status, len(state.responses), failures, events)
