"""The inspector on other streams: every upstream fixture, unknown or misnamed event types,
hostile text (Rich markup, terminal escapes), and a stream long enough to take the jump path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _app_support import (
    SIZE,
    detail_text,
    error_line,
    expand,
    find_node,
    header_text,
    label_of,
    labels,
    nodes_of_kind,
    rendered_lines,
    renumbered,
    screen_of,
    select,
    styles_of,
    visible_nodes,
    wait_until,
    write_chunks,
)
from mcptui.io.formats import load_path
from mcptui.model.timeline import Timeline
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.playback import REBUILD_AFTER
from mcptui.ui.widgets.status import StatusHeader

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"
UPSTREAM_FILES = sorted(p.name for p in UPSTREAM.glob("*.chunks.txt"))


def read_chunks(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def app_for(path: Path) -> McptuiApp:
    return McptuiApp(open_session(str(path)), paused=True)


# -- upstream fixtures -------------------------------------------------------------------------


@pytest.mark.parametrize("name", UPSTREAM_FILES)
async def test_every_upstream_fixture_opens_and_shows_every_item(name: str, upstream_dir: Path):
    path = upstream_dir / name
    raws = read_chunks(path)
    expected = Timeline(load_path(str(path)).events)
    expected.seek_end()
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert f"step 0 / {len(raws)}" in header_text(screen)
        await pilot.press("end")
        await pilot.pause()
        assert f"step {len(raws)} / {len(raws)}" in header_text(screen)

        responses = nodes_of_kind(screen, "response")
        assert len(responses) == len(expected.state.responses)
        for node, resp in zip(responses, expected.state.responses, strict=True):
            if resp.id:
                assert resp.id in label_of(node)
            items = [child for child in node.children if child.data.kind == "item"]
            assert len(items) == len(resp.items)
            for child, item in zip(items, resp.items, strict=True):
                assert item.type in label_of(child)
                assert f"{len(item.events)} ev" in label_of(child)
                if item.failed:
                    assert label_of(child).startswith("✗")
            # Every response-level event has its own node.
            events = [child for child in node.children if child.data.kind == "event"]
            assert [c.data.event for c in events] == resp.events
        if expected.state.current is not None and expected.state.current.failed:
            assert label_of(responses[-1]).startswith("✗")


# -- event types the inspector does not know ------------------------------------------------------


async def test_unknown_and_misnamed_event_types_are_shown_not_dropped(
    upstream_dir: Path, tmp_path: Path
):
    raws = read_chunks(upstream_dir / "openai-mcp-tool.1.chunks.txt")
    call = next(
        r
        for r in raws
        if r["type"] == "response.output_item.added" and r["item"]["type"] == "mcp_call"
    )
    call_id, index = call["item"]["id"], call["output_index"]
    at = next(
        i
        for i, r in enumerate(raws)
        if r["type"] == "response.mcp_call_arguments.done" and r["item_id"] == call_id
    )
    injected = [
        # The API reference's spelling of the argument delta (protocol.md §1: drift).
        {
            "type": "response.mcp_call.arguments.delta",
            "item_id": call_id,
            "output_index": index,
            "delta": "",
        },
        # A type nobody has heard of, for the same item.
        {
            "type": "response.totally_new.event",
            "item_id": call_id,
            "output_index": index,
            "note": "from the future",
        },
    ]
    # And one at response level, with no item.
    edited = renumbered(
        [*raws[:2], {"type": "response.brand_new.notice"}, *raws[2:at], *injected, *raws[at:]]
    )
    app = app_for(write_chunks(tmp_path / "drift.chunks.txt", edited))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        assert await wait_until(pilot, lambda: screen.diagnosing.diagnosis is not None)
        await pilot.pause()
        assert f"step {len(edited)} / {len(edited)}" in header_text(screen)
        notice = find_node(screen, lambda t: t.startswith("response.brand_new.notice"))
        assert "⚠ unknown_event_type" in label_of(notice)

        item = find_node(screen, lambda t: "mcp_call" in t, kind="item")
        assert "totally_new" not in "\n".join(labels(screen))  # inside the collapsed item
        await expand(pilot, item)
        children = [label_of(child) for child in item.children]
        docs = [c for c in children if c.startswith("response.mcp_call.arguments.delta ×1")]
        assert docs and "⚠ unknown_event_type" in docs[0], children
        assert any(c.startswith("response.totally_new.event") for c in children), children
        wire = [c for c in children if c.startswith("response.mcp_call_arguments.delta")]
        assert wire and "⚠" not in wire[0]
        # The item is still the completed call it was, marked for its events' findings.
        assert "completed" in label_of(item)
        assert "✗" not in label_of(item)
        assert "⚠ 2 findings" in label_of(item)

        await select(
            pilot, find_node(screen, lambda t: t.startswith("response.mcp_call.arguments.delta"))
        )
        assert "did you mean response.mcp_call_arguments.delta" in detail_text(screen)

        unknown = find_node(screen, lambda t: t.startswith("response.totally_new.event"))
        await select(pilot, unknown)
        assert '"note": "from the future"' in detail_text(screen)


# -- hostile text ----------------------------------------------------------------------------------

MARKUP = "[bold red]x[/]"
ESCAPE = "\x1b[31mred\x1b[0m"
TOOL = "[b]tool[/b]"
MODEL = "gpt-[u]test[/u]"


def hostile_stream() -> list[dict[str, Any]]:
    """A completed call and a failed call of a tool named with markup, then a message whose
    deltas carry markup and an ANSI escape; the failed call's error carries both too."""
    response = {
        "id": "resp_hostile",
        "object": "response",
        "status": "in_progress",
        "model": MODEL,
        "output": [],
    }

    def call(number: int) -> dict[str, Any]:
        return {
            "id": f"mcp_{number}",
            "type": "mcp_call",
            "name": TOOL,
            "server_label": "srv",
            "arguments": "",
            "output": None,
            "error": None,
            "status": "in_progress",
        }

    ok_done = {
        **call(1),
        "arguments": "{}",
        "output": f"out {MARKUP} {ESCAPE}",
        "status": "completed",
    }
    error = {"type": "http_error", "code": 424, "message": f"424: {MARKUP} {ESCAPE}"}
    bad_done = {**call(2), "arguments": "{}", "error": error, "status": "failed"}
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    text = f"see {MARKUP} and {ESCAPE}!"
    message_done = {
        **message,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    deltas = [f"see {MARKUP}", f" and {ESCAPE}", "!"]
    raws: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": call(1)},
        {"type": "response.mcp_call.completed", "output_index": 0, "item_id": "mcp_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": ok_done},
        {"type": "response.output_item.added", "output_index": 1, "item": call(2)},
        {"type": "response.mcp_call.failed", "output_index": 1, "item_id": "mcp_2"},
        {"type": "response.output_item.done", "output_index": 1, "item": bad_done},
        {"type": "response.output_item.added", "output_index": 2, "item": message},
        *(
            {
                "type": "response.output_text.delta",
                "output_index": 2,
                "item_id": "msg_1",
                "content_index": 0,
                "delta": delta,
            }
            for delta in deltas
        ),
        {
            "type": "response.output_text.done",
            "output_index": 2,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {"type": "response.output_item.done", "output_index": 2, "item": message_done},
        {
            "type": "response.completed",
            "response": {
                **response,
                "status": "completed",
                "output": [ok_done, bad_done, message_done],
            },
        },
    ]
    return renumbered(raws)


def assert_no_escape(*texts: str) -> None:
    for text in texts:
        assert "\x1b" not in text, repr(text)


async def test_markup_and_escapes_from_the_stream_are_shown_as_typed(tmp_path: Path):
    app = app_for(write_chunks(tmp_path / "hostile.chunks.txt", hostile_stream()))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")
        await pilot.pause()

        # Tree labels: the tool name and the error keep their brackets; ESC is made visible.
        calls = [n for n in nodes_of_kind(screen, "item") if "mcp_call" in label_of(n)]
        assert len(calls) == 2
        for node in calls:
            assert f"mcp_call {TOOL} @srv" in label_of(node)
        failed = next(n for n in calls if label_of(n).startswith("✗"))
        error = error_line(failed) or ""
        assert MARKUP in error
        assert "\\x1b[31mred\\x1b[0m" in error
        assert "red" in styles_of(failed.label)
        assert_no_escape(*labels(screen))
        drawn_tree = "\n".join(rendered_lines(screen.tree))
        assert f"mcp_call {TOOL} @srv" in drawn_tree  # drawn with its brackets
        assert_no_escape(drawn_tree)

        # Header: the model name keeps its brackets.
        assert MODEL in header_text(screen)
        assert MODEL in "\n".join(rendered_lines(screen.query_one(StatusHeader)))

        # Detail of the failed item: error shown literally, escapes visible.
        await select(pilot, failed)
        shown = detail_text(screen)
        assert MARKUP in shown
        assert "\\x1b[31mred\\x1b[0m" in shown
        assert_no_escape(shown, *rendered_lines(screen.detail))

        # The message's deltas, coalesced: the assembled text as typed.
        message = find_node(screen, lambda t: "message" in t, kind="item")
        await expand(pilot, message)
        group = find_node(screen, lambda t: t.startswith("response.output_text.delta ×"))
        assert label_of(group) == "response.output_text.delta ×3"
        await select(pilot, group)
        shown = detail_text(screen)
        assert f"see {MARKUP} and \\x1b[31mred\\x1b[0m!" in shown
        drawn = "\n".join(rendered_lines(screen.detail))
        assert MARKUP in drawn
        assert "\\x1b[31mred" in drawn
        assert_no_escape(shown, drawn)

        # A single event's JSON: brackets kept, ESC as a JSON escape.
        done = find_node(screen, lambda t: t.startswith("response.output_text.done"))
        await select(pilot, done)
        shown = detail_text(screen)
        assert MARKUP in shown
        assert "\\u001b[31mred\\u001b[0m" in shown
        assert_no_escape(shown, *rendered_lines(screen.detail))

        # Nothing anywhere on screen carries a raw ESC.
        for node in visible_nodes(screen):
            assert_no_escape(label_of(node))


# -- long streams take the jump path ---------------------------------------------------------------


def long_stream(deltas: int) -> list[dict[str, Any]]:
    response = {
        "id": "resp_long",
        "object": "response",
        "status": "in_progress",
        "model": "gpt-test",
        "output": [],
    }
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    text = "".join(f"w{i} " for i in range(deltas))
    done = {
        **message,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    raws = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        *(
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "item_id": "msg_1",
                "content_index": 0,
                "delta": f"w{i} ",
            }
            for i in range(deltas)
        ),
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done]},
        },
    ]
    return renumbered(raws)


async def test_long_jumps_rebuild_and_single_steps_still_update(tmp_path: Path):
    deltas = REBUILD_AFTER + 100
    raws = long_stream(deltas)
    app = app_for(write_chunks(tmp_path / "long.chunks.txt", raws))
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("end")  # a jump longer than REBUILD_AFTER
        await pilot.pause()
        assert f"step {len(raws)} / {len(raws)}" in header_text(screen)
        message = find_node(screen, lambda t: "message" in t, kind="item")
        assert "completed" in label_of(message)
        assert f"{deltas + 3} ev" in label_of(message)  # added, deltas, two .done
        await expand(pilot, message)
        assert f"response.output_text.delta ×{deltas}" in labels(screen)

        # Back over completed, output_item.done, output_text.done and one delta.
        await pilot.press("left", "left", "left", "left")
        await pilot.pause()
        assert f"response.output_text.delta ×{deltas - 1}" in labels(screen)
        assert "in_progress" in label_of(find_node(screen, lambda t: "message" in t, kind="item"))

        await pilot.press("home")  # and back to the start in one jump
        await pilot.pause()
        assert labels(screen) == []
        assert f"step 0 / {len(raws)}" in header_text(screen)
