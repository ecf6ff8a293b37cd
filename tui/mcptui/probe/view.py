"""Show a probe report as Rich trees: one per server, its tools, and the calls made.

The probe exists to name the cause OpenAI's "424" hides, so each call shows three lines side by
side: what OpenAI would report, the nested cause, and the checks; a recording's failed calls
then get a verdict each, the likely-cause rules' answer with the probe as evidence. Every
string from the network or the request goes through `visible`/`one_line` into `rich.text.Text`
as plain text, never as markup: a tool's output or a server's error cannot restyle or escape
the terminal.
Pure Rich (no Textual), so `mcptui probe` stays light and the app can embed the same view.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from mcptui.model.causes import LikelyCause
from mcptui.model.errors import describe_error
from mcptui.model.textsafe import one_line
from mcptui.probe.checks import Check, worst
from mcptui.probe.probing import (
    CallReport,
    ProbeReport,
    RevisionReport,
    ServerReport,
    ToolReport,
    Verdict,
    revisions_summary,
)

MARKS = {
    "ok": ("✓", "green"),
    "info": ("i", "blue"),
    "warning": ("!", "yellow"),
    "error": ("✗", "red"),
}
TRANSPORTS = {"streamable_http": "streamable HTTP", "sse": "SSE"}
TOOL_NAMES_SHOWN = 12
CANDIDATES_SHOWN = 3


def render(report: ProbeReport | ServerReport) -> RenderableType:
    """A whole probe (trees and a summary line), or one server's tree (the app's re-run)."""
    if isinstance(report, ServerReport):
        return server_tree(report)
    parts: list[RenderableType] = []
    parts += [_line("error", problem) for problem in report.problems]
    parts += [Text(f"· {one_line(note, 300)}", style="dim") for note in report.notes]
    parts += [server_tree(server) for server in report.servers]
    if report.verdicts:
        parts.append(verdict_tree(report.verdicts))
    parts.append(summary(report))
    return Group(*parts)


def verdict_tree(verdicts: list[Verdict]) -> Tree:
    """One line per recorded failed call: the confirmed cause, else the top candidates; the
    fix of a confirmed or likely cause under it."""
    tree = Tree(
        Text("verdict: the recorded failures, weighed with the probe", style="bold"),
        guide_style="dim",
    )
    for verdict in verdicts:
        node = tree.add(verdict_line(verdict))
        top = verdict.causes[0] if verdict.causes else None
        if top is not None and top.confidence != "possible":
            node.add(Text(f"fix: {one_line(top.cause.fix, 400)}", style="dim"))
    return tree


def verdict_line(verdict: Verdict) -> Text:
    """`tool (item id): confirmed: title`, or `likely: …; possible: …` when nothing is."""
    causes = verdict.causes
    confirmed = [c for c in causes if c.confidence == "confirmed"]
    shown = confirmed or causes[:CANDIDATES_SHOWN]
    label = _mark_text("error" if confirmed else "warning", one_line(verdict.tool, 80))
    if verdict.item_id:
        label.append(f" ({one_line(verdict.item_id, 80)})", style="dim")
    label.append(": ")
    if not shown:
        label.append("no known cause fits; see the call's checks above")
        return label
    label.append(_by_confidence(shown), style="bold" if confirmed else "")
    more = len(causes) - len(shown)
    if more > 0 and not confirmed:
        label.append(f" (+{more} more in --json)", style="dim")
    return label


def _by_confidence(causes: list[LikelyCause]) -> str:
    groups: dict[str, list[str]] = {}
    for cause in causes:
        groups.setdefault(cause.confidence, []).append(one_line(cause.cause.title, 100))
    return "; ".join(f"{confidence}: {', '.join(titles)}" for confidence, titles in groups.items())


def server_tree(server: ServerReport) -> Tree:
    tree = Tree(_server_label(server), guide_style="dim")
    if not server.reachable:
        if server.cause:
            tree.add(Text(f"cause: {one_line(server.cause, 400)}", style="dim"))
        if server.url and server.url not in (server.problem or ""):
            tree.add(Text(f"url: {one_line(server.url, 300)}", style="dim"))
    if server.headers:
        tree.add(
            Text(
                "headers sent (values hidden): "
                + ", ".join(one_line(h, 60) for h in server.headers),
                style="dim",
            )
        )
    _add_revisions(tree, server)
    for check in server.checks:
        if check.code in OAUTH_CODES:
            _add_oauth(tree, check)
        elif check.severity != "ok":
            tree.add(check_text(check))
    if server.reachable:
        _add_tools(tree, server)
    if server.calls:
        calls = tree.add(Text("calls", style="bold"))
        for call in server.calls:
            _add_call(calls, call)
    return tree


ANSWERED_KINDS = frozenset(
    {"closed", "protocol_error", "protocol_version", "header_mismatch", "missing_capability"}
)
"""Connection failures in which the server did answer (besides every `http_*` kind)."""
NOT_TRIED_KINDS = frozenset({"no_url", "redacted_url", "bad_transport"})
"""No connection was tried: there was nothing (usable) to connect to."""


def refused(server: ServerReport) -> bool:
    """A server that answered (HTTP 401, 404, a closed session, a JSON-RPC error) was reached
    and refused; only one that gave no answer at all is unreachable."""
    return not server.reachable and (
        (server.kind or "").startswith("http_") or server.kind in ANSWERED_KINDS
    )


def _server_label(server: ServerReport) -> Text:
    label = Text()
    if not server.reachable:
        verdict = (
            "not probed"
            if server.kind in NOT_TRIED_KINDS
            else "reachable but refusing"
            if refused(server)
            else "unreachable"
        )
        label.append("✗ ", style="red")
        label.append(one_line(server.server_label, 80), style="bold")
        label.append(
            f"  {verdict}: {one_line(server.problem or 'not connected', 400)}", style="red"
        )
        return label
    label.append("✓ ", style="green")
    label.append(one_line(server.server_label, 80), style="bold")
    label.append(f"  {one_line(server.url or '', 200)}  ")
    details = [TRANSPORTS.get(server.transport or "", server.transport or "?")]
    if server.protocol_version:
        details.append(f"protocol {one_line(server.protocol_version, 40)}")
    if server.server_name:
        name = " ".join(p for p in (server.server_name, server.server_version) if p)
        details.append(one_line(name, 80))
    if server.initialize_seconds is not None:
        details.append(f"init {server.initialize_seconds:.2f} s")
    if server.list_seconds is not None:
        details.append(f"list {server.list_seconds:.2f} s")
    label.append(" · ".join(details), style="dim")
    return label


def _add_revisions(tree: Tree, server: ServerReport) -> None:
    """Which MCP revisions the server speaks, and one line per era asked."""
    summary = revisions_summary(server)
    if summary is None:
        return
    node = tree.add(Text(f"revisions: {one_line(summary, 400)}", style="bold"))
    for revision in server.revisions.values():
        node.add(revision_line(revision))
    if server.era_note:
        node.add(_mark_text("info", one_line(server.era_note, 500)))


def revision_line(revision: RevisionReport) -> Text:
    """`✓ 2026-07-28 (server/discover): mcptui-demo 1.0 · 9 tools`, or what it answered."""
    head = f"{one_line(revision.revision, 40)} ({revision.method}): "
    if not revision.speaks:
        said = (
            f"answered {revision.answer}"
            if revision.answer is not None
            else f"no answer: {revision.problem or 'unknown'}"
        )
        # An answer is a fact about the server, not a fault: a check says when it is one.
        return _mark_text(
            "info" if revision.answer is not None else "warning", head + one_line(said, 400)
        )
    details = []
    name = " ".join(p for p in (revision.server_name, revision.server_version) if p)
    details.append(one_line(name, 80) if name else "no serverInfo")
    if revision.tools is not None:
        count = len(revision.tools)
        details.append(f"{count} tool{'s' if count != 1 else ''} listed")
    elif revision.problem:
        details.append(f"listing failed: {revision.problem}")
    severity = "ok" if revision.tools is not None else "warning"
    return _mark_text(severity, head + one_line(" · ".join(details), 400))


def _add_tools(tree: Tree, server: ServerReport) -> None:
    # server.tools are the ones allowed_tools lets through: the server offered those and more.
    head = f"tools: {len(server.tools) + len(server.skipped_tools)} offered"
    if server.skipped_tools:
        head += (
            f", {len(server.tools)} allowed, {len(server.skipped_tools)} excluded by "
            "allowed_tools: " + _names(server.skipped_tools)
        )
    node = tree.add(Text(head, style="bold"))
    quiet: list[ToolReport] = []
    for tool in server.tools:
        notable = [c for c in tool.checks if _notable(c)]
        if not notable:
            quiet.append(tool)
            continue
        branch = node.add(_mark_text(worst(notable), one_line(tool.name, 80)))
        for check in notable:
            branch.add(check_text(check))
    if quiet:
        schemas = sum(1 for tool in quiet if tool.output_schema is not None)
        text = f"{len(quiet)} without remarks: {_names([t.name for t in quiet])}"
        if schemas:
            text += (
                f" ({schemas} declare an outputSchema: their results must carry "
                "matching structuredContent)"
            )
        node.add(_mark_text("ok", text))


def _notable(check: Check) -> bool:
    """Worth a line of its own: not "ok", and not the outputSchema remark every tool has."""
    return check.severity != "ok" and check.code != "output_schema"


def _add_call(parent: Tree, call: CallReport) -> None:
    node = parent.add(_call_label(call))
    if call.recorded_error:
        node.add(Text(f"recorded error: {one_line(call.recorded_error, 300)}", style="dim"))
    if call.called:
        if call.openai_error is not None:
            reported = one_line(describe_error(call.openai_error), 300)
            node.add(Text(f"OpenAI would report: {reported}"))
        if call.cause and call.kind != "tool_error":
            node.add(Text(f"nested cause: {one_line(call.cause, 400)}"))
        if call.ok and call.output_preview:
            flat = " ".join(call.output_preview.split())  # pretty-printed JSON, flattened
            node.add(Text(f"output: {one_line(flat, 200)}", style="dim"))
    for check in call.checks:
        node.add(check_text(check))


def _call_label(call: CallReport) -> Text:
    if not call.called:
        severity, outcome = "error", "not called"
    elif call.ok:
        severity, outcome = worst(call.checks), f"ok in {call.seconds:.2f} s"
    else:
        severity, outcome = "error", f"failed in {call.seconds:.2f} s"
    label = _mark_text(severity, one_line(call.tool, 80))
    if call.arguments is not None:
        label.append(f" {one_line(_json(call.arguments), 120)}", style="dim")
    label.append(f"  {outcome}")
    if call.source == "recording":
        label.append("  (re-run from the recording)", style="dim")
    return label


OAUTH_CODES = frozenset({"needs_oauth", "needs_token", "token_refused"})
"""The checks of a server that refused with 401/403 (`probing.oauth_check`): what it wants
first, then one line each for what it said, the flow it offers, and what to do."""


def _add_oauth(tree: Tree, check: Check) -> None:
    head, *rest = check.message.split("; ")
    node = tree.add(_line(check.severity, head))
    for part in rest:
        node.add(Text(one_line(part, 300), style="dim"))


def check_text(check: Check) -> Text:
    return _mark_text(check.severity, one_line(check.message, 500))


def _mark_text(severity: str, text: str) -> Text:
    mark, style = MARKS[severity]
    label = Text(f"{mark} ", style=style)
    label.append(text)
    return label


def _line(severity: str, text: str) -> Text:
    return _mark_text(severity, one_line(text, 500))


def summary(report: ProbeReport) -> Text:
    """The last line: servers reached, calls made and failed, the exit code."""
    servers = report.servers
    reached = sum(1 for s in servers if s.reachable)
    calls = [c for s in servers for c in s.calls]
    failed = sum(1 for c in calls if not c.ok)
    parts = [f"{reached} of {len(servers)} server{'s' if len(servers) != 1 else ''} usable"]
    refusing = sum(1 for s in servers if refused(s))
    if refusing:
        parts.append(f"{refusing} reached but refusing")
    if calls:
        parts.append(f"{len(calls)} call{'s' if len(calls) != 1 else ''}, {failed} failed")
    code = report.exit_code
    words = {0: "everything checks out", 1: "problems found", 2: "nothing to probe"}[code]
    style = {0: "green", 1: "red", 2: "red"}[code]
    return Text(f"probe: {' · '.join(parts)} · {words} (exit {code})", style=style)


def _names(names: list[str]) -> str:
    shown = ", ".join(one_line(n, 60) for n in names[:TOOL_NAMES_SHOWN])
    more = len(names) - TOOL_NAMES_SHOWN
    return f"{shown}, … (+{more})" if more > 0 else shown


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(value)
