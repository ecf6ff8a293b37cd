"""`mcptui inspect`: a Rich tree per response, Failures with their likely causes, a Timing
table, a Findings section, and the `--json` form.

Every string from the stream goes into `rich.text.Text` as plain text (never markup) after
`visible()`, so markup and escape sequences in event content show literally.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from mcptui.io.recording import Loaded, Problems
from mcptui.model.causes import LikelyCause, worth_a_paragraph
from mcptui.model.diagnosis import Diagnosis, diagnose, header_options
from mcptui.model.events import Event
from mcptui.model.findings import Finding, count_by_severity, suggestion_label
from mcptui.model.jsonsafe import dumps_indented
from mcptui.model.providers import differs, stream_provider
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import item_status
from mcptui.model.summary import (
    Failure,
    failures,
    response_failures,
    response_json,
    response_notes,
    unfinished,
)
from mcptui.model.textsafe import json_safe, one_line, visible
from mcptui.model.timeline import Timeline
from mcptui.model.timing import TimingReport, bar_span
from mcptui.model.toolstats import ToolStats, tool_stats
from mcptui.share.status_marks import FINDING_MARK, STATUS_MARK, note_text, seconds, status_text

EXIT_CLEAN, EXIT_FAILURE, EXIT_UNUSABLE = 0, 1, 2


@dataclass
class Inspection:
    """One file, folded to its end."""

    loaded: Loaded
    timeline: Timeline
    diagnosis: Diagnosis
    failures: list[Failure] = field(default_factory=list)

    @classmethod
    def of(cls, loaded: Loaded, **options: Any) -> Inspection:
        """`options` go to `diagnose` (e.g. `probes` a probe of the failed items gave)."""
        timeline = Timeline(loaded.events, loaded.snapshots)
        timeline.seek_end()
        diagnosis = diagnose(
            timeline.events, timeline.state, **header_options(loaded.header), **options
        )
        found = failures(timeline.state, timeline.events)
        found += unfinished(timeline.state, timeline.events)  # the file is all there is
        return cls(loaded, timeline, diagnosis, found)

    def causes_of(self, failure: Failure) -> list[LikelyCause]:
        if failure.response_key is None:
            return []
        if failure.item_key is not None:
            return self.diagnosis.causes(failure.response_key, failure.item_key)
        if failure.type in ("mcp_call", "mcp_list_tools"):
            return []
        return self.diagnosis.causes(failure.response_key)


def exit_code(inspections: Sequence[Inspection], *, strict: bool = False) -> int:
    """0 clean, 1 a failure (or with `strict`, an error-level finding), 2 a file that could
    not be used (the others are still reported)."""
    if not all(i.loaded.usable for i in inspections):
        return EXIT_UNUSABLE
    if any(i.failures for i in inspections):
        return EXIT_FAILURE
    if strict and any(i.diagnosis.errors for i in inspections):
        return EXIT_FAILURE
    return EXIT_CLEAN


def to_json(inspections: Sequence[Inspection]) -> dict[str, Any]:
    return {
        "files": [
            {
                "path": i.loaded.source,
                "format": i.loaded.format,
                "events": len(i.loaded.events),
                "provider": stream_provider(i.loaded.header),
            }
            for i in inspections
        ],
        "responses": [
            response_json(r, i.timeline.events)
            for i in inspections
            for r in i.timeline.state.responses
        ],
        "failures": [
            {**f.as_json(), "likely_causes": [c.as_json() for c in i.causes_of(f)]}
            for i in inspections
            for f in i.failures
        ],
        "findings": [entry for i in inspections for entry in folded_findings(i)],
        "timing": [timing_json(i.diagnosis.timing, i.loaded.source) for i in inspections],
        "problems": [entry for i in inspections for entry in folded_problems(i)],
        "tools": [stats.as_json() for stats in tools_of(inspections)],
    }


def tools_of(inspections: Sequence[Inspection]) -> list[ToolStats]:
    return tool_stats((i.timeline.state, i.diagnosis.timing) for i in inspections)


def tools_section(stats: Sequence[ToolStats], files: int) -> RenderableType:
    """The per-tool table across the files: calls, failures by error, p50 / p95 / max of the
    tool's own time, and the limit that applied."""
    table = Table(
        title=Text(f"Tools across {files} files", style="bold"),
        title_justify="left",
        box=None,
        padding=(0, 1),
        show_edge=False,
    )
    for name, justify in (
        ("server", "left"),
        ("tool", "left"),
        ("calls", "right"),
        ("failed", "right"),
        ("p50", "right"),
        ("p95", "right"),
        ("max", "right"),
        ("limit", "right"),
        ("errors", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=name != "errors")  # type: ignore[arg-type]
    for row in stats:
        failed = sum(row.failures.values())
        errors = "; ".join(f"{count}× {error}" for error, count in row.failures.most_common(3))
        table.add_row(
            visible(row.server_label),
            visible(row.tool),
            str(row.calls),
            Text(str(failed), "red" if failed else ""),
            seconds(row.percentile(0.5)),
            seconds(row.percentile(0.95)),
            seconds(max(row.seconds, default=None)),
            " / ".join(f"{limit:g}s" for limit in sorted(row.limits)),
            Text(visible(errors), "red"),
        )
    return table


SAMPLE = 20
"""How many event indexes (or lines) a folded finding (or problem) lists."""


def folded_findings(inspection: Inspection) -> list[dict[str, Any]]:
    """Identical findings (severity, code, message) as one entry: the first one's fields,
    `count`, and the first `SAMPLE` event indexes. 100k events without a type are one entry,
    not 100k (which took 95 s and 5 GB to print)."""
    folded: dict[tuple[str, str, str], dict[str, Any]] = {}
    for finding in inspection.diagnosis.findings:
        key = (finding.severity, finding.code, finding.message)
        entry = folded.get(key)
        if entry is None:
            entry = folded[key] = {
                "file": inspection.loaded.source,
                **finding.as_json(),
                "count": 0,
                "event_indexes": [],
            }
        entry["count"] += 1
        if finding.event_index is not None and len(entry["event_indexes"]) < SAMPLE:
            entry["event_indexes"].append(finding.event_index)
    return list(folded.values())


def folded_problems(inspection: Inspection) -> list[dict[str, Any]]:
    """Problems with the same message as one entry: the first line, `count`, sample lines."""
    folded: dict[str, dict[str, Any]] = {}
    problems = inspection.loaded.problems
    for problem in problems:
        entry = folded.get(problem.message)
        if entry is None:
            entry = folded[problem.message] = {
                "file": inspection.loaded.source,
                "line": problem.line,
                "message": problem.message,
                "lines": [],
                "count": problems.seen[problem.message],
            }  # kept or only counted
        if problem.line is not None and len(entry["lines"]) < SAMPLE:
            entry["lines"].append(problem.line)
    return list(folded.values())


def timing_json(report: TimingReport, source: str | None) -> dict[str, Any]:
    return {
        "file": source,
        "has_timing": report.has_timing,
        "start_s": report.start,
        "end_s": report.end,
        "items": [
            {
                "response_key": t.response_key,
                "item_key": t.item_key,
                "output_index": t.output_index,
                "type": t.type,
                "name": t.name,
                "status": t.status,
                "start_s": t.start,
                "end_s": t.end,
                "duration_s": t.duration,
                "tool_s": t.tool_seconds,
            }
            for t in report.items
        ],
        "gaps": [
            {"after_event": g.after_index, "before_event": g.before_index, "seconds": g.seconds}
            for g in report.gaps
        ],
    }


def print_json(inspections: Sequence[Inspection], out: TextIO) -> None:
    """The report as indented JSON, written with the stdlib (Rich's `print_json` re-parses and
    highlights it: minutes on a big file) and inert on a terminal (`json_safe`)."""
    out.write(json_safe(dumps_indented(to_json(inspections))))
    out.write("\n")


def render(inspection: Inspection) -> RenderableType:
    """The whole human report for one file."""
    parts: list[RenderableType] = []
    loaded = inspection.loaded
    title = Text.assemble(
        (visible(loaded.source or "<input>"), "bold"),
        (f"  {loaded.format} · {len(loaded.events)} events", "dim"),
    )
    provider = stream_provider(loaded.header)
    if differs(provider):  # whose stream the SDK-drift findings are about
        title.append(f" · via {visible(provider or '')}", "bold blue")
    parts.append(title)
    for resp in inspection.timeline.state.responses:
        parts.append(response_tree(resp, inspection))
    if inspection.failures:
        parts.append(failures_section(inspection))
    if inspection.diagnosis.timing.has_timing and inspection.diagnosis.timing.items:
        parts.append(timing_section(inspection.diagnosis.timing))
    if inspection.diagnosis.findings:
        parts.append(findings_section(inspection.diagnosis.findings))
    if loaded.problems:
        parts.append(problems_section(loaded.problems))
    return Group(*parts)


def marked_status(status: str | None, reason: str | None = None) -> Text:
    """`✓ completed`, `✗ failed`: the mark keeps the status readable without colour."""
    return Text(f"{STATUS_MARK.get(status or '', '…')} ").append_text(status_text(status, reason))


def response_tree(resp: ResponseState, inspection: Inspection) -> Tree:
    label = Text.assemble((visible(resp.id or "response (no id)"), "bold"), "  ")
    if resp.model:
        label.append(visible(resp.model) + "  ", "magenta")
    label.append_text(marked_status(resp.status))
    if resp.duration is not None:
        label.append(f"  {seconds(resp.duration)}", "dim")
    if resp.usage:
        label.append(
            f"  tokens in {token_count(resp.usage, 'input_tokens')} out "
            f"{token_count(resp.usage, 'output_tokens')} total "
            f"{token_count(resp.usage, 'total_tokens')}",
            "dim",
        )
    tree = Tree(label, guide_style="dim")
    events = inspection.timeline.events
    notes = response_notes(resp, events)
    # Items and the recording's notes in the order they happened (an item at its first event).
    children: list[tuple[float, int, ItemState | Event]] = [
        (item.events[0] if item.events else float("inf"), position, item)
        for position, item in enumerate(resp.items)
    ]
    children += [(note.index, 0, note) for note in notes]
    for _, _, child in sorted(children, key=lambda entry: entry[:2]):
        if isinstance(child, ItemState):
            item_node(tree, resp, child)
        else:
            tree.add(note_label(child))
    for failure in response_failures(resp, events):
        if failure.event_index is None or not events[failure.event_index].is_note:
            tree.add(
                Text(f"✗ {visible(failure.type)}  {one_line(failure.error, 300)}", style="bold red")
            )
    return tree


def note_label(event: Event) -> Text:
    """A note with its time: `ℹ note request: POST /responses: HTTP 200 · …  4.20s`."""
    label = note_text(event, 300)
    if event.t is not None:
        label.append(f"  {event.t:.2f}s", "dim")
    return label


def token_count(usage: dict[str, Any], key: str) -> str:
    """A token count as sent, or `?`: only integers are printed (never text from the stream)."""
    value = usage.get(key)
    return str(value) if type(value) is int else "?"


def item_node(parent: Tree, resp: ResponseState, item: ItemState) -> None:
    label = Text(f"#{item.output_index if item.output_index is not None else '?'} ", "dim")
    label.append(visible(item.type), "bold red" if item.failed else "bold")
    if item.name:
        label.append(f" {visible(item.name)}", "bold")
    if item.server_label:
        label.append(f" @{visible(item.server_label)}", "blue")
    label.append("  ")
    shown = item_status(resp, item)
    label.append_text(marked_status(shown.word, shown.reason))
    if item.duration is not None:
        label.append(f"  {seconds(item.duration)}", "dim")
    count = "from response object" if item.from_snapshot else f"{len(item.events)} events"
    label.append(f"  · {count}", "dim")
    if item.failed:
        label.append(f"  {one_line(item.error_text or item.status, 200)}", "red")
    node = parent.add(label)
    if item.type in ("mcp_call", "mcp_approval_request", "function_call"):
        if item.arguments:
            node.add(Text.assemble(("arguments ", "dim"), one_line(item.arguments, 300)))
        if item.output is not None:
            node.add(Text.assemble(("output ", "dim"), one_line(str(item.output), 300)))
        if item.error is not None:
            node.add(Text.assemble(("error ", "red"), one_line(item.error_text, 600)))
    elif item.type == "mcp_list_tools":
        if item.lists_tools:
            names = item.tool_names
            listed = one_line(", ".join(names), 300)
            node.add(Text.assemble((f"tools ({len(names)}) ", "dim"), listed))
        if item.error is not None:
            node.add(Text.assemble(("error ", "red"), one_line(item.error_text, 600)))
    elif item.type == "message" and item.text:
        node.add(Text.assemble(("text ", "dim"), one_line(item.text, 200)))


def failures_section(inspection: Inspection) -> RenderableType:
    found = inspection.failures
    tree = Tree(Text(f"Failures ({len(found)})", style="bold red"), guide_style="red")
    for failure in found:
        line = Text("✗ ", "bold red")
        line.append(visible(failure.type), "bold")
        if failure.name:
            line.append(f" {visible(failure.name)}", "bold")
        line.append(f"  {one_line(failure.error, 600)}", "red")
        where = " ".join(x for x in (failure.response_id, failure.item_id) if x)
        if where:
            line.append(f"  ({visible(where)})", "dim")
        add_causes(tree.add(line), inspection.causes_of(failure))
    return tree


def add_causes(
    parent: Tree, causes: Sequence[LikelyCause], actions: Mapping[str, Text] | None = None
) -> None:
    """Confirmed and likely causes with their evidence and what to try, then one line naming
    the causes that are merely possible. `actions` (by cause key) follow a cause's "try": how
    to do it from here, a key in the app or the command to run."""
    shown = worth_a_paragraph(causes)
    for cause in shown:
        node = parent.add(
            Text.assemble(
                (f"{cause.confidence} cause: ", "dim"), (cause.cause.title, "bold yellow")
            )
        )
        for evidence in cause.evidence:
            node.add(Text.assemble(("evidence ", "dim"), one_line(evidence, 400)))
        tried = Text.assemble(("try ", "dim"), cause.cause.fix)
        action = (actions or {}).get(cause.cause.key)
        if action is not None:
            tried.append("\n").append_text(action)
        node.add(tried)
    rest = [c for c in causes if c not in shown]
    if rest:
        parent.add(
            Text.assemble(("also possible: ", "dim"), ", ".join(c.cause.title for c in rest))
        )


TIMING_BAR_WIDTH = 24


def timing_section(report: TimingReport) -> RenderableType:
    """One row per item: when it started, how long it took, the tool's own time, a bar."""
    table = Table(
        title=Text("Timing", style="bold"),
        title_justify="left",
        box=None,
        padding=(0, 1),
        show_edge=False,
    )
    for name, justify in (
        ("item", "left"),
        ("status", "left"),
        ("start", "right"),
        ("duration", "right"),
        ("tool", "right"),
        ("", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    axis_start, axis_end = report.start or 0.0, report.end or 0.0
    for row in report.items:
        label = f"#{'?' if row.output_index is None else row.output_index} {row.type}"
        if row.name:
            label += f" {row.name}"
        bar = Text()
        if row.start is not None and row.end is not None:
            offset, length = bar_span(row.start, row.end, axis_start, axis_end, TIMING_BAR_WIDTH)
            bar.append(" " * offset)
            bar.append("█" * length, "red" if row.failed else "green")
        table.add_row(
            Text(one_line(label, 40)),
            marked_status(row.status),
            seconds(None if row.start is None else row.start - axis_start),
            seconds(row.duration),
            seconds(row.tool_seconds),
            bar,
        )
    return table


def findings_section(found: Sequence[Finding]) -> RenderableType:
    """Findings, identical ones folded into one line with a count."""
    counts = count_by_severity(found)
    summary = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n)
    style = "bold red" if counts["error"] else "bold yellow" if counts["warning"] else "bold"
    tree = Tree(Text(f"Findings ({summary})", style=style), guide_style="dim")
    folded: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in found:
        folded.setdefault((finding.severity, finding.code, finding.message), []).append(finding)
    for (severity, code, message), same in list(folded.items())[:200]:
        mark, mark_style = FINDING_MARK.get(severity, ("·", ""))
        line = Text(f"{mark} ", mark_style)
        line.append(f"{code}  ", "bold")
        line.append(one_line(message, 400))
        first = same[0]
        if first.event_index is not None:
            line.append(
                f"  (event {first.event_index + 1}"
                + (f", ×{len(same)}" if len(same) > 1 else "")
                + ")",
                "dim",
            )
        elif len(same) > 1:
            line.append(f"  (×{len(same)})", "dim")
        node = tree.add(line)
        if first.suggestion:
            node.add(
                Text.assemble(
                    (f"{suggestion_label(first)} ", "dim"),
                    (one_line(first.suggestion, 300), "bold"),
                )
            )
    if len(folded) > 200:
        tree.add(Text(f"… and {len(folded) - 200} more kinds of finding", "dim"))
    return tree


def problems_section(problems: Problems) -> RenderableType:
    total = problems.total  # identical ones beyond a few are only counted
    tree = Tree(Text(f"Problems reading the input ({total})", style="bold yellow"))
    for problem in problems[:200]:
        tree.add(Text(one_line(str(problem), 300), style="yellow"))
    if total > 200:
        tree.add(Text(f"… and {total - 200} more", style="yellow"))
    return tree
