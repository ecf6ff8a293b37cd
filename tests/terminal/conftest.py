"""Fixtures of the terminal tier: a tmux terminal per test, torn down whatever happens.

Why a fixture: the private tmux server (and the app in it) must be killed even when a test
fails half-way, or its processes would outlive the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _tmux import MakeTerminal, Terminal, mcptui_command, tmux_binary


@pytest.fixture
def terminal_factory(tmp_path: Path) -> Iterator[MakeTerminal]:
    """`make(width, height)` -> a Terminal in tmp_path (its cwd); every one is killed after."""
    tmux_binary()
    mcptui_command()
    made: list[Terminal] = []

    def make(width: int = 160, height: int = 45) -> Terminal:
        terminal = Terminal(tmp_path, width, height)
        made.append(terminal)
        return terminal

    try:
        yield make
    finally:
        for terminal in made:
            terminal.close()


@pytest.fixture
def terminal(terminal_factory: MakeTerminal) -> Terminal:
    """A 160x45 terminal."""
    return terminal_factory()
