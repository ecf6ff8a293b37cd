"""`mcptui diff A B [--json] [--no-tui] [--max-bytes N]`: compare two runs.

Loads and folds both files and compares them (`mcptui.model.run_diff`); `mcptui.cli.diff` shows
the result: the app (`mcptui.ui.screens.diff_screen`) when standard output is a terminal, else
(or with `--no-tui`) this module's text, or with `--json` this JSON object (keys are stable;
scripts may rely on them):

    {
      "same": bool,                    # the same shape: no shape difference
      "a": {"file", "format", "events", "responses": [{"id", "status", "model", "items"}]},
      "b": {…as "a"},
      "first": Change | null,          # the first shape difference in B's event order
      "first_failure": Change | null,  # the first shape difference where B failed
      "differences": [Change, …],      # all of them, shape and informational, B's order
      "counts": {"shape": int, "informational": int},
      "alignment": [{"response", "marker", "a": {"id", "status"} | null, "b": …,
                     "items": [{"marker", "a": Item | null, "b": Item | null}]}],
      "notes": [str, …]
    }

A Change is `{"kind", "shape", "subject", "summary", "line", "response", "item",
"b_event_index", "a", "b"}` plus, where they apply, `"b_error"`, `"b_likely_causes"` (as
`inspect --json` gives them), `"paths"` (`[{"path", "change", "a"?, "b"?}]`: an argument or
schema JSON diff; change is added / removed / type / changed), `"more_paths"` and `"tools"`
(`[{"tool", "change", "fields"?: [{"field", "change"}], "paths"?}]`). An Item is
`{"label", "type", "name", "server_label", "output_index", "status"}`. Markers: `=` the same,
`≠` differs in shape, `~` informational differences only, `+` only in B, `−` only in A.
Which kinds are shape and which informational: see `mcptui.model.run_diff`.

Exit 0: the same shape; 1: they differ in shape; 2: a file could not be used. Everything from
the files passes through redaction, and the text form through `visible()`: markup and escape
sequences in a stream never take effect.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from mcptui.io.reading import MAX_BYTES
from mcptui.io.recording import Loaded
from mcptui.model.jsonsafe import dumps_indented
from mcptui.model.redaction import redact, redact_text
from mcptui.model.run_diff import (
    Change,
    Comparison,
    ItemPair,
    ResponsePair,
    Run,
    compare,
    item_label,
)
from mcptui.model.textsafe import json_safe, one_line, visible

EXIT_SAME, EXIT_DIFFERENT, EXIT_UNUSABLE = 0, 1, 2
MARK_STYLE = {"=": "dim", "≠": "bold red", "~": "yellow", "+": "green", "−": "red"}


def compare_files(
    path_a: str, path_b: str, max_bytes: int = MAX_BYTES
) -> tuple[list[Loaded], Comparison | None]:
    """Both files as loaded, and their comparison (None when either cannot be used)."""
    from mcptui.io.formats import load_path
    from mcptui.share.inspect_output import Inspection

    loaded = [load_path(path, max_bytes) for path in (path_a, path_b)]
    if not all(one.usable for one in loaded):
        return loaded, None
    inspections = [Inspection.of(one) for one in loaded]
    runs = [Run(i.timeline.state, i.timeline.events, i.diagnosis) for i in inspections]
    return loaded, compare(*runs)


def unusable_reason(loaded: Loaded) -> str:
    """`<file>: <its first problem>`, the file named once."""
    reason = str(loaded.problems[0]) if loaded.problems else "no events in it"
    return reason if loaded.source and loaded.source in reason else f"{loaded.source}: {reason}"


# -- JSON -----------------------------------------------------------------------------------


def to_json(comparison: Comparison, loaded: Sequence[Loaded]) -> dict[str, Any]:
    """The comparison as the module docstring describes it, redacted."""
    first, failure = comparison.first, comparison.first_failure
    shape = len(comparison.shape_changes)
    return redact(
        {
            "same": comparison.same,
            "a": side_json(comparison, loaded[0], "a"),
            "b": side_json(comparison, loaded[1], "b"),
            "first": first.as_json() if first else None,
            "first_failure": failure.as_json() if failure else None,
            "differences": [change.as_json() for change in comparison.changes],
            "counts": {"shape": shape, "informational": len(comparison.changes) - shape},
            "alignment": [pair_json(pair) for pair in comparison.responses],
            "notes": list(comparison.notes),
        }
    )


def side_json(comparison: Comparison, loaded: Loaded, side: str) -> dict[str, Any]:
    run = comparison.a if side == "a" else comparison.b
    return {
        "file": loaded.source,
        "format": loaded.format,
        "events": len(loaded.events),
        "responses": [
            {"id": resp.id, "status": resp.status, "model": resp.model, "items": len(resp.items)}
            for resp in run.state.responses
        ],
    }


def pair_json(pair: ResponsePair) -> dict[str, Any]:
    def response(side: Any) -> dict[str, Any] | None:
        return None if side is None else {"id": side.id, "status": side.status}

    return {
        "response": pair.position,
        "marker": pair.marker,
        "a": response(pair.a),
        "b": response(pair.b),
        "items": [row_json(row) for row in pair.items],
    }


def row_json(row: ItemPair) -> dict[str, Any]:
    def item(side: Any) -> dict[str, Any] | None:
        if side is None:
            return None
        return {
            "label": item_label(side),
            "type": side.type,
            "name": side.name,
            "server_label": side.server_label,
            "output_index": side.output_index,
            "status": side.status,
        }

    return {"marker": row.marker, "a": item(row.a), "b": item(row.b)}


def print_json(comparison: Comparison, loaded: Sequence[Loaded]) -> None:
    """Indented JSON with the stdlib, inert on a terminal (`json_safe`)."""
    sys.stdout.write(json_safe(dumps_indented(to_json(comparison, loaded))))
    sys.stdout.write("\n")


# -- text -----------------------------------------------------------------------------------


def safe(text: str, limit: int = 600) -> str:
    """A string from a file as it may be printed: redacted, one line, controls escaped."""
    return one_line(redact_text(text), limit)


def change_mark(change: Change) -> str:
    """The change's marker, as a row's: `−` only in A, `+` only in B, `≠` shape, `~` info."""
    if change.kind == "only_in_a":
        return "−"
    if change.kind == "only_in_b":
        return "+"
    return "≠" if change.shape else "~"


def headline(comparison: Comparison) -> Text:
    shape = len(comparison.shape_changes)
    info = len(comparison.changes) - shape
    counted = f"{info} informational difference{'s' if info != 1 else ''}"
    if comparison.same:
        return Text(
            f"mcptui diff: the same shape ({counted})"
            if info
            else "mcptui diff: the same shape, no differences",
            "bold green",
        )
    return Text(
        f"mcptui diff: they differ: {shape} difference{'s' if shape != 1 else ''} in "
        f"shape, {counted}",
        "bold red",
    )


def side_line(name: str, loaded: Loaded, run: Run) -> Text:
    statuses = ", ".join(resp.status or "unknown" for resp in run.state.responses)
    count = len(run.state.responses)
    line = Text.assemble((f"{name} ", "bold"), (visible(loaded.source or "<input>"), "bold"))
    line.append(
        f"  {visible(loaded.format)} · {len(loaded.events)} events · {count} "
        f"response{'s' if count != 1 else ''}" + (f": {visible(statuses)}" if statuses else ""),
        "dim",
    )
    return line


def first_lines(comparison: Comparison) -> list[Text]:
    """`first divergence: …` and, when it is another one, `first failure in B: …`."""
    first, failure = comparison.first, comparison.first_failure
    if first is None:
        return []
    lines = [Text.assemble(("first divergence: ", "bold"), (safe(first.line), "bold yellow"))]
    if failure is not None and failure is not first:
        lines.append(
            Text.assemble(("first failure in B: ", "bold"), (safe(failure.line), "bold red"))
        )
    return lines


def change_lines(change: Change, *, subject: bool = True, causes: bool = True) -> list[Text]:
    """One line for the change, then its details indented: argument paths, tool changes,
    B's likely causes. A view that names the row already leaves out the `subject`; one that
    shows the causes in full leaves out `causes`."""
    mark = change_mark(change)
    style = "red" if change.b_failed else MARK_STYLE[mark] if mark != "≠" else ""
    said = f"{change.subject}: {change.summary}" if subject else change.summary
    lines = [Text.assemble((f"{mark} ", MARK_STYLE[mark]), (safe(said), style))]
    for path in change.paths:
        lines.append(Text("    " + safe(path.line, 300), "dim"))
    if change.more_paths:
        lines.append(Text(f"    … and {change.more_paths} more", "dim"))
    for tool in change.tools:
        sign = {"added": "+", "removed": "−"}.get(tool.change, "≠")
        lines.append(Text(f"    {sign} " + safe(tool.line, 300), "dim"))
        for path in tool.paths[:10]:
            lines.append(Text("        " + safe(path.line, 300), "dim"))
    for rank, cause in enumerate(change.causes if causes else ()):
        if rank == 0:
            lines.append(
                Text.assemble(
                    ("    likely cause ", "dim"),
                    (f"({cause.confidence}) ", "dim"),
                    (cause.cause.title, "bold yellow"),
                )
            )
        else:
            lines.append(Text(f"    also {cause.confidence}: {cause.cause.title}", "dim"))
    return lines


def render(comparison: Comparison, loaded: Sequence[Loaded]) -> RenderableType:
    """The whole text form: headline, both files, first divergence, the differences (shape
    first, then informational), notes."""
    parts: list[RenderableType] = [
        headline(comparison),
        side_line("A", loaded[0], comparison.a),
        side_line("B", loaded[1], comparison.b),
    ]
    parts += first_lines(comparison)
    shape = comparison.shape_changes
    info = [change for change in comparison.changes if not change.shape]
    for title, changes in (
        (f"Differences in shape ({len(shape)})", shape),
        (f"Informational ({len(info)})", info),
    ):
        if changes:
            parts.append(Text(title, "bold"))
            parts += [line for change in changes for line in change_lines(change)]
    if comparison.notes:
        parts.append(Text("Notes", "bold"))
        parts += [Text(f"  {safe(note)}", "dim") for note in comparison.notes]
    return Group(*parts)
