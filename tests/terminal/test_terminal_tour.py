"""The ordinary first minute, on every shipped recording at 160x45 and 80x24: filter (shown
in the header) and clear it, next and previous failure, every view, help, save to a path with
markup in it, Ctrl+C.

Why: each of these keys once crashed or misled a new user in a real terminal while the
in-process tests were green; this is the sequence the issue's acceptance names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _tmux import AT_END, RECORDINGS, SIZES, MakeTerminal, event_count, fill_box, header

SETTLE = 0.3
"""Seconds between keys: Escape followed at once by a letter is read as Alt+letter."""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(p.name for p in RECORDINGS.glob("*.jsonl")))
def test_ordinary_keys_on_every_recording(
    terminal_factory: MakeTerminal, tmp_path: Path, name: str, size: tuple[int, int]
) -> None:
    source = RECORDINGS / name
    before = source.read_bytes()
    term = terminal_factory(*size).start("replay", source, "--instant")
    term.wait_for(AT_END)

    term.send("/")
    fill_box(term, "mcp")
    term.send("Enter")
    term.wait_for(re.compile(r"[\d,]+ events? match 'mcp'"))
    term.wait_until(lambda s: "filter: mcp" in header(s), "`filter: mcp` in the header")
    term.assert_healthy()
    term.send("Escape")
    term.wait_until(lambda s: "filter: mcp" not in header(s), "the filter to leave the header")
    for key in ("f", "F", "v", "v", "v"):
        term.send(key)
        term.settled(quiet=SETTLE)
        term.assert_healthy()
    term.send("?")
    term.wait_for("Keys", "Esc closes")
    term.send("Escape")
    term.wait_gone("Esc closes")
    term.assert_healthy()

    target = tmp_path / "tour [b]x[/b].jsonl"
    term.send("s")
    term.wait_for("Save recording as")
    fill_box(term, str(target))
    term.send("Enter")
    term.wait_for(f"Saved {event_count(source)} events to")
    term.assert_healthy()

    term.send("C-c")
    code = term.exit_code()
    term.assert_healthy(alive=False)
    # As inspect: 1 for a recording that holds a failure (all but the success sample).
    expected = 0 if name == "mcp-success.jsonl" else 1
    assert code == expected, f"exit code {code} after ctrl+c:\n{term.history()}"
    assert event_count(target) == event_count(source)
    assert source.read_bytes() == before  # replaying never writes to the file it reads
