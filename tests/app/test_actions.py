"""The action table (ui/actions.py) is the one source of every key: the screen's bindings, the
footer's order, `?`, the palette and README's key tables come from it."""

from __future__ import annotations

from pathlib import Path

from _app_support import SAMPLE_424, SIZE, screen_of
from mcptui.sources.replay import open_session
from mcptui.ui.actions import ACTIONS, BY_NAME, readme_table
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.keys import KeysScreen, keys_table
from mcptui.ui.widgets.footer import PRIORITY
from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[2]


def app_for(path: Path) -> McptuiApp:
    return McptuiApp(open_session(str(path)), paused=True)


def readme_block(marker: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n", readme.index(marker)) + 1
    rows = []
    for line in readme[start:].splitlines():
        if not line.startswith("|") or line.startswith("| `ctrl+p`"):
            break
        rows.append(line)
    return "\n".join(rows) + "\n"


def test_readme_key_tables_are_the_action_table():
    assert readme_block("<!-- keys: generated") == readme_table(live=False)
    assert readme_block("<!-- live keys: generated") == readme_table(live=True)


def test_every_action_is_run_by_the_owner_the_table_names():
    for action in ACTIONS:
        holder = {"app": McptuiApp, "screen": InspectorScreen}.get(action.owner)
        if holder is not None:
            assert callable(getattr(holder, f"action_{action.name}", None)), action.name
        else:
            routed = getattr(InspectorScreen, f"action_{action.name}")
            assert action.owner in (routed.__doc__ or ""), action.name


def test_the_bindings_and_the_footer_come_from_the_table():
    screen_actions = [b.action for b in InspectorScreen.BINDINGS]
    app_actions = [b.action for b in McptuiApp.BINDINGS]
    assert sorted(screen_actions + app_actions) == sorted(a.name for a in ACTIONS)
    assert {a.name: a.rank for a in ACTIONS if a.rank is not None} == PRIORITY
    shown = {b.action for b in InspectorScreen.BINDINGS if b.show}
    assert shown == {a.name for a in ACTIONS if a.rank is not None and a.owner != "app"}


def table_lines(table: Table) -> list[str]:
    console = Console(width=200, record=True, color_system=None)
    console.print(table)
    return console.export_text().splitlines()


def help_text(screen: InspectorScreen) -> list[str]:
    return table_lines(keys_table(screen))


async def test_help_lists_quit_and_says_probe_is_not_available_without_a_failed_call():
    """`?` used to omit `q Quit` and to list `p Probe` as available where it was not."""
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("home")
        await pilot.pause()
        lines = help_text(screen)
        quit_line = next(line for line in lines if line.split()[:2] == ["q", "Quit"])
        assert "not available" not in quit_line
        probe_line = next(line for line in lines if line.split()[:2] == ["p", "Probe"])
        assert probe_line.rstrip().endswith("not available now")
        for action in ACTIONS:  # every key is listed, none dropped silently
            assert any(action.title in line for line in lines), action.name

        await pilot.press("f")  # the failed call: now probe works
        await pilot.pause()
        probe_line = next(line for line in help_text(screen) if line.split()[:2] == ["p", "Probe"])
        assert "not available" not in probe_line

        await pilot.press("question_mark")
        assert isinstance(app.screen, KeysScreen)
        shown = table_lines(app.screen.table)
        quit_line = next(line for line in shown if line.split()[:2] == ["q", "Quit"])
        assert "not available" not in quit_line  # q quits from the inspector, as `?` says


def test_foreground_and_only_tool_keys_are_the_tables():
    from mcptui.ui.screens.cause_actions import FOREGROUND_KEY, ONLY_TOOL_KEY

    assert BY_NAME["rerun_foreground"].keys == FOREGROUND_KEY
    assert BY_NAME["rerun_only_tool"].keys == ONLY_TOOL_KEY


async def test_the_table_says_which_keys_wait_for_a_condition_and_the_screen_obeys_it():
    """In a replay with nothing selected, exactly the actions with a condition (`when`: the
    live keys, the cause keys, probe, the verdict's diff) are refused, save the tool workspace
    and edit (a server to call, a request to edit: the recording has both); every other key
    of the screen works."""
    app = app_for(SAMPLE_424)
    async with app.run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        await pilot.press("home")
        await pilot.pause()
        refused = {
            action.name
            for action in ACTIONS
            if action.owner != "app" and not screen.check_action(action.name, ())
        }
        # The tool workspace needs only a server to call, and editing the request only the
        # request: the recording names both. Escape clears the filter wherever there is no
        # list to go back to (`mcptui watch`'s).
        assert refused == {action.name for action in ACTIONS if action.when} - {
            "tool_workspace",
            "edit_request",
            "clear_filter",
        }
        assert {"approve", "rerun_foreground", "probe"} <= refused
        assert screen.check_action("tool_workspace", ())
        assert screen.check_action("edit_request", ())
