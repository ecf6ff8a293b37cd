"""Save and open from the keyboard in a real terminal: prompts, toasts, files on disk.

Why: a path with markup characters, an existing file and a missing one are where a prompt or a
toast can crash or silently lose data; only the real app shows what a person would see.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from _tmux import (
    AT_END,
    RECORDINGS,
    MakeTerminal,
    Terminal,
    dialog_text,
    event_count,
    fill_box,
    jsonl_ok,
)

SOURCE = RECORDINGS / "mcp-424-broken-schema.jsonl"
OTHER = RECORDINGS / "mcp-success.jsonl"
SENTINEL = '{"sentinel": "the old file"}\n'
SAVE = re.compile(r"(?i)save recording")
OPEN = re.compile(r"(?i)open a recording")


def replay(make: MakeTerminal, path: Path) -> Terminal:
    term = make(80, 24).start("replay", path, "--instant")
    term.wait_for(AT_END)
    return term


def answer_prompt(term: Terminal, key: str, text: str, prompt: re.Pattern[str]) -> None:
    """Open a prompt with `key`, replace its default with `text` and press Enter."""
    term.send(key)
    term.wait_for(prompt)
    fill_box(term, text)
    term.send("Enter")


def response_id(path: Path) -> str:
    for row in jsonl_ok(path):
        event = row.get("event")
        if isinstance(event, dict) and event.get("type") == "response.created":
            return str(event["response"]["id"])
    raise AssertionError(f"no response.created in {path}")


def test_save_to_a_path_with_markup(terminal_factory: MakeTerminal, tmp_path: Path) -> None:
    """The toast shows the path literally: `[b]` is not taken as markup."""
    target = tmp_path / "x[b]y[/b]z.jsonl"
    count = event_count(SOURCE)
    term = replay(terminal_factory, SOURCE)

    answer_prompt(term, "s", str(target), SAVE)
    term.wait_for(f"Saved {count} events to", str(target))  # `[b]`, `[/b]` literally
    term.assert_healthy()
    assert target.is_file(), f"{target} was not written"
    rows = jsonl_ok(target)
    assert sum(1 for row in rows if "event" in row) == count


def test_save_over_an_existing_file_asks_first(
    terminal_factory: MakeTerminal, tmp_path: Path
) -> None:
    """n and Escape keep the old file, y overwrites it."""
    target = tmp_path / "x[b]y[/b]z.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(SENTINEL)
    count = event_count(SOURCE)
    term = replay(terminal_factory, SOURCE)
    for no in ["n", "Escape"]:
        answer_prompt(term, "s", str(target), SAVE)
        confirm = term.wait_for(re.compile(r"(?i)exists"), re.compile(r"(?i)overwrite"))
        assert f"{target} exists. Overwrite it?" in dialog_text(confirm), (
            f"the question does not name the file:\n{confirm}"
        )
        term.send(no)
        term.wait_gone(re.compile(r"(?i)overwrite"))
        term.wait_for("Not saved")  # the answer is taken: nothing was written
        assert target.read_text() == SENTINEL, f"{no!r} overwrote the file"
        term.assert_healthy()

    answer_prompt(term, "s", str(target), SAVE)
    term.wait_for(re.compile(r"(?i)overwrite"))
    term.send("y")
    deadline = time.monotonic() + 10
    while target.read_text() == SENTINEL and time.monotonic() < deadline:
        time.sleep(0.1)
    rows = jsonl_ok(target)
    assert sum(1 for row in rows if "event" in row) == count, "y did not overwrite the file"
    term.wait_for(f"Saved {count} events to")
    term.assert_healthy()


def test_open_another_recording(terminal_factory: MakeTerminal) -> None:
    term = replay(terminal_factory, SOURCE)
    wanted = response_id(OTHER)

    answer_prompt(term, "o", str(OTHER), OPEN)
    term.wait_until(
        lambda s: wanted in " ".join(s.splitlines()[:3]),
        f"the header to show the opened recording's response id {wanted}",
    )
    term.assert_healthy()


def test_open_a_missing_file_says_so(terminal_factory: MakeTerminal, tmp_path: Path) -> None:
    term = replay(terminal_factory, SOURCE)
    answer_prompt(term, "o", str(tmp_path / "missing.jsonl"), OPEN)
    term.wait_for("Could not open")
    term.assert_healthy()


def test_a_path_pasted_right_after_o_is_all_kept(terminal_factory: MakeTerminal) -> None:
    """`o`, the path and Enter in one burst (a paste): the first characters, sent before the
    box had focus, are neither lost nor taken as commands (`q` would quit, `r` re-run)."""
    term = replay(terminal_factory, SOURCE)
    term.type(f"o{OTHER}")
    term.send("Enter")
    wanted = response_id(OTHER)
    term.wait_until(
        lambda s: wanted in " ".join(s.splitlines()[:3]),
        f"the header to show the opened recording's response id {wanted}",
    )
    term.assert_healthy()
