"""`mcptui watch DIR` in a real terminal at 80x24: the empty folder's message, a recording
copied in while it runs listed, opened with Enter, left with Escape, and `q` exits 0."""

from __future__ import annotations

import shutil
from pathlib import Path

from _tmux import AT_END, RECORDINGS, MakeTerminal

SOURCE = RECORDINGS / "mcp-424-broken-schema.jsonl"


def test_a_recording_written_while_watching_is_listed_and_opens(
    terminal_factory: MakeTerminal, tmp_path: Path
) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    term = terminal_factory(80, 24).start("watch", folder)
    term.wait_for("No recordings here yet")
    shutil.copy(SOURCE, folder / "run.jsonl")
    term.wait_for("✗ failed")
    assert "run.jsonl" in term.screen()
    term.send("Enter")
    term.wait_for(AT_END)
    term.send("Escape")
    term.wait_for("Watching")
    term.assert_healthy()
    term.send("q")
    assert term.exit_code() == 0
