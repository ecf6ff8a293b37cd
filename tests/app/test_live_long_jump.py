"""A long jump forward (a live run shown a batch at a time while it is behind, `End`) folds the
events and updates only the tree nodes they touched (ui/screens/playback.py `go_to`), instead of
rebuilding the tree: what the tree shows after it must be what a rebuild shows (and what the
user had opened stays open, where a rebuild closed it)."""

from __future__ import annotations

from pathlib import Path

from _app_support import SIZE, expand, find_node, header_text, label_of, labels, screen_of
from mcptui.model.timeline import Timeline
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.playback import REBUILD_AFTER
from test_streams import long_stream, write_chunks


async def test_a_long_jump_forward_shows_what_a_rebuild_shows(tmp_path: Path):
    deltas = REBUILD_AFTER + 100
    raws = long_stream(deltas)
    app = McptuiApp(
        open_session(str(write_chunks(tmp_path / "long.chunks.txt", raws))), paused=True
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("right", "right", "right", "right", "right")  # three deltas in
        await pilot.pause()
        message = find_node(screen, lambda t: "message" in t, kind="item")
        await expand(pilot, message)
        assert "response.output_text.delta ×3" in labels(screen)

        await pilot.press("end")  # a jump longer than REBUILD_AFTER
        await pilot.pause()
        assert f"step {len(raws)} / {len(raws)}" in header_text(screen)
        jumped = labels(screen)
        assert f"response.output_text.delta ×{deltas}" in jumped
        assert "completed" in label_of(find_node(screen, lambda t: "message" in t, kind="item"))

        screen.tree.rebuild()  # (which collapses what was open: opened again to compare)
        await pilot.pause()
        await expand(pilot, find_node(screen, lambda t: "message" in t, kind="item"))
        assert labels(screen) == jumped


def test_what_a_jump_touched_is_what_each_step_touched(tmp_path: Path):
    raws = long_stream(50)
    session = open_session(str(write_chunks(tmp_path / "long.chunks.txt", raws)))
    timeline: Timeline = session.timeline
    timeline.seek(3)
    reducer = timeline.reducer
    timeline.seek(len(raws))
    assert timeline.reducer is reducer

    responses, items = reducer.touched_from(3)

    stepped = [reducer.touched(index) for index in range(3, len(raws))]
    assert responses == {resp for resp, _item in stepped}
    assert items == {item for _resp, item in stepped if item is not None}
    assert items  # the message's deltas went to it
