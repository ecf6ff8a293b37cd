"""The cyclic collector is off while a command starts (its imports, ~30 ms of a cold start, see
`mcptui.cli.common.hold_collector`) and on again for the command's own work, whatever way it
ends."""

from __future__ import annotations

import argparse
import gc
from pathlib import Path

import pytest
from mcptui.cli import common, inspect, probe
from mcptui.cli.main import main

SMALL = Path(__file__).resolve().parents[2] / "recordings" / "mcp-424-broken-schema.jsonl"


@pytest.fixture(autouse=True)
def collector_on():
    assert gc.isenabled()
    yield
    gc.enable()


def test_held_until_the_command_has_imported_what_it_needs(monkeypatch: pytest.MonkeyPatch):
    seen: dict[str, bool] = {}

    def run(args: argparse.Namespace) -> int:
        seen["starting"] = gc.isenabled()
        common.release_collector()
        seen["working"] = gc.isenabled()
        return 0

    monkeypatch.setattr(inspect, "run", run)
    assert main(["inspect", str(SMALL)]) == 0
    assert seen == {"starting": False, "working": True}
    assert gc.isenabled()


def test_a_command_that_ends_early_gives_it_back(monkeypatch: pytest.MonkeyPatch):
    def run(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(inspect, "run", run)
    assert main(["inspect", str(SMALL)]) == 3
    assert gc.isenabled()


def test_other_commands_get_it_back_before_they_run(monkeypatch: pytest.MonkeyPatch):
    seen: list[bool] = []
    monkeypatch.setattr(probe, "run_probe", lambda args: seen.append(gc.isenabled()) or 0)
    assert main(["probe", "http://127.0.0.1:9/mcp"]) == 0
    assert seen == [True]


def test_inspect_runs_with_it(capsys: pytest.CaptureFixture[str]):
    assert main(["inspect", str(SMALL)]) == 1  # the recording holds a failure
    assert "424" in capsys.readouterr().out
    assert gc.isenabled()


def test_not_turned_on_where_it_was_off():
    gc.disable()
    common.hold_collector()
    common.release_collector()
    assert not gc.isenabled()


def test_an_app_gets_it_back_once_its_first_screen_is_painted():
    class FakeApp:
        crash = None
        return_code = 0
        when_shown = None

        def run(self) -> None:
            self.held_while_starting = not gc.isenabled()
            assert self.when_shown is not None
            self.when_shown()  # what SafeApp does after its first refresh
            self.on_after = gc.isenabled()

    common.hold_collector()
    app = FakeApp()
    assert common.run_app(app) == 0  # type: ignore[arg-type]
    assert app.held_while_starting and app.on_after


async def test_safe_app_calls_it_after_its_first_refresh():
    from mcptui.sources.replay import open_session
    from mcptui.ui.app import McptuiApp

    app = McptuiApp(open_session(str(SMALL), instant=True))
    called: list[bool] = []
    app.when_shown = lambda: called.append(True)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(20):
            if called:
                break
            await pilot.pause()
    assert called == [True]
