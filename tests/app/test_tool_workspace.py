"""The tool workspace (`w`) over a live demo run: opened on the failed call, its form holds
that call's arguments; Ctrl+S calls the tool and shows the classic output-schema failure with
its cause; a changed argument is a second call in the history, and both are in the recording
as probe notes. Against the emulator and the demo MCP server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from _app_support import demo_run, screen_of, static_text, wait_until
from mcptui.ui.screens.tool_workspace import ToolWorkspaceScreen
from textual.widgets import Input, OptionList, Static

SECRET = "demo-secret-never-recorded"


async def test_w_calls_the_failed_tool_from_a_prefilled_form_and_keeps_a_history(
    tmp_path: Path,
):
    recording = tmp_path / "demo.jsonl"
    with demo_run(recording) as (_servers, _session, app):
        async with app.run_test(size=(120, 45)) as pilot:
            screen = screen_of(pilot)
            failed = screen.diagnosing._failed_call
            assert await wait_until(pilot, lambda: failed() is not None, 20)  # the run ended on it

            await pilot.press("w")
            assert await wait_until(pilot, lambda: isinstance(app.screen, ToolWorkspaceScreen), 5)
            workspace = app.screen
            assert isinstance(workspace, ToolWorkspaceScreen)
            assert await wait_until(pilot, lambda: workspace.current is not None, 10)
            assert workspace.current is not None
            assert workspace.current.tool.name == "broken_schema"
            box = workspace.query_one("#tw-form").query_one(Input)
            assert box.value == "webhook retry policy"  # the failed call's arguments

            await pilot.press("ctrl+s")
            result = workspace.query_one("#tw-result", Static)
            assert await wait_until(pilot, lambda: "OpenAI would report" in static_text(result), 10)
            shown = static_text(result)
            assert "declares an outputSchema but the result has no structuredContent" in shown
            assert "likely cause: Output schema without structuredContent" in shown
            assert "the result below has no structuredContent" in shown
            assert '"type": "text"' in shown  # the server's own answer, though the SDK refused it

            box.value = "another query"
            await pilot.press("ctrl+s")
            history = workspace.query_one("#tw-history", OptionList)
            assert await wait_until(
                pilot,
                lambda: history.option_count == 2 and "as call #1" in static_text(result),
                10,
            )
            lines = [str(history.get_option_at_index(i).prompt) for i in range(2)]
            assert '#1 broken_schema {"query": "webhook retry policy"}' in lines[0]
            assert '#2 broken_schema {"query": "another query"}' in lines[1]
            assert "missing_structured_content" in lines[1]

            history.focus()
            history.highlighted = 0
            await pilot.press("enter")  # the first call again: its arguments back in the form
            await pilot.pause()
            assert workspace.query_one("#tw-form").query_one(Input).value == (
                "webhook retry policy"
            )
            await pilot.press("escape")
            assert await wait_until(pilot, lambda: app.screen is screen, 5)
            await pilot.press("q")
    text = recording.read_text()
    assert SECRET not in text
    notes = [
        json.loads(line)["note"]
        for line in text.splitlines()
        if '"kind":"probe"' in line.replace(" ", "")
    ]
    assert len(notes) == 2
    assert notes[0]["message"].startswith("tool workspace: tools/call broken_schema on demo")
    assert notes[1]["call"]["arguments"] == {"query": "another query"}


async def test_every_kind_of_field_makes_its_argument_and_names_are_shown_as_typed():
    """The form's boxes for each kind (an enum with a number among its values, a required enum
    left blank, a boolean whose name looks like markup) and the arguments they make."""
    from mcptui.model.schema_form import arguments_of, fields_of
    from mcptui.ui.screens.tool_workspace import _text_of_widget, _widget
    from textual.app import App, ComposeResult
    from textual.widgets import Checkbox, Select

    schema = {
        "type": "object",
        "properties": {
            "[bold]x[/bold]": {"type": "boolean"},
            "mode": {"enum": ["[red]a", "b", 3]},
            "level": {"enum": ["p", "q"]},
            "limit": {"type": "integer"},
        },
        "required": ["level"],
    }
    fields = fields_of(schema)
    assert fields is not None
    given = {"mode": 3, "limit": 7}
    boxes = []

    class Form(App[None]):
        def compose(self) -> ComposeResult:
            boxes.extend(_widget(field, given.get(field.name)) for field in fields)
            yield from boxes

    async with Form().run_test() as pilot:
        await pilot.pause()
        assert str(pilot.app.query_one(Checkbox).label) == "[bold]x[/bold]"
        assert len(pilot.app.query(Select)) == 2
        texts = {field.name: _text_of_widget(box) for field, box in zip(fields, boxes, strict=True)}
        arguments, problems = arguments_of(fields, texts)
    assert arguments == {"[bold]x[/bold]": False, "mode": 3, "limit": 7}
    assert problems == ["level: required"]


async def test_an_oauth_server_says_what_it_needs_and_a_token_opens_it():
    """`mcptui tools URL`: a server built with the mcp SDK's auth refuses the listing, and the
    workspace says what it wants; with the token `--oauth` gets (here the flow is driven by
    the test playing the browser) its tools are listed. The token is on no screen."""

    from _oauth_servers import SCOPE, authorized, protected_server
    from mcptui.ui.screens.tool_workspace import ToolsApp, ToolSource

    with protected_server() as served:
        entry = {"type": "mcp", "server_label": "guarded", "server_url": served.mcp}
        app = ToolsApp([ToolSource("guarded", entry)], None)
        async with app.run_test(size=(120, 40)) as pilot:
            title = app.screen.query_one("#tw-title", Static)
            assert await wait_until(pilot, lambda: "✗" in static_text(title), 15)
            shown = static_text(title)
            assert "answered HTTP 401 Unauthorized" in shown
            assert (
                f"guarded needs OAuth: authorization server {served.issuer_url}/, scopes {SCOPE}"
            ) in shown
            assert "`mcptui tools URL --oauth` gets a token" in shown

        got = await authorized(served.mcp)
        assert got.scope == SCOPE
        entry = {**entry, "headers": {"Authorization": got.header}}
        app = ToolsApp([ToolSource("guarded", entry)], None)
        async with app.run_test(size=(120, 40)) as pilot:
            tools = app.screen.query_one("#tw-tools", OptionList)
            assert await wait_until(pilot, lambda: tools.option_count == 2, 15)
            names = [str(tools.get_option_at_index(i).prompt) for i in range(2)]
            assert names == ["guarded · echo", "guarded · whoami"]
            everything = " ".join(static_text(w) for w in app.screen.query(Static))
            assert got.access_token not in everything
