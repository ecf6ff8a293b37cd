"""Habits in a real terminal at 80 columns (issue 39): the configuration file's `[replay]`
speed and theme apply, and the open dialog completes a path with Tab and lists the file
replayed before, which Enter opens."""

from __future__ import annotations

import shutil
from pathlib import Path

from _tmux import AT_END, RECORDINGS, MakeTerminal, dialog_text

OPEN = "Open a recording"


def test_the_open_dialog_completes_and_lists_the_file_replayed_before(
    terminal_factory: MakeTerminal, tmp_path: Path
) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    (config / "config.toml").write_text('theme = "nord"\n\n[replay]\ninstant = true\n')
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(RECORDINGS / "mcp-424-broken-schema.jsonl", runs / "alpha-failed.jsonl")
    shutil.copy(RECORDINGS / "mcp-success.jsonl", runs / "alpha-fine.jsonl")
    env = {"MCPTUI_CONFIG_DIR": str(config)}

    first = terminal_factory(80, 24).start("replay", "runs/alpha-failed.jsonl", env=env)
    first.wait_for(AT_END, "1 failure")  # instant, from the file: no --instant given
    first.send("q")
    first.wait_until(lambda _: not first.alive(), "the app to quit")

    term = terminal_factory(80, 24).start("replay", "runs/alpha-fine.jsonl", env=env)
    term.wait_for(AT_END, "0 failures")
    term.send("o")
    term.wait_for(OPEN, "Recent files")
    shown = dialog_text(term.screen())
    assert shown.index("alpha-fine.jsonl") < shown.index("alpha-failed.jsonl")  # newest first
    term.type("runs/al")
    term.send("Tab")
    term.wait_for("runs/alpha-f", "alpha-failed.jsonl  alpha-fine.jsonl")
    term.send("Down", "Down")  # the second recent file: the one replayed before
    term.send("Enter")
    term.wait_for(AT_END, "1 failure")
