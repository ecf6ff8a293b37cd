"""Hostile input through every layer: each mutated input goes through the importers, the
reducer (to the end and back), the checks and likely causes, and both `inspect` modes; a
sample also through the app, headless (open, end, home, expand, every view). Property: no
exception escapes, nothing reaches the terminal as a control sequence, and every case ends
in bounded time.

CI runs `CASES` inputs (well under a minute); `pytest tests/fuzz --fuzz-long` runs thousands.
"""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from corpus import CASES, corpus
from mcptui.cli.main import main
from mcptui.io.formats import load_bytes
from mcptui.share.inspect_output import Inspection, render, to_json
from mcptui.sources.session import Session
from mcptui.ui.app import McptuiApp
from rich.console import Console

SHORT, LONG = 300, 3000
CLI_EVERY = 10
"""One case in this many also runs through the command line."""
APP_EVERY = 25
"""One case in this many also runs through the app (each costs about a second)."""
SECONDS_PER_CASE = 30.0
"""A generous bound (inputs are at most a few MB): a runaway shows as minutes, not seconds."""
UNSAFE = {chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))} | set(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def cases(config: pytest.Config) -> list[tuple[str, bytes]]:
    return list(corpus(LONG if config.getoption("--fuzz-long") else SHORT))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for fixture, every in (("case", 1), ("cli_case", CLI_EVERY), ("app_case", APP_EVERY)):
        if fixture in metafunc.fixturenames:
            found = cases(metafunc.config)[::every]
            metafunc.parametrize(fixture, found, ids=[name for name, _ in found])


def test_no_exception_escapes_and_nothing_reaches_the_terminal(case: tuple[str, bytes]):
    name, data = case
    started = time.monotonic()
    loaded = load_bytes(data, source=name)
    inspection = Inspection.of(loaded)  # folds to the end and diagnoses
    timeline = inspection.timeline
    timeline.seek(0)
    timeline.seek_end()

    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(render(inspection))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert not UNSAFE & set(shown), name
    shown.encode("utf-8")  # a lone surrogate would stop every terminal and file write
    as_json = json.dumps(to_json([inspection]), ensure_ascii=False, default=str)
    json.loads(as_json)
    as_json.encode("utf-8")
    assert time.monotonic() - started < SECONDS_PER_CASE, name
    CASES.append(name)


def test_inspect_command_exit_codes(tmp_path: Path, cli_case: tuple[str, bytes]):
    name, data = cli_case
    path = tmp_path / "input"
    path.write_bytes(data)
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["inspect", "--json", str(path)])
    assert code in (0, 1, 2), name  # 3 would be an internal error
    json.loads(out.getvalue())


async def test_the_app_opens_steps_and_shows_every_view(app_case: tuple[str, bytes]):
    name, data = app_case
    session = Session.from_loaded(load_bytes(data, source=name), instant=True)
    if not session.usable:
        return
    app = McptuiApp(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("end", "home", "end", "enter", "down", "enter", "f", "F")
        await pilot.press("v", "v", "v", "left", "left", "right")
        await pilot.pause()
    assert app.return_code in (0, None), name
