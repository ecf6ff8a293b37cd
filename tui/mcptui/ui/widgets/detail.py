"""The right pane: what the selected node is, as of the current step.

An event shows its raw JSON (pretty-printed, highlighted), sequence number, time since start and
gap since the previous event; an item its final state with arguments parsed as JSON; a delta
group the text it assembles; a response its summary. JSON is rendered with `Syntax`, which never
interprets markup, and `json.dumps` escapes control characters, so nothing from the stream acts
on the terminal.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Iterator, Mapping, Sequence
from json import JSONEncoder
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text
from rich.tree import Tree
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.timer import Timer
from textual.visual import RichVisual, Visual

from mcptui.model.errors import describe_error
from mcptui.model.events import Event, is_wire_note, sequence_number_in
from mcptui.model.findings import Finding
from mcptui.model.groups import EventGroup
from mcptui.model.state import ItemState, ResponseState, parse_json_text
from mcptui.model.status import ShownStatus
from mcptui.model.textsafe import json_safe, visible
from mcptui.model.timing import ItemTiming
from mcptui.share.status_marks import note_text
from mcptui.ui.widgets.findings import finding_text
from mcptui.ui.widgets.labels import ERROR_STYLE, seconds, status_text

if TYPE_CHECKING:  # the checks' modules load after the first frame (Diagnosing.diagnose)
    from mcptui.model.causes import LikelyCause

MAX_JSON_CHARS = 20_000
"""Longer JSON is cut for display (the copy action still copies all of it): highlighting and
wrapping 200k characters takes over a second."""


PRETTY = JSONEncoder(indent=2, ensure_ascii=False)


def pretty_json(value: Any) -> str:
    """Indented JSON; C0 (by json), C1 and bidi controls (by `json_safe`) written escaped."""
    return json_safe(PRETTY.encode(value))


def more_note(hidden: int | None) -> Text:
    more = "more not shown" if hidden is None else f"{hidden:,} more characters not shown"
    return Text(f"… {more}: press m to show more", "yellow")


def pretty_json_start(value: Any, limit: int) -> tuple[str, bool]:
    """The first `limit` characters of `pretty_json(value)`, and whether there is more. Only
    what is shown is written: a response.completed of a long stream holds every item, and
    writing all of it (megabytes) to show the first 20,000 characters took 100 ms."""
    written: list[str] = []
    size = 0
    for chunk in PRETTY.iterencode(value):
        written.append(chunk)
        size += len(chunk)
        if size > limit:
            return json_safe("".join(written)[:limit]), True
    return json_safe("".join(written)), False


class JsonSyntax(Syntax):
    """Highlighted JSON; the pane keeps its lines by the text."""

    def __init__(self, text: str, *, dark: bool = True) -> None:
        # ANSI colours, so the theme's palette applies (ui/theme_colours.py); light on light.
        theme = "ansi_dark" if dark else "ansi_light"
        super().__init__(text, "json", theme=theme, word_wrap=True, background_color="default")
        self.detail_key = ("json", theme, text)


def json_view(value: Any, limit: int = MAX_JSON_CHARS, *, dark: bool = True) -> RenderableType:
    text, more = pretty_json_start(value, limit)
    syntax = JsonSyntax(text, dark=dark)
    return Group(syntax, more_note(None)) if more else syntax


def _cut_line(text: str, limit: int) -> RenderableType:
    """One long line (200,000 tool names) up to `limit` characters: wrapping all of it froze
    the app for seconds on every repaint."""
    shown = Text(visible(text[:limit]))
    return Group(shown, more_note(len(text) - limit)) if len(text) > limit else shown


class TextLine:
    """One line of a text from the stream. The pane keeps its lines by the string, so the
    `Text` (which copies and scans the string) is made only when the line is drawn anew."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.detail_key = ("line", line)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(visible(self.line))


def long_text(text: str, limit: int = MAX_JSON_CHARS) -> RenderableType:
    """A text from the stream, its first `limit` characters: wrapping a 10 MB delta on every
    repaint froze the app for a minute a step; the rest is shown on demand (m). A line at a
    time, so a step that adds to the last line wraps only that one again."""
    lines: list[RenderableType] = [TextLine(line) for line in text[:limit].split("\n")]
    if len(text) > limit:
        lines.append(more_note(len(text) - limit))
    return Group(*lines)


class FactRow:
    """One `key  value` line of a facts list, as a two-column grid lays it out (the key dim
    and padded to the widest key, the value wrapped beside it, a word too long for the
    column cut with an ellipsis), made without a table so that the pane keeps its lines
    while the row stays the same: a step changes one or two rows (measured: a `Table` of six
    rows took 1.6 ms to draw, each step)."""

    def __init__(self, key: str, value: Text, key_width: int) -> None:
        self.key = key
        self.value = value
        self.key_width = key_width
        self.detail_key = ("fact", key, key_width, *text_key(value))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        gap = 2
        width = max(1, options.max_width - self.key_width - gap)
        lines = console.render_lines(
            self.value, options.update(width=width, overflow="ellipsis"), pad=False
        )
        dim = console.get_style("dim")
        new_line = Segment.line()
        for number, line in enumerate(lines):
            key = self.key if number == 0 else ""
            yield Segment(key.ljust(self.key_width) + " " * gap, dim)
            yield from line
            yield new_line


def facts(rows: list[tuple[str, str | Text]]) -> Group:
    key_width = max((cell_len(key) for key, _ in rows), default=0)
    return Group(
        *(
            FactRow(key, value if isinstance(value, Text) else Text(visible(value)), key_width)
            for key, value in rows
        )
    )


def text_key(text: Text) -> tuple[Hashable, ...]:
    """What a `Text`'s lines depend on (at a given width and style)."""
    return (
        text.plain,
        tuple(text.spans),
        text.style,
        text.justify,
        text.overflow,
        text.no_wrap,
        text.end,
    )


def part_key(part: RenderableType) -> Hashable | None:
    """The content a part's lines depend on, or None for parts drawn afresh each time."""
    if isinstance(part, Text):
        return ("text", *text_key(part))
    return getattr(part, "detail_key", None)


def flat_parts(renderable: RenderableType) -> Iterator[RenderableType]:
    """The renderables a group stacks, groups within it opened: each is drawn on its own."""
    if isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from flat_parts(part)
    else:
        yield renderable


class DetailPane(ScrollView, can_focus=True):
    """Scrollable details of the tree's selection, drawn a line at a time.

    A step shows new content; most of it is what the step before showed (the facts change,
    the item's text gains a delta). The pane draws each part of the content on its own and
    keeps the lines of each text, fact and JSON part by its content (`part_key`), so a step
    wraps and highlights only what is new; then it repaints only the lines that
    differ from what is on screen. Measured on bench/tui_open.py (an item a few thousand
    characters long): redrawing the whole content took 8 ms a step."""

    DEFAULT_CSS = """
    DetailPane { padding: 0 1; scrollbar-gutter: stable; }
    """

    BAR_DELAY = 0.1
    """Seconds without a new content height before the scrollbar is repainted."""
    KEPT_PARTS = 4096
    """Parts whose lines are kept (a long text has one per line)."""

    limit = MAX_JSON_CHARS
    """Characters of a long text or JSON shown; `m` raises it for the current selection."""
    zero = 0.0
    """The recorded time of the session's first timed event: times shown count from it, as
    the header's clock and the waterfall's axis do."""

    @property
    def dark(self) -> bool:
        """Whether the theme is dark: the JSON view's highlighting follows it."""
        return self.app.current_theme.dark

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content: RenderableType = Text("Select a node to see its details.", "dim")
        self._lines: list[Strip] = []
        self._width = 0
        self._style: VisualStyle | None = None
        self._bar_timer: Timer | None = None
        self._kept: LRUCache[Hashable, list[Strip]] = LRUCache(self.KEPT_PARTS)
        """Lines of parts by content (`part_key`), for the current width and style."""

    @property
    def content(self) -> RenderableType:
        """What the pane shows, as one renderable."""
        return self._content

    def show(self, renderable: RenderableType) -> None:
        self._content = renderable
        self._draw(self.scrollable_content_region.width)

    def on_resize(self) -> None:
        self._draw(self.scrollable_content_region.width)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Draw as soon as a layout gives the pane its width, not when its Resize event is
        handled: the app's first frame is drawn right after its first layout, and at start-up
        that event waited behind it (a small recording's first frame showed the tree and an
        empty pane, its error some 70 ms of CPU later, bench/cold_start.py)."""
        changed = super()._size_updated(size, virtual_size, container_size, layout)
        if changed:
            self._draw(self.scrollable_content_region.width)
        return changed

    def _draw(self, width: int) -> None:
        if width <= 0:
            return
        style = self.visual_style
        if width != self._width or style != self._style:
            self._kept.clear()
            self._style = style
        old, old_width = self._lines, self._width
        lines: list[Strip] = []
        for part in flat_parts(self._content):
            lines += self._part_lines(part, width, style)
        self._lines, self._width = lines, width
        if width != old_width:
            self.virtual_size = Size(width, len(lines))
            self.refresh()
            return
        if len(lines) != len(old):
            self._resize_content(Size(width, len(lines)))
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height
        blank = Strip([])
        for y in range(height):  # repaint only the lines that changed
            row = top + y
            before = old[row] if row < len(old) else blank
            after = lines[row] if row < len(lines) else blank
            if before != after:
                self.refresh_line(row)

    def _resize_content(self, size: Size) -> None:
        """A new content height. Setting `virtual_size` lays the whole screen out again and
        repaints the whole pane (measured 10-15 ms a step). The pane's own size does not
        change, so only the scrollbar needs telling, and repainting it costs 3 ms (its whole
        height, for a thumb an eighth of a cell longer or shorter): that is left until the
        steps pause (`BAR_DELAY`), unless the bar must appear or go, which is done at once."""
        shown = self.show_vertical_scrollbar
        self.set_reactive(ScrollView.virtual_size, size)
        if not shown or size.height <= self.scrollable_content_region.height:
            self._scroll_update(size)
            return
        self.scroll_y = self.validate_scroll_y(self.scroll_y)
        if self._bar_timer is not None:
            self._bar_timer.stop()
        self._bar_timer = self.set_timer(self.BAR_DELAY, self._update_bar)

    def _update_bar(self) -> None:
        self._bar_timer = None
        self._scroll_update(self.virtual_size)

    def _part_lines(self, part: RenderableType, width: int, style: VisualStyle) -> list[Strip]:
        key = part_key(part)
        if key is not None and (found := self._kept.get(key)) is not None:
            return found
        lines = Visual.to_strips(self, RichVisual(self, part), width, None, style)
        if key is not None:
            self._kept[key] = lines
        return lines

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if row >= len(self._lines):
            return Strip.blank(width, style)
        return self._lines[row].crop_extend(scroll_x, scroll_x + width, style)

    def show_nothing(self, waiting: str | None = None) -> None:
        """Nothing selected: what a replay can do, or what a live source waits for."""
        self.show(
            Text(waiting or "Nothing at this step yet: step forward or press space to play.", "dim")
        )

    def show_event(
        self, event: Event, previous: Event | None, failing: bool, findings: Sequence[Finding] = ()
    ) -> None:
        # Read once: an event read fast is decoded (and checked for secrets) on each `raw`,
        # which for a run's last event (its whole response) is tens of milliseconds.
        raw = event.raw
        if is_wire_note(raw):
            self.show_wire(event, raw)
            return
        rows: list[tuple[str, str | Text]] = [
            ("type", Text(visible(event.type), ERROR_STYLE if failing else "bold")),
            ("step", f"{event.index + 1}"),
        ]
        if (sequence := sequence_number_in(raw)) is not None:
            rows.append(("sequence", str(sequence)))
        if event.t is not None:
            rows.append(("time", f"{event.t - self.zero:.3f}s since start"))
            if previous is not None and previous.t is not None:
                rows.append(("gap", f"{(event.t - previous.t) * 1000:.1f} ms since previous"))
        if event.line is not None:
            rows.append(("source line", str(event.line)))
        parts: list[RenderableType] = [facts(rows)]
        if findings:
            parts += [Text(""), *(finding_text(f) for f in findings)]
        self.show(Group(*parts, Text(""), json_view(raw, self.limit, dark=self.dark)))

    def show_wire(self, event: Event, raw: dict[str, Any]) -> None:
        """A message a tap saw between OpenAI's servers and the MCP server (`raw`, the
        event's note): the JSON-RPC message itself, with how it travelled."""
        sent = raw.get("direction") == "sent"
        rows: list[tuple[str, str | Text]] = [
            ("MCP", note_text(event, 200)),
            (
                "direction",
                "to the MCP server (from OpenAI's servers)" if sent else "from the MCP server",
            ),
            ("step", f"{event.index + 1}"),
        ]
        if event.t is not None:
            rows.append(("time", f"{event.t - self.zero:.3f}s since start"))
        for key, name in (
            ("http", "HTTP"),
            ("http_status", "status"),
            ("session", "session"),
            ("transport", "transport"),
        ):
            if raw.get(key) is not None:
                rows.append((name, visible(str(raw[key]))))
        if raw.get("server_labels"):
            rows.append(("server", visible(", ".join(map(str, raw["server_labels"])))))
        message = raw.get("jsonrpc")
        if sent and isinstance(message, dict) and "method" in message and "id" in message:
            rows.append(("trace context", trace_context_text(raw)))
        self.show(
            Group(
                facts(rows),
                Text(""),
                Text("JSON-RPC message" if message is not None else "the tap's note", "dim"),
                json_view(message if message is not None else raw, self.limit, dark=self.dark),
            )
        )

    def show_group(self, group: EventGroup, events: list[Event], item: ItemState | None) -> None:
        first, last = events[group.first], events[group.last]
        rows: list[tuple[str, str | Text]] = [
            ("events", f"{group.type} ×{group.count}"),
            ("steps", f"{group.first + 1} – {group.last + 1}"),
        ]
        if first.t is not None and last.t is not None:
            rows.append(
                (
                    "time",
                    f"{first.t - self.zero:.3f}s – {last.t - self.zero:.3f}s "
                    f"({last.t - first.t:.3f}s)",
                )
            )
        assembled = self.assembled(group, events, item)
        self.show(
            Group(
                facts(rows),
                Text(""),
                Text("assembled text", "dim"),
                long_text(assembled, self.limit),
            )
        )

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

    def show_item(
        self,
        item: ItemState,
        shown: ShownStatus,
        *,
        causes: Sequence[LikelyCause] = (),
        timing: ItemTiming | None = None,
        probe: RenderableType | None = None,
        can_probe: bool = False,
        no_probe: str | None = None,
        actions: Sequence[Text] = (),
    ) -> None:
        """An item; for a failure first its error, the probe's result once run, and the likely
        causes (on a small terminal they are what fits on the first screen); `actions` say
        what else can be tried from here (a key, or the command to run)."""
        parts: list[RenderableType] = []
        if item.error is not None:
            parts += [
                Text("error", ERROR_STYLE),
                Text(visible(item.error_text), ERROR_STYLE),
                Text(""),
            ]
        if probe is not None:  # what the server did just now: the strongest evidence
            parts += [probe, Text("")]
        if causes:
            parts += [causes_tree(causes), Text("")]
        if probe is None and can_probe:
            parts += [
                Text(
                    "press p to probe: call this tool directly with the recorded arguments", "dim"
                ),
                Text(""),
            ]
        elif probe is None and no_probe:
            parts += [Text(no_probe, "dim"), Text("")]
        for action in actions:
            parts += [action, Text("")]
        rows: list[tuple[str, str | Text]] = [
            ("type", Text(visible(item.type), "bold")),
            ("status", status_text(shown.word, shown.reason)),
        ]
        for key, value in (
            ("id", item.item_id),
            ("name", item.name),
            ("server", item.server_label),
            ("output index", None if item.output_index is None else str(item.output_index)),
        ):
            if value:
                rows.append((key, value))
        duration = timing.duration if timing is not None else item.duration
        running = shown.word == "in_progress"
        if duration is not None:
            rows.append(("duration", seconds(duration) + (" so far" if running else "")))
        if timing is not None and timing.tool_seconds is not None:
            end = "now (still running)" if running else shown.word
            rows.append(
                ("tool time", f"{seconds(timing.tool_seconds)} from arguments.done to {end}")
            )
        rows.append(
            ("events", "from a Response object" if item.from_snapshot else str(len(item.events)))
        )
        parts.append(facts(rows))
        if item.error is not None:
            parts += [
                Text(""),
                Text("error as sent", "dim"),
                json_view(item.error, self.limit, dark=self.dark),
            ]
        if item.arguments:
            parts += [
                Text(""),
                Text("arguments", "dim"),
                json_view(parse_json_text(item.arguments), self.limit, dark=self.dark),
            ]
        if item.output is not None:
            output = item.output
            parts += [
                Text(""),
                Text("output", "dim"),
                json_view(
                    parse_json_text(output) if isinstance(output, str) else output,
                    self.limit,
                    dark=self.dark,
                ),
            ]
        if item.type == "mcp_list_tools" and item.lists_tools:
            names = item.tool_names
            parts += [
                Text(""),
                Text(f"tools ({len(names):,})", "dim"),
                _cut_line(", ".join(names), self.limit),
            ]
        if item.text:
            parts += [Text(""), Text("text", "dim"), long_text(item.text, self.limit)]
        if item.reasoning:
            parts += [Text(""), Text("reasoning", "dim"), long_text(item.reasoning, self.limit)]
        final = item.final or item.added
        if final:
            parts += [
                Text(""),
                Text("item as last sent", "dim"),
                json_view(final, self.limit, dark=self.dark),
            ]
        self.show(Group(*parts))

    def show_response(
        self,
        resp: ResponseState,
        *,
        causes: Sequence[LikelyCause] = (),
        actions: Mapping[str, Text] | None = None,
    ) -> None:
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
            parts += [
                Text("error", ERROR_STYLE),
                Text(visible(describe_error(resp.error)), ERROR_STYLE),
                Text(""),
            ]
        if causes:
            parts += [causes_tree(causes, actions), Text("")]
        parts.append(facts(rows))
        if resp.usage:
            parts += [Text(""), Text("usage", "dim"), json_view(resp.usage, dark=self.dark)]
        if resp.tools:
            parts += [Text(""), Text("tools (redacted)", "dim"), json_view(resp.tools)]
        self.show(Group(*parts))


def causes_tree(causes: Sequence[LikelyCause], actions: Mapping[str, Text] | None = None) -> Tree:
    """Likely causes, best first, each with its evidence and what to try (and, by cause key,
    how to do it from here)."""
    from mcptui.share.inspect_output import add_causes

    tree = Tree(Text("diagnosis", "bold yellow"), guide_style="yellow")
    add_causes(tree, causes, actions)
    return tree


def trace_context_text(raw: dict[str, Any]) -> str:
    """What W3C trace context a tapped request carried: what joins the MCP server's own spans
    to the call (`mcptui export --otlp`), or that there was none."""
    from mcptui.model.trace_context import of_note

    carried = of_note(raw)
    if carried is None:
        return "none sent (no traceparent in _meta or the headers)"
    return f"{carried['traceparent']} (in {carried.get('carrier', '_meta')})"
