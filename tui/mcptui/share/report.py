"""`mcptui report`: one redacted report of a run, ready for a GitHub issue or a forum post.

People who hit a 424 paste raw events: long, unredacted and hard to read. The report leads with
what failed and why (error, likely cause, evidence, what to try), keeps the request and each
response as compact tables, and folds the raw events that matter (the failed items', each
response's terminal event) into collapsed `<details>` blocks.

Every string from a file goes through `mcptui.share.markdown` (shown literally), and the whole
document through the redaction a recording gets, plus the request's own secrets (tokens in
its server URLs) wherever they appear. HTML is the same Markdown rendered by markdown-it-py
into one file with inline CSS: no script, no external asset.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from mcptui import __version__
from mcptui.model.causes import LikelyCause, worth_a_paragraph
from mcptui.model.events import Event, is_wire_note
from mcptui.model.jsonsafe import dumps_indented, loads
from mcptui.model.providers import differs, stream_provider
from mcptui.model.redaction import (
    hide_known,
    json_text_secrets,
    redact,
    redact_json_text,
    redact_text,
    request_secrets,
)
from mcptui.model.reducer import TERMINAL_TYPES
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import item_status
from mcptui.model.summary import response_notes
from mcptui.model.textsafe import one_line
from mcptui.share import markdown as md
from mcptui.share.inspect_output import Inspection, folded_findings, token_count
from mcptui.share.status_marks import FINDING_MARK, STATUS_MARK, note_text
from mcptui.sources.session import request_id_in

MAX_ITEM_ROWS = 200
MAX_BLOCK_EVENTS = 60
"""Events shown in one collapsed block (deltas are many): the first ones, then a count."""
MAX_JSON_CHARS = 20_000
MAX_FINDING_ROWS = 40


def report_title(inspections: Sequence[Inspection]) -> str:
    names = [Path(i.loaded.source or "input").name for i in inspections]
    return "mcptui report: " + ", ".join(names[:3]) + (" …" if len(names) > 3 else "")


def markdown_report(
    inspections: Sequence[Inspection], *, secrets: Sequence[str] = (), made: datetime | None = None
) -> str:
    """The whole report as GitHub-flavoured Markdown, redacted. `secrets`: values to hide
    besides those the files' requests name (a live run's MCP credentials)."""
    known = set(secrets)
    for inspection in inspections:
        known.update(request_secrets((inspection.loaded.header or {}).get("request")))
        for resp in inspection.timeline.state.responses:  # `{"api_key": …}` as an argument
            for item in resp.items:
                known.update(json_text_secrets(item.arguments) if item.arguments else ())
    with md.hiding(sorted(known)):
        parts = [f"# {md.text(report_title(inspections))}"]
        if len(inspections) > 1:
            parts += overview(inspections)
        for inspection in inspections:
            parts += file_section(inspection, several=len(inspections) > 1)
        parts.append(footer(made or datetime.now(UTC)))
    document = "\n\n".join(part for part in parts if part) + "\n"
    # Each string was redacted on its way in; this pass only guards against one that wasn't.
    return hide_known(redact_text(document), sorted(known, key=len, reverse=True))


# -- sections ------------------------------------------------------------------------------


def file_section(inspection: Inspection, *, several: bool) -> list[str]:
    """One file's part; with several files each is a `##` section of its own."""
    loaded = inspection.loaded
    depth = 3 if several else 2
    parts: list[str] = []
    if several:
        parts.append(f"## {md.text(Path(loaded.source or 'input').name)}")
    parts.append(
        f"{md.code(loaded.source or '<input>')} · {md.text(loaded.format)} · "
        f"{len(loaded.events):,} events"
    )
    parts.append(verdict(inspection))
    parts += request_section(inspection, depth)
    for resp in inspection.timeline.state.responses:
        parts += response_section(resp, inspection, depth)
    if inspection.failures:
        parts += failures_section(inspection, depth)
    parts += findings_section(inspection, depth)
    if loaded.problems:
        rows = [[md.text(str(p), 300)] for p in loaded.problems[:50]]
        parts += [
            f"{heading(depth)} Problems reading the input ({loaded.problems.total})",
            md.table(["problem"], rows),
        ]
    parts += events_section(inspection, depth)
    return parts


def heading(depth: int) -> str:
    return "#" * depth


def overview(inspections: Sequence[Inspection]) -> list[str]:
    """Several files: which failed and how, before each file's own section."""
    rows = []
    for inspection in inspections:
        found = inspection.failures
        first = found[0] if found else None
        causes = worth_a_paragraph(inspection.causes_of(first)) if first else []
        rows.append(
            [
                md.text(Path(inspection.loaded.source or "input").name),
                str(len(inspection.timeline.state.responses)),
                "unusable"
                if not inspection.loaded.usable
                else f"✗ {len(found)}"
                if found
                else "✓ 0",
                md.text(
                    " ".join(x for x in (first.type, first.name) if x) + f": {first.error}", 160
                )
                if first
                else "",
                md.text(
                    causes[0].cause.title
                    + (f" (+{len(causes) - 1} more)" if len(causes) > 1 else "")
                )
                if causes
                else "",
            ]
        )
    failed = sum(1 for i in inspections if i.failures)
    return [
        f"## Overview: {failed} of {len(inspections)} files with a failure",
        md.table(["file", "responses", "failures", "first failure", "cause"], rows, align="lrrll"),
    ]


def verdict(inspection: Inspection) -> str:
    """The first thing a reader sees: what failed and its most likely cause, or that
    nothing did."""
    found = inspection.failures
    responses = inspection.timeline.state.responses
    if not inspection.loaded.usable:
        return "> **Nothing usable could be read from this file.**"
    if not found:
        statuses = ", ".join(sorted({r.status or "?" for r in responses})) or "no response"
        plural = "" if len(responses) == 1 else "s"
        return f"> **No failure.** {len(responses)} response{plural}: {md.text(statuses)}."
    lines = [f"> **✗ {len(found)} failure{'s' if len(found) != 1 else ''}**"]
    for failure in found[:5]:
        what = " ".join(x for x in (failure.type, failure.name) if x)
        lines.append(
            f"> - {md.code(what)}: {md.text(failure.error, 400)}"
            + cause_gist(inspection.causes_of(failure))
        )
    if len(found) > 5:
        lines.append(f"> - … and {len(found) - 5} more")
    return "\n".join(lines)


def request_section(inspection: Inspection, depth: int) -> list[str]:
    """The request as recorded (redacted), else the tools response.created echoed."""
    header = inspection.loaded.header or {}
    request = header.get("request")
    tools: list[Any] = []
    parts = [f"{heading(depth)} Request"]
    if isinstance(request, dict):
        request = redact(request)
        rows = [["model", md.code(str(request.get("model", "")))]]
        if isinstance(header.get("endpoint"), str):
            rows.append(["endpoint", md.code(header["endpoint"])])
        if differs(provider := stream_provider(header)):
            rows.append(["provider", md.code(provider or "")])
        if "input" in request:
            rows.append(["input", md.text(compact(request["input"]), 300)])
        for key in (
            "instructions",
            "previous_response_id",
            "background",
            "stream",
            "tool_choice",
            "max_output_tokens",
            "store",
            "metadata",
        ):
            if request.get(key) not in (None, "", {}):
                rows.append([key, md.code(compact(request[key]))])
        parts.append(md.table(["", "value"], rows))
        tools = request.get("tools") if isinstance(request.get("tools"), list) else []
    else:
        echoed = next((r.tools for r in inspection.timeline.state.responses if r.tools), [])
        if not echoed:
            return []
        tools = echoed
        parts.append("No request in this file; the tools as the response echoed them:")
    if tools:
        parts.append(tools_table(tools))
    return parts


def tools_table(tools: Sequence[Any]) -> str:
    rows = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        headers = headers if isinstance(headers := tool.get("headers"), dict) else {}
        credentials = [f"{name}: <redacted>" for name in headers]
        if tool.get("authorization"):
            credentials.append("authorization: <redacted>")
        allowed = tool.get("allowed_tools")
        rows.append(
            [
                md.text(str(tool.get("type", "?"))),
                md.text(str(tool.get("server_label") or tool.get("name") or "")),
                md.code(str(tool.get("server_url") or tool.get("connector_id") or ""))
                if tool.get("server_url") or tool.get("connector_id")
                else "",
                md.text(", ".join(credentials)),
                md.text(
                    compact(tool.get("require_approval"))
                    if tool.get("require_approval") is not None
                    else ""
                ),
                md.text(compact(allowed) if allowed is not None else "all"),
            ]
        )
    return "**Tools**\n\n" + md.table(
        ["type", "server label", "server URL", "credentials", "approval", "allowed tools"], rows
    )


def response_section(resp: ResponseState, inspection: Inspection, depth: int) -> list[str]:
    mark = STATUS_MARK.get(resp.status or "", "…")
    facts = [f"{mark} {resp.status or 'no status'}"]
    if resp.model:
        facts.append(md.code(resp.model))
    if resp.duration is not None:
        facts.append(f"{resp.duration:.2f} s")
    if resp.usage:
        facts.append(
            "tokens in {} · out {} · total {}".format(
                *(
                    token_count(resp.usage, key)
                    for key in ("input_tokens", "output_tokens", "total_tokens")
                )
            )
        )
    request_id = response_request_id(resp, inspection)
    if request_id:
        facts.append(f"x-request-id {md.code(request_id)}")
    title = f"{heading(depth)} Response {md.code(resp.id or '(no id)')}"
    parts = [title, " · ".join(facts)]
    if resp.items:
        parts.append(items_table(resp, inspection))
    notes = [
        note
        for note in response_notes(resp, inspection.timeline.events)
        if not is_wire_note(note.raw)
    ]
    if notes:
        parts.append("Notes: " + "; ".join(md.text(note_text(n, 200).plain) for n in notes[:10]))
    return parts


def response_request_id(resp: ResponseState, inspection: Inspection) -> str | None:
    """`x-request-id` of the answer this response came in (what OpenAI support asks for
    first): the last request note before it, else the recording's first answer."""
    events = inspection.timeline.events
    for index in range(min(resp.events, default=len(events) - 1), -1, -1):
        event = events[index]
        if event.note_kind == "request":
            found = request_id_in({"headers": event.raw.get("http_headers")})
            if found:
                return found
    return request_id_in((inspection.loaded.header or {}).get("http"))


def items_table(resp: ResponseState, inspection: Inspection) -> str:
    timing = inspection.diagnosis.item_timing
    zero = inspection.diagnosis.timing.start or 0.0
    rows = []
    for item in resp.items[:MAX_ITEM_ROWS]:
        shown = item_status(resp, item)
        row_timing = timing.get((resp.key, item.key))
        start = row_timing.start if row_timing else None
        rows.append(
            [
                "?" if item.output_index is None else str(item.output_index),
                md.text(item_label(item)),
                md.text(f"{STATUS_MARK.get(shown.word, '…')} {shown.word}"),
                "" if start is None else f"{start - zero:.2f} s",
                "" if item.duration is None else f"{item.duration:.2f} s",
                ""
                if not row_timing or row_timing.tool_seconds is None
                else f"{row_timing.tool_seconds:.2f} s",
                md.text(item.error_text, 160) if item.failed else md.text(item_gist(item), 80),
            ]
        )
    table = md.table(
        ["#", "item", "status", "start", "took", "tool", "error / gist"], rows, align="rllrrrl"
    )
    if len(resp.items) > MAX_ITEM_ROWS:
        table += f"\n\n… and {len(resp.items) - MAX_ITEM_ROWS} more items"
    return table


def item_label(item: ItemState) -> str:
    label = item.type + (f" {item.name}" if item.name else "")
    return label + (f" @{item.server_label}" if item.server_label else "")


def item_gist(item: ItemState) -> str:
    if item.type == "mcp_list_tools":
        return f"{len(item.tool_names)} tools: " + ", ".join(item.tool_names)
    if item.type in ("mcp_call", "function_call") and item.arguments:
        return redact_json_text(item.arguments)
    if item.type == "message":
        return item.text
    return ""


def failures_section(inspection: Inspection, depth: int) -> list[str]:
    parts = [f"{heading(depth)} Failures ({len(inspection.failures)})"]
    events = inspection.timeline.events
    state = inspection.timeline.state
    for failure in inspection.failures:
        what = " ".join(x for x in (failure.type, failure.name) if x)
        resp = state.responses[failure.response_key] if failure.response_key is not None else None
        item = resp.items[failure.item_key] if resp and failure.item_key is not None else None
        where = f" @{item.server_label}" if item and item.server_label else ""
        parts.append(f"{heading(depth + 1)} ✗ {md.text(what + where)}")
        parts.append("**Error**\n\n" + md.fence(failure.error, "text"))
        parts.append(causes_markdown(inspection.causes_of(failure)))
        if item is not None and item.arguments:
            parts.append("**Arguments**\n\n" + md.fence(pretty(item.arguments), "json"))
        if resp is not None and item is not None:
            wire = inspection.diagnosis.links[resp.key].item_notes(item.key)
            if wire:
                parts.append(wire_table(wire, events, inspection.diagnosis.timing.start))
    return parts


CONFIDENCE_WORD = {
    "confirmed": "Confirmed cause",
    "likely": "Likely cause",
    "possible": "Possible cause",
}


def cause_gist(causes: Sequence[LikelyCause]) -> str:
    """The summary's word on the cause: the one named, or honestly the candidates when the
    stream cannot tell them apart."""
    shown = worth_a_paragraph(causes)
    if not shown:
        return ""
    if shown[0].confidence != "possible" or len(shown) == 1:
        word = CONFIDENCE_WORD.get(shown[0].confidence, "Cause").lower()
        return f" · {word}: **{md.text(shown[0].cause.title)}**"
    names = ", ".join(md.text(c.cause.title) for c in shown)
    return (
        f" · {len(shown)} possible causes the stream cannot tell apart ({names}); "
        "`mcptui probe` on this file calls the tool and tells which"
    )


def causes_markdown(causes: Sequence[LikelyCause]) -> str:
    if not causes:
        return (
            "_No likely cause could be named from this file (a probe or a tap would tell "
            "more: `mcptui probe`, `mcptui run --tap`)._"
        )
    lines = []
    shown = worth_a_paragraph(causes)
    for cause in shown:
        word = CONFIDENCE_WORD.get(cause.confidence, "Cause")
        lines.append(f"- **{word}: {md.text(cause.cause.title)}**")
        lines.append(f"  - why: {md.text(cause.cause.why, 600)}")
        lines += [f"  - evidence: {md.text(line, 600)}" for line in cause.evidence]
        lines.append(f"  - try: {md.text(cause.cause.fix, 600)}")
    rest = [c for c in causes if c not in shown]
    if rest:
        lines.append("- Also possible: " + ", ".join(md.text(c.cause.title) for c in rest))
    return "\n".join(lines)


def wire_table(indexes: Sequence[int], events: Sequence[Event], start: float | None) -> str:
    """What the tap saw on the MCP wire for this call: the evidence behind a `tap:` line,
    timed from `start` (the session's first timed event, as every clock shown)."""
    zero = start or 0.0
    rows = [
        [
            "" if (t := events[i].t) is None else f"{t - zero:.2f} s",
            md.text(note_text(events[i], 300).plain),
        ]
        for i in indexes
    ]
    return "**MCP traffic (tap)**\n\n" + md.table(["time", "message"], rows, align="rl")


def findings_section(inspection: Inspection, depth: int) -> list[str]:
    folded = folded_findings(inspection)
    if not folded:
        return []
    rows = [
        [
            f"{FINDING_MARK.get(entry['severity'], ('·', ''))[0]} {entry['severity']}",
            md.code(entry["code"]),
            md.text(entry["message"], 300),
            str(entry["count"]),
            ", ".join(str(i + 1) for i in entry["event_indexes"][:5]),
        ]
        for entry in folded[:MAX_FINDING_ROWS]
    ]
    table = md.table(["", "finding", "message", "count", "events"], rows, align="lllrl")
    if len(folded) > MAX_FINDING_ROWS:
        table += f"\n\n… and {len(folded) - MAX_FINDING_ROWS} more kinds of finding"
    return [f"{heading(depth)} Findings ({len(inspection.diagnosis.findings)})", table]


def events_section(inspection: Inspection, depth: int) -> list[str]:
    """The raw events a helper asks for: each failed item's (and the tap messages tied to
    it), and each response's terminal event, collapsed."""
    events = inspection.timeline.events
    blocks: list[str] = []
    for resp in inspection.timeline.state.responses:
        for item in resp.items:
            if item.failed and item.events:
                label = item_label(item)
                blocks.append(
                    md.details(
                        f"Events of {label} ({len(item.events)})",
                        event_lines([events[i] for i in item.events]),
                    )
                )
        for index in resp.error_events:
            blocks.append(
                md.details(
                    f"Error event ({events[index].type})",
                    md.fence(pretty_json(events[index].raw), "json"),
                )
            )
        terminal = terminal_event(resp, events)
        if terminal is not None:
            blocks.append(
                md.details(
                    f"Terminal event: {terminal.type} (event {terminal.index + 1})",
                    md.fence(pretty_json(terminal.raw), "json"),
                )
            )
    if not blocks:
        return []
    return [f"{heading(depth)} Raw events", *blocks]


def terminal_event(resp: ResponseState, events: Sequence[Event]) -> Event | None:
    for index in reversed(resp.events):
        if events[index].type in TERMINAL_TYPES:
            return events[index]
    return None


def with_arguments_redacted(value: Any) -> Any:
    """`value` with every `arguments` JSON string's credential-named keys hidden (a tool
    called with `{"api_key": …}`): the one place a secret hides from `redact`."""
    if isinstance(value, dict):
        return {
            key: redact_json_text(item)
            if key == "arguments" and isinstance(item, str)
            else with_arguments_redacted(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [with_arguments_redacted(item) for item in value]
    return value


def event_lines(chosen: Sequence[Event]) -> str:
    """One JSON object per line (the format the tool reads back), the first ones only."""
    lines = [
        json.dumps(with_arguments_redacted(e.raw), ensure_ascii=False, default=str)
        for e in chosen[:MAX_BLOCK_EVENTS]
    ]
    body = "\n".join(lines)
    if len(body) > MAX_JSON_CHARS:
        body = body[:MAX_JSON_CHARS] + "\n… (cut)"
    block = md.fence(body, "json")
    if len(chosen) > MAX_BLOCK_EVENTS:
        block += f"\n\n… and {len(chosen) - MAX_BLOCK_EVENTS} more events"
    return block


def pretty_json(value: Any) -> str:
    text = dumps_indented(with_arguments_redacted(value))
    return text if len(text) <= MAX_JSON_CHARS else text[:MAX_JSON_CHARS] + "\n… (cut)"


def pretty(arguments: str) -> str:
    """Arguments as sent, indented when they are JSON."""
    try:
        return pretty_json(redact(loads(arguments)))
    except ValueError:
        return arguments


def compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def footer(made: datetime) -> str:
    """One line that says what made the report: versions a maintainer asks for first."""
    try:
        sdk = metadata.version("openai")
    except metadata.PackageNotFoundError:
        sdk = "not installed"
    return (
        f"---\n\n<sub>mcptui {__version__} · openai-python {sdk} · Python "
        f"{platform.python_version()} · {platform.system() or 'unknown OS'} · report made "
        f"{made.strftime('%Y-%m-%d %H:%M UTC')}</sub>"
    )


# -- HTML ----------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; }
h1, h2, h3, h4 { line-height: 1.25; } h1, h2 { border-bottom: 1px solid #d1d9e0; }
table { border-collapse: collapse; margin: 0.5em 0 1em; display: block; overflow-x: auto; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; vertical-align: top; }
th { background: #f6f8fa; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
            font-size: 13px; }
code { background: #eff1f3; padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: #f6f8fa; padding: 12px; overflow-x: auto; border-radius: 6px; }
pre code { background: none; padding: 0; }
blockquote { margin: 0; padding: 0.2em 1em; border-left: 4px solid #cf222e; background: #fff5f5; }
details { margin: 0.5em 0; } summary { cursor: pointer; font-weight: 600; }
sub { color: #59636e; }
"""


def html_report(markdown: str, *, title: str) -> str:
    """One HTML file: the Markdown rendered (tables, fences, details), CSS inline. The title
    (file names) is made one safe line like every text in the body: an ESC or CSI in a file
    name would otherwise sit raw in the file, to act on the terminal of whoever cats it."""
    import html

    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": True}).enable("table")
    body = renderer.render(markdown)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(one_line(md.scrub(title), 300))}</title>\n"
        f"<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{body}</body>\n</html>\n"
    )
