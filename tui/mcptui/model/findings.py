"""A finding: one thing a check noticed about a stream, with how much it matters and where.

Conformance checks (`conformance.py`) and timing checks (`timing.py`) both produce findings, so
`inspect`, `--strict`, `--json` and the app show them in one list, ordered by the timeline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "info": 2}
"""Most serious first."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One observation about the stream. `error` means the stream breaks the protocol;
    `warning` something a client may trip on (e.g. SDK version drift); `info` worth knowing."""

    severity: Severity
    code: str
    """A stable key, e.g. `unknown_event_type`, `sequence_gap`, `sdk_drift`, `slow_gap`."""
    message: str
    event_index: int | None = None
    """The timeline index of the event it concerns, when there is one."""
    response_key: int | None = None
    item_key: int | None = None
    suggestion: str | None = None
    """What the right thing would be, e.g. the wire spelling of a misspelt event type."""

    def as_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "event_index": self.event_index,
            "response_key": self.response_key,
            "item_key": self.item_key,
            "suggestion": self.suggestion,
        }


def suggestion_label(finding: Finding) -> str:
    """ "did you mean" before a corrected name, "try" before advice."""
    return "did you mean" if finding.code == "unknown_event_type" else "try"


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """By timeline position (findings about no event last), then severity."""
    return sorted(
        findings,
        key=lambda f: (f.event_index is None, f.event_index or 0, SEVERITY_RANK.get(f.severity, 9)),
    )


def count_by_severity(findings: Iterable[Finding]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for finding in findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    return counts
