"""The right pane: what the selected node is, as of the current step.

An event shows its raw JSON (pretty-printed, highlighted), sequence number, time since start and
gap since the previous event; an item its final state with arguments parsed as JSON; a delta
group the text it assembles; a response its summary. JSON is rendered with `Syntax`, which never
interprets markup, and `json.dumps` escapes control characters, so nothing from the stream acts
on the terminal.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.tree import Tree
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static

from tui.model.causes import LikelyCause
from tui.model.errors import describe_error
from tui.model.events import Event, is_wire_note
from tui.model.findings import Finding
from tui.model.groups import EventGroup
from tui.model.state import ItemState, ResponseState, parse_json_text
from tui.model.status import ShownStatus
from tui.model.textsafe import json_safe, visible
from tui.model.timing import ItemTiming
from tui.report import add_causes
from tui.styles import note_text
from tui.widgets.findings import finding_text
from tui.widgets.labels import ERROR_STYLE, seconds, status_text

MAX_JSON_CHARS = 20_000
"""Longer JSON is cut for display (the copy action still copies all of it): highlighting and
wrapping 200k characters takes over a second."""


def pretty_json(value: Any) -> str:
    """Indented JSON; C0 (by json), C1 and bidi controls (by `json_safe`) written escaped."""
    return json_safe(json.dumps(value, indent=2, ensure_ascii=False))


def more_note(hidden: int) -> Text:
    return Text(f"… {hidden:,} more characters not shown: press m to show more", "yellow")


def json_view(value: Any, limit: int = MAX_JSON_CHARS) -> RenderableType:
    text = pretty_json(value)
    note: Text | None = None
    if len(text) > limit:
        note = more_note(len(text) - limit)
        text = text[:limit]
    syntax = Syntax(text, "json", theme="ansi_dark", word_wrap=True, background_color="default")
    return Group(syntax, note) if note else syntax


def long_text(text: str, limit: int = MAX_JSON_CHARS) -> RenderableType:
    """A text from the stream, its first `limit` characters: wrapping a 10 MB delta on every
    repaint froze the app for a minute a step; the rest is shown on demand (m)."""
    if len(text) <= limit:
        return Text(visible(text))
    return Group(Text(visible(text[:limit])), more_note(len(text) - limit))


def facts(rows: list[tuple[str, str | Text]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if isinstance(value, Text) else Text(visible(value)))
    return table


class DetailBody(Static):
    """The pane's content, rendered once per content and width: Static renders it once to
    measure its height for the layout and again to draw it (measured 3.5 + 5.5 ms a step for
    an item with a few thousand characters of text), and the step paints it again. Here the
    lines that gave the height are the lines drawn (by Textual's own `Visual.to_strips`)."""

    _lines: tuple[object, int, object, object, list[Strip]] | None = None

    def _strips(self, width: int) -> list[Strip]:
        visual = self._render()
        style = self.visual_style
        selection = self.text_selection
        cached = self._lines
        if cached is not None and cached[0] is visual and cached[1] == width \
                and cached[2] == style and cached[3] == selection:
            return cached[4]
        strips = Visual.to_strips(self, visual, width, None, style)
        self._lines = (visual, width, style, selection, strips)
        return strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips(width)) if width else 0

    def render_line(self, y: int) -> Strip:
        strips = self._strips(self.size.width)
        if y < len(strips):
            return strips[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)


class DetailPane(VerticalScroll):
    """Scrollable details of the tree's selection."""

    DEFAULT_CSS = """
    DetailPane { padding: 0 1; }
    DetailPane > #detail-body { width: 1fr; }
    """

    limit = MAX_JSON_CHARS
    """Characters of a long text or JSON shown; `m` raises it for the current selection."""
    zero = 0.0
    """The recorded time of the session's first timed event: times shown count from it, as
    the header's clock and the waterfall's axis do."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield DetailBody(Text("Select a node to see its details.", "dim"), id="detail-body")

    @property
    def body(self) -> DetailBody:
        return self.query_one("#detail-body", DetailBody)

    def show(self, renderable: RenderableType) -> None:
        self.body.update(renderable)
        self.scroll_home(animate=False)
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Lay the body out again if its height still fits older content. Measured: about one
        open in three, Textual dropped the layout a new text asked for (the pane then showed
        the first two lines of every later text, `likely cause` below them cut off)."""
        body = self.body
        width = body.size.width
        if width and body.size.height != body.get_content_height(body.size, self.size, width):
            body.refresh(layout=True)

    def show_nothing(self) -> None:
        self.show(Text("Nothing at this step yet: step forward or press space to play.", "dim"))

    def show_event(self, event: Event, previous: Event | None, failing: bool,
                   findings: list[Finding] = ()) -> None:
        if is_wire_note(event.raw):
            self.show_wire(event)
            return
        rows: list[tuple[str, str | Text]] = [
            ("type", Text(visible(event.type), ERROR_STYLE if failing else "bold")),
            ("step", f"{event.index + 1}"),
        ]
        if event.sequence_number is not None:
            rows.append(("sequence", str(event.sequence_number)))
        if event.t is not None:
            rows.append(("time", f"{event.t - self.zero:.3f}s since start"))
            if previous is not None and previous.t is not None:
                rows.append(("gap", f"{(event.t - previous.t) * 1000:.1f} ms since previous"))
        if event.line is not None:
            rows.append(("source line", str(event.line)))
        parts: list[RenderableType] = [facts(rows)]
        if findings:
            parts += [Text(""), *(finding_text(f) for f in findings)]
        self.show(Group(*parts, Text(""), json_view(event.raw, self.limit)))

    def show_wire(self, event: Event) -> None:
        """A message a tap saw between OpenAI's servers and the MCP server: the JSON-RPC
        message itself, with how it travelled."""
        raw = event.raw
        sent = raw.get("direction") == "sent"
        rows: list[tuple[str, str | Text]] = [
            ("MCP", note_text(event, 200)),
            ("direction", "to the MCP server (from OpenAI's servers)" if sent
             else "from the MCP server"),
            ("step", f"{event.index + 1}"),
        ]
        if event.t is not None:
            rows.append(("time", f"{event.t - self.zero:.3f}s since start"))
        for key, name in (("http", "HTTP"), ("http_status", "status"), ("session", "session"),
                          ("transport", "transport")):
            if raw.get(key) is not None:
                rows.append((name, visible(str(raw[key]))))
        if raw.get("server_labels"):
            rows.append(("server", visible(", ".join(map(str, raw["server_labels"])))))
        message = raw.get("jsonrpc")
        self.show(Group(facts(rows), Text(""), Text(
            "JSON-RPC message" if message is not None else "the tap's note", "dim"),
            json_view(message if message is not None else raw, self.limit)))

    def show_group(self, group: EventGroup, events: list[Event], item: ItemState | None) -> None:
        first, last = events[group.first], events[group.last]
        rows: list[tuple[str, str | Text]] = [
            ("events", f"{group.type} ×{group.count}"),
            ("steps", f"{group.first + 1} – {group.last + 1}"),
        ]
        if first.t is not None and last.t is not None:
            rows.append(("time", f"{first.t - self.zero:.3f}s – {last.t - self.zero:.3f}s "
                                 f"({last.t - first.t:.3f}s)"))
        assembled = self.assembled(group, events, item)
        self.show(Group(facts(rows), Text(""), Text("assembled text", "dim"),
                        long_text(assembled, self.limit)))

    @staticmethod
    def assembled(group: EventGroup, events: list[Event], item: ItemState | None) -> str:
        """The deltas of one run joined, as far as the current step goes."""
        if item is None:
            return ""
        parts = []
        start = bisect_left(item.events, group.first)  # long items: skip what comes before
        for index in item.events[start:]:
            if index > group.last:
                break
            delta = events[index].raw.get("delta")
            if isinstance(delta, str):
                parts.append(delta)
        return "".join(parts)

    def show_item(self, item: ItemState, shown: ShownStatus, *, causes: list[LikelyCause] = (),
                  timing: ItemTiming | None = None, probe: RenderableType | None = None,
                  can_probe: bool = False, no_probe: str | None = None,
                  actions: Sequence[Text] = ()) -> None:
        """An item; for a failure first its error, the probe's result once run, and the likely
        causes (on a small terminal they are what fits on the first screen); `actions` say
        what else can be tried from here (a key, or the command to run)."""
        parts: list[RenderableType] = []
        if item.error is not None:
            parts += [Text("error", ERROR_STYLE), Text(visible(item.error_text), ERROR_STYLE),
                      Text("")]
        if probe is not None:  # what the server did just now: the strongest evidence
            parts += [probe, Text("")]
        if causes:
            parts += [causes_tree(causes), Text("")]
        if probe is None and can_probe:
            parts += [Text("press p to probe: call this tool directly with the recorded "
                           "arguments", "dim"), Text("")]
        elif probe is None and no_probe:
            parts += [Text(no_probe, "dim"), Text("")]
        for action in actions:
            parts += [action, Text("")]
        rows: list[tuple[str, str | Text]] = [
            ("type", Text(visible(item.type), "bold")),
            ("status", status_text(shown.word, shown.reason)),
        ]
        for key, value in (("id", item.item_id), ("name", item.name),
                           ("server", item.server_label),
                           ("output index", None if item.output_index is None
                            else str(item.output_index))):
            if value:
                rows.append((key, value))
        duration = timing.duration if timing is not None else item.duration
        running = shown.word == "in_progress"
        if duration is not None:
            rows.append(("duration", seconds(duration) + (" so far" if running else "")))
        if timing is not None and timing.tool_seconds is not None:
            end = "now (still running)" if running else shown.word
            rows.append(("tool time", f"{seconds(timing.tool_seconds)} from arguments.done "
                                      f"to {end}"))
        rows.append(("events", "from a Response object" if item.from_snapshot
                     else str(len(item.events))))
        parts.append(facts(rows))
        if item.error is not None:
            parts += [Text(""), Text("error as sent", "dim"), json_view(item.error, self.limit)]
        if item.arguments:
            parts += [Text(""), Text("arguments", "dim"),
                      json_view(parse_json_text(item.arguments), self.limit)]
        if item.output is not None:
            output = item.output
            parts += [Text(""), Text("output", "dim"),
                      json_view(parse_json_text(output) if isinstance(output, str) else output,
                                self.limit)]
        if item.type == "mcp_list_tools":
            parts += [Text(""), Text(f"tools ({len(item.tool_names)})", "dim"),
                      Text(visible(", ".join(item.tool_names)))]
        if item.text:
            parts += [Text(""), Text("text", "dim"), long_text(item.text, self.limit)]
        if item.reasoning:
            parts += [Text(""), Text("reasoning", "dim"), long_text(item.reasoning, self.limit)]
        final = item.final or item.added
        if final:
            parts += [Text(""), Text("item as last sent", "dim"), json_view(final, self.limit)]
        self.show(Group(*parts))

    def show_response(self, resp: ResponseState, *, causes: list[LikelyCause] = (),
                      actions: Mapping[str, Text] | None = None) -> None:
        """A response's summary; for a failure its error and likely causes first, with how to
        act on them from here (`actions`, by cause key)."""
        rows: list[tuple[str, str | Text]] = [
            ("id", resp.id or "(none yet)"),
            ("status", status_text(resp.status)),
        ]
        if resp.model:
            rows.append(("model", resp.model))
        if resp.duration is not None:
            rows.append(("duration", seconds(resp.duration)))
        if resp.background is not None:
            rows.append(("background", str(resp.background).lower()))
        if resp.previous_response_id:
            rows.append(("previous", resp.previous_response_id))
        rows.append(("items", str(len(resp.items))))
        parts: list[RenderableType] = []
        if resp.error is not None:
            parts += [Text("error", ERROR_STYLE),
                      Text(visible(describe_error(resp.error)), ERROR_STYLE), Text("")]
        if causes:
            parts += [causes_tree(causes, actions), Text("")]
        parts.append(facts(rows))
        if resp.usage:
            parts += [Text(""), Text("usage", "dim"), json_view(resp.usage)]
        if resp.tools:
            parts += [Text(""), Text("tools (redacted)", "dim"), json_view(resp.tools)]
        self.show(Group(*parts))


def causes_tree(causes: list[LikelyCause], actions: Mapping[str, Text] | None = None) -> Tree:
    """Likely causes, best first, each with its evidence and what to try (and, by cause key,
    how to do it from here)."""
    tree = Tree(Text("diagnosis", "bold yellow"), guide_style="yellow")
    add_causes(tree, causes, actions)
    return tree
