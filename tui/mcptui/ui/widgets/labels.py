"""Rich labels for tree nodes and the header, built from state.

Every string from the stream passes through `visible()` into a `Text` (never markup), so
`[bold red]x[/]` or an ANSI escape in event content is shown as typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from mcptui.model.errors import describe_error
from mcptui.model.events import Event, is_wire_note
from mcptui.model.findings import SEVERITY_RANK, Finding
from mcptui.model.groups import EventGroup
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import is_open, item_status
from mcptui.model.textsafe import one_line, visible
from mcptui.share.status_marks import (
    ERROR_STYLE,
    STATUS_MARK,
    STATUS_STYLE,
    note_text,
    seconds,
    status_text,
)


def response_label(resp: ResponseState) -> Text:
    failed = resp.failed
    label = Text(
        "✗ " if failed else f"{STATUS_MARK.get(resp.status or '', '•')} ",
        style=ERROR_STYLE if failed else STATUS_STYLE.get(resp.status or "", "white"),
    )
    label.append(visible(resp.name), "bold")
    if resp.model:
        label.append(f"  {visible(resp.model)}", "magenta")
    if resp.status or resp.id:
        label.append("  ")
        label.append_text(status_text(resp.status))
    if resp.duration is not None:
        label.append(f"  {seconds(resp.duration)}", "dim")
    return label


def error_label(error: str) -> Text:
    """A failure's error, on its own line under the failed item or response."""
    return Text(f"✗ {one_line(error, 300)}", ERROR_STYLE)


FINDING_STYLE = {"error": "bold red", "warning": "yellow"}
UNMARKED_CODES = frozenset({"sdk_drift", "extra_field"})
"""Shown in the findings list and the event's detail, not on the tree: a stream from another
API version would otherwise carry a mark on every event."""


def findings_mark(findings: list[Finding]) -> Text:
    """`  ⚠ unknown_event_type` (or `  ⚠ 3 findings`), red for errors, yellow for warnings:
    shown on nodes whose events have findings, SDK drift aside. (✗ means a failure.)"""
    shown = [f for f in findings if f.severity in FINDING_STYLE and f.code not in UNMARKED_CODES]
    if not shown:
        return Text()
    worst = min(shown, key=lambda f: SEVERITY_RANK[f.severity])
    what = worst.code if len(shown) == 1 else f"{len(shown)} findings"
    return Text(f"  ⚠ {what}", FINDING_STYLE[worst.severity])


def item_label(
    resp: ResponseState, item: ItemState, findings: Sequence[Finding] = (), now: float | None = None
) -> Text:
    """`✓ mcp_call search @demo  completed  #2 · 1.20s · 9 ev`; a running item's duration
    counts up to `now` (the recorded clock, while it runs on through a silence)."""
    failed = item.failed
    shown = item_status(resp, item)
    style = ERROR_STYLE if failed else "bold"
    label = Text(
        f"{STATUS_MARK.get(shown.word, '•')} ",
        style=ERROR_STYLE if failed else STATUS_STYLE.get(shown.word, "white"),
    )
    label.append(visible(item.type), style)
    if item.name:
        label.append(f" {visible(item.name)}", style)
    if item.server_label:
        label.append(f" @{visible(item.server_label)}", "red" if failed else "blue")
    label.append("  ")
    label.append_text(
        Text("failed", ERROR_STYLE) if failed else status_text(shown.word, shown.reason)
    )
    index = "?" if item.output_index is None else str(item.output_index)
    details = [f"#{index}"]
    duration = item.duration
    if now is not None and item.first_t is not None and is_open(resp, item):
        duration = max(duration or 0.0, now - item.first_t)
    if duration is not None:
        details.append(seconds(duration))
    details.append("snapshot" if item.from_snapshot else f"{len(item.events)} ev")
    label.append(f"  {' · '.join(details)}", "dim")
    if findings:
        label.append_text(findings_mark(list(findings)))
    return label


def event_label(event: Event, failing: bool, findings: Sequence[Finding] = ()) -> Text:
    """A single event (response-level, or a group of one)."""
    style = ERROR_STYLE if failing else ""
    if event.is_note and is_wire_note(event.raw) and event.raw.get("level") == "info":
        # What is normal on an MCP wire (the client closing its event stream at a session's
        # end, a DELETE the server had no need of): dim, never the colour of an answer.
        return Text.assemble(
            ("MCP ", "dim"), (one_line(str(event.raw.get("message", "")), 160), "dim")
        )
    if event.is_note:
        return note_text(event, 160)
    label = Text(visible(event.type), style=style or _event_style(event.type))
    seq = event.sequence_number
    if seq is not None:
        label.append(f"  #{seq}", "dim")
    if failing:
        detail = (
            event.raw.get("error")
            or event.raw.get("message")
            or (
                (event.raw.get("response") or {}).get("error")
                if isinstance(event.raw.get("response"), dict)
                else None
            )
        )
        if detail:
            label.append(f"  {one_line(describe_error(detail), 160)}", ERROR_STYLE)
    if findings:
        label.append_text(findings_mark(list(findings)))
    return label


def group_label(
    group: EventGroup, first: Event, failing: bool, findings: Sequence[Finding] = ()
) -> Text:
    if group.count == 1 and not group.coalesced:
        return event_label(first, failing, findings)
    label = Text(visible(group.type), _event_style(group.type))
    label.append(f" ×{group.count}", "bold")
    if findings:
        label.append_text(findings_mark(list(findings)))
    return label


def _event_style(event_type: str) -> str:
    if event_type.endswith(".delta"):
        return "dim"
    if event_type.endswith((".failed", "error")):
        return ERROR_STYLE
    if event_type.endswith(".completed") or event_type.endswith(".done"):
        return "green"
    return ""
