"""`o` with a response id: the stored response is fetched (with the live run's client
settings) and shown like a recording, or a toast says why it cannot be."""

from __future__ import annotations

from pathlib import Path

from _app_support import demo_run, labels, screen_of, toasts, wait_until
from mcptui.ui.screens.prompt import PromptScreen


async def test_o_with_an_id_opens_the_stored_response_and_an_unknown_one_says_so(
    tmp_path: Path,
):
    with demo_run(tmp_path / "r.jsonl") as (_servers, session, app):
        async with app.run_test(size=(120, 40)) as pilot:
            screen = screen_of(pilot)

            def done() -> bool:
                responses = session.timeline.final_state().responses
                return bool(responses) and responses[0].status == "completed"

            assert await wait_until(pilot, done, 20)
            response_id = session.timeline.final_state().responses[0].id
            assert response_id

            await pilot.press("o")
            assert await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), 5)
            await pilot.press(*"resp_0000nothing")
            await pilot.press("enter")
            assert await wait_until(
                pilot,
                lambda: any(
                    "Could not open resp_0000nothing: no such response" in t for t in toasts(pilot)
                ),
                10,
            )
            assert screen_of(pilot) is screen  # still the run

            await pilot.press("o")
            assert await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), 5)
            await pilot.press(*response_id)
            await pilot.press("enter")
            assert await wait_until(pilot, lambda: screen_of(pilot) is not screen, 10)
            opened = screen_of(pilot)
            assert app.live is None  # the run's keys no longer act on what is shown
            assert opened.session.source.startswith("GET ")
            assert opened.session.source.endswith(f"/responses/{response_id}")
            assert await wait_until(
                pilot,
                lambda: any(
                    "mcp_call broken_schema @demo  failed" in line for line in labels(opened)
                ),
                10,
            ), labels(opened)

            # No event marks the failure (a stored response has none): its item is selected.
            def on_failed_call() -> bool:
                node = opened.tree.cursor_node
                return node is not None and "broken_schema" in str(node.label)

            assert await wait_until(pilot, on_failed_call, 10)
            await pilot.press("f")
            await pilot.pause()
            assert not any("No failure" in t for t in toasts(pilot))
            assert on_failed_call()
