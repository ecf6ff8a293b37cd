"""Helpers for the app tests: shipped recordings read independently of the app, the tree as the
user sees it, the header and detail pane as text, key-driven cursor moves, a fake clock."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.event_tree import NodeRef
from mcptui.ui.widgets.footer import FittingFooter, FooterEntry
from mcptui.ui.widgets.status import StatusHeader
from rich.console import Console
from rich.text import Text
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets.tree import TreeNode

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = REPO / "recordings"
SAMPLE_424 = RECORDINGS / "mcp-424-broken-schema.jsonl"
SAMPLE_SUCCESS = RECORDINGS / "mcp-success.jsonl"
SAMPLE_TIMEOUT = RECORDINGS / "mcp-timeout-424.jsonl"
APP_CSS = REPO / "tui" / "mcptui" / "ui" / "app.tcss"

SIZE = (140, 40)
"""Terminal size of every Pilot test."""
TASKGROUP_ERROR = "http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# -- recordings, read without mcptui.io.formats ----------------------------------------------------


def recorded(path: Path) -> list[tuple[float | None, dict[str, Any]]]:
    """(t, event) for every event line of an mcptui recording."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if "event" in obj:
            out.append((obj["t"], obj["event"]))
    return out


def recorded_events(path: Path) -> list[dict[str, Any]]:
    return [event for _, event in recorded(path)]


def stream_times(path: Path) -> list[float]:
    """Each event's time since the first event, as the recording has it."""
    times = [t for t, _ in recorded(path)]
    return [t - times[0] for t in times]


def events_until(path: Path, stream_seconds: float) -> int:
    """How many events had arrived `stream_seconds` after the first one."""
    return sum(1 for t in stream_times(path) if t <= stream_seconds + 1e-9)


def index_of(events: list[dict[str, Any]], event_type: str, start: int = 0) -> int:
    return next(i for i, e in enumerate(events) if i >= start and e["type"] == event_type)


def write_chunks(path: Path, raws: list[dict[str, Any]]) -> Path:
    """One JSON event per line, the upstream `*.chunks.txt` shape."""
    path.write_text("".join(json.dumps(raw) + "\n" for raw in raws), encoding="utf-8")
    return path


def renumbered(raws: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**raw, "sequence_number": number} for number, raw in enumerate(raws)]


# -- what is on screen --------------------------------------------------------------------------


def screen_of(pilot: Pilot[Any]) -> InspectorScreen:
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen), f"expected the inspector, got {screen!r}"
    return screen


def visible_nodes(screen: InspectorScreen) -> list[TreeNode[NodeRef]]:
    """The tree's nodes in display order, descending only into expanded nodes."""

    def walk(node: TreeNode[NodeRef]) -> Iterator[TreeNode[NodeRef]]:
        for child in node.children:
            yield child
            if child.is_expanded:
                yield from walk(child)

    return list(walk(screen.tree.root))


def label_of(node: TreeNode[NodeRef]) -> str:
    label = node.label
    return label.plain if isinstance(label, Text) else str(label)


def labels(screen: InspectorScreen) -> list[str]:
    return [label_of(node) for node in visible_nodes(screen)]


def nodes_of_kind(screen: InspectorScreen, kind: str) -> list[TreeNode[NodeRef]]:
    return [n for n in visible_nodes(screen) if n.data is not None and n.data.kind == kind]


def first_node(
    screen: InspectorScreen, predicate: Callable[[str], bool], kind: str | None = None
) -> TreeNode[NodeRef] | None:
    """The first visible node whose label text satisfies `predicate`, else None (to poll)."""
    for node in visible_nodes(screen):
        if kind is not None and (node.data is None or node.data.kind != kind):
            continue
        if predicate(label_of(node)):
            return node
    return None


def find_node(
    screen: InspectorScreen, predicate: Callable[[str], bool], kind: str | None = None
) -> TreeNode[NodeRef]:
    """The first visible node whose label text satisfies `predicate` (one must)."""
    node = first_node(screen, predicate, kind)
    if node is None:
        raise AssertionError(
            f"no {kind or ''} node matches; the tree shows:\n" + "\n".join(labels(screen))
        )
    return node


def error_line(node: TreeNode[NodeRef]) -> str | None:
    """The text of the error line under a failed item or response (its first child), if any."""
    first = node.children[0] if node.children else None
    if first is None or first.data is None or first.data.kind != "error":
        return None
    return label_of(first)


def toasts(pilot: Pilot[Any]) -> list[str]:
    """The notifications on screen, as text (the app tests run with notifications on)."""
    from textual.widgets._toast import Toast

    return [str(toast.render()) for toast in pilot.app.screen.query(Toast)]


def styles_of(text: Text) -> str:
    """Every style a label uses, as one string (e.g. "bold red ... dim")."""
    return " ".join([str(text.style)] + [str(span.style) for span in text.spans])


def header_text(screen: InspectorScreen) -> str:
    """The header's text, both lines, whether or not they fit on screen."""
    visual = screen.query_one(StatusHeader).render()
    return visual.plain if hasattr(visual, "plain") else str(visual)


def rendered_lines(widget: Widget) -> list[str]:
    """The widget's lines as drawn on screen (its visible region, cropped to its size)."""
    width, height = widget.size
    return [strip.text for strip in widget.render_lines(Region(0, 0, width, height))]


def detail_text(screen: InspectorScreen) -> str:
    """The detail pane's whole content as plain text, laid out wide enough not to wrap."""
    return static_text(screen.detail)


def static_text(widget: Any) -> str:
    """What a Static-like widget holds (its `content`), as plain text wide enough not to wrap."""
    console = Console(width=400, file=io.StringIO(), record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


@contextmanager
def demo_run(recording: Path) -> Iterator[tuple[Any, Any, Any]]:
    """(servers, session, app): the demo's request against the emulator and the demo MCP
    server on loopback, unpaced, as a live app ready to run, recording to `recording`."""
    from mcptui.emulator.demo import demo_servers
    from mcptui.emulator.runner import RunConfig
    from mcptui.sources.live import Recorder, live_session
    from mcptui.ui.app import McptuiApp

    with demo_servers(RunConfig(delta_delay=0.0, queue_delay=0.05)) as servers:
        session, live = live_session(
            servers.emulator_url, "mcptui-demo", Recorder(recording), source="demo"
        )
        yield servers, session, McptuiApp(session, live=live, request=servers.request())


# -- driving the tree with keys ------------------------------------------------------------------


async def select(pilot: Pilot[Any], node: TreeNode[NodeRef]) -> None:
    """Move the tree cursor onto `node` with the up/down keys, as a user would."""
    screen = screen_of(pilot)
    for _ in range(500):
        tree = screen.tree
        if tree.cursor_node is node:
            return
        order = visible_nodes(screen)
        assert node in order, f"{label_of(node)!r} is not visible"
        here = order.index(tree.cursor_node) if tree.cursor_node in order else -1
        await pilot.press("down" if order.index(node) > here else "up")
    raise AssertionError(f"could not move the cursor onto {label_of(node)!r}")


async def expand(pilot: Pilot[Any], node: TreeNode[NodeRef]) -> None:
    """Select `node` and press Enter to expand it (Enter toggles, so only when collapsed)."""
    await select(pilot, node)
    if not node.is_expanded:
        await pilot.press("enter")
    await pilot.pause()
    assert node.is_expanded


async def step_to(pilot: Pilot[Any], position: int) -> None:
    """Press right/left until the timeline is at `position`."""
    timeline = screen_of(pilot).session.timeline
    for _ in range(abs(position - timeline.position)):
        await pilot.press("right" if position > timeline.position else "left")
    await pilot.pause()
    assert timeline.position == position


async def wait_until(
    pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = 3.0
) -> bool:
    """Let the app run (timers fire) until `predicate()` holds or `timeout` seconds pass."""
    steps = int(timeout / 0.02)
    for _ in range(steps):
        if predicate():
            return True
        await pilot.pause(0.02)
    return predicate()


async def wait_ticks(pilot: Pilot[Any], screen: InspectorScreen, ticks: int = 5) -> None:
    """Let the playback timer run `ticks` more times: what would happen on its own, has."""
    until = screen.playback.ticks + ticks
    assert await wait_until(pilot, lambda: screen.playback.ticks >= until, 5)


async def palette_offers(pilot: Pilot[Any], title: str) -> None:
    """Wait until the command palette, open with a search typed, lists `title` first."""
    from textual.command import CommandPalette
    from textual.widgets import OptionList

    def listed() -> bool:
        palette = pilot.app.screen
        if not isinstance(palette, CommandPalette):
            return False
        options = palette.query_one(OptionList)
        if not options.option_count:
            return False
        first = options.get_option_at_index(0).prompt
        return title.lower() in str(getattr(first, "plain", first)).lower()

    assert await wait_until(pilot, listed, 5), f"the palette does not offer {title!r}"


def footer_keys(screen: InspectorScreen) -> tuple[FooterEntry, ...]:
    """The keys the footer draws, in display order (action, key_display, description...)."""
    return screen.query_one(FittingFooter).shown


def footer_actions(screen: InspectorScreen) -> set[str]:
    return {key.action for key in footer_keys(screen)}


def footer_line(screen: InspectorScreen) -> str:
    """The footer's row as it is drawn."""
    return rendered_lines(screen.query_one(FittingFooter))[0]


def footer_columns(screen: InspectorScreen) -> list[tuple[FooterEntry, range]]:
    """Each key the footer draws with the screen columns its `key description` text takes
    (found in the drawn row, left to right)."""
    footer = screen.query_one(FittingFooter)
    line = footer_line(screen)
    columns = []
    start = 0
    for key in footer.shown:
        label = f"{key.key_display} {key.description}" if key.description else key.key_display
        start = line.index(label, start)
        columns.append((key, range(footer.region.x + start, footer.region.x + start + len(label))))
        start += len(label)
    return columns


def long_recording(path: Path, extra_deltas: int) -> Path:
    """The 424 sample with `extra_deltas` more text deltas in its message (so big that the
    app reads it a piece at a time), sequence numbers renumbered."""
    header, *lines = SAMPLE_424.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    first = next(
        i for i, r in enumerate(records) if r["event"]["type"] == "response.output_text.delta"
    )
    records[first + 1 : first + 1] = [
        json.loads(json.dumps(records[first])) for _ in range(extra_deltas)
    ]
    for number, record in enumerate(records):
        record["event"]["sequence_number"] = number
    path.write_text("\n".join([header, *map(json.dumps, records)]) + "\n", encoding="utf-8")
    return path
