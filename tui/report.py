"""`mcptui inspect`: a Rich tree per response, a Failures section, and the `--json` form.

Every string from the stream goes into `rich.text.Text` as plain text (never markup) after
`visible()`, so markup and escape sequences in event content show literally.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from tui.model.state import ItemState, ResponseState
from tui.model.summary import Failure, failures, response_failures, response_json
from tui.model.textsafe import one_line, visible
from tui.model.timeline import Timeline
from tui.recording import Loaded, Problem
from tui.styles import STATUS_MARK, seconds, status_text

EXIT_CLEAN, EXIT_FAILURE, EXIT_UNUSABLE = 0, 1, 2


@dataclass
class Inspection:
    """One file, folded to its end."""

    loaded: Loaded
    timeline: Timeline
    failures: list[Failure] = field(default_factory=list)

    @classmethod
    def of(cls, loaded: Loaded) -> Inspection:
        timeline = Timeline(loaded.events, loaded.snapshots)
        timeline.seek_end()
        return cls(loaded, timeline, failures(timeline.state, timeline.events))


def exit_code(inspections: Sequence[Inspection]) -> int:
    if not any(i.loaded.usable for i in inspections):
        return EXIT_UNUSABLE
    return EXIT_FAILURE if any(i.failures for i in inspections) else EXIT_CLEAN


def to_json(inspections: Sequence[Inspection]) -> dict[str, Any]:
    return {
        "files": [{"path": i.loaded.source, "format": i.loaded.format,
                   "events": len(i.loaded.events)} for i in inspections],
        "responses": [response_json(r) for i in inspections for r in i.timeline.state.responses],
        "failures": [f.as_json() for i in inspections for f in i.failures],
        "problems": [{"file": i.loaded.source, "line": p.line, "message": p.message}
                     for i in inspections for p in i.loaded.problems],
    }


def print_json(inspections: Sequence[Inspection], console: Console) -> None:
    console.print_json(json.dumps(to_json(inspections), ensure_ascii=False, default=str))


def render(inspection: Inspection) -> RenderableType:
    """The whole human report for one file."""
    parts: list[RenderableType] = []
    loaded = inspection.loaded
    title = Text.assemble((visible(loaded.source or "<input>"), "bold"),
                          (f"  {loaded.format} · {len(loaded.events)} events", "dim"))
    parts.append(title)
    for resp in inspection.timeline.state.responses:
        parts.append(response_tree(resp, inspection))
    if inspection.failures:
        parts.append(failures_section(inspection.failures))
    if loaded.problems:
        parts.append(problems_section(loaded.problems))
    return Group(*parts)


def marked_status(status: str | None) -> Text:
    """`✓ completed`, `✗ failed`: the mark keeps the status readable without colour."""
    return Text(f"{STATUS_MARK.get(status or '', '…')} ").append_text(status_text(status))


def response_tree(resp: ResponseState, inspection: Inspection) -> Tree:
    label = Text.assemble((visible(resp.id or "response (no id)"), "bold"), "  ")
    if resp.model:
        label.append(visible(resp.model) + "  ", "magenta")
    label.append_text(marked_status(resp.status))
    if resp.duration is not None:
        label.append(f"  {seconds(resp.duration)}", "dim")
    if resp.usage:
        usage = resp.usage
        label.append(f"  tokens in {usage.get('input_tokens', '?')} out "
                     f"{usage.get('output_tokens', '?')} total {usage.get('total_tokens', '?')}",
                     "dim")
    tree = Tree(label, guide_style="dim")
    for item in resp.items:
        item_node(tree, item)
    for failure in response_failures(resp, inspection.timeline.events):
        tree.add(Text(f"✗ {failure.type}  {one_line(failure.error, 300)}", style="bold red"))
    return tree


def item_node(parent: Tree, item: ItemState) -> None:
    label = Text(f"#{item.output_index if item.output_index is not None else '?'} ", "dim")
    label.append(visible(item.type), "bold red" if item.failed else "bold")
    if item.name:
        label.append(f" {visible(item.name)}", "bold")
    if item.server_label:
        label.append(f" @{visible(item.server_label)}", "blue")
    label.append("  ")
    label.append_text(marked_status(item.status))
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
        names = item.tool_names
        node.add(Text.assemble((f"tools ({len(names)}) ", "dim"), one_line(", ".join(names), 300)))
        if item.error is not None:
            node.add(Text.assemble(("error ", "red"), one_line(item.error_text, 600)))
    elif item.type == "message" and item.text:
        node.add(Text.assemble(("text ", "dim"), one_line(item.text, 200)))


def failures_section(found: Sequence[Failure]) -> RenderableType:
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
        tree.add(line)
    return tree


def problems_section(problems: Sequence[Problem]) -> RenderableType:
    tree = Tree(Text(f"Problems reading the input ({len(problems)})", style="bold yellow"))
    for problem in problems[:200]:
        tree.add(Text(one_line(str(problem), 300), style="yellow"))
    if len(problems) > 200:
        tree.add(Text(f"… and {len(problems) - 200} more", style="yellow"))
    return tree
