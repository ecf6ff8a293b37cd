"""Where nothing can be written (no name, a folder, a file's path as a folder, a named pipe
that would block until something reads it), `run --record`, `report -o`, `export -o` and
`replay --screenshot` say so in one line and exit 2 before any work: never a hang, never the
wrong place (`export -o ''` wrote to standard output), never a stray file (`--record
/dev/null` made /dev/null-2)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from _cli_fork import forked_cli, real_cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "recordings" / "mcp-424-broken-schema.jsonl"
COMMANDS = {
    "report": ["report", str(SAMPLE), "-o"],
    "export": ["export", str(SAMPLE), "-o"],
    "screenshot": ["replay", str(SAMPLE), "--screenshot"],
    "record": [
        "run",
        str(REPO / "requests" / "demo.json"),
        "--no-tui",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--record",
    ],
}


def mcptui(args: list[str], cwd: Path, *, real: bool = False) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` forked from a process that has imported mcptui (_cli_fork.py), or with
    `real` a `python -m mcptui` of its own (the named pipe's cases: one real process for each
    command here)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-not-used", "CI": "true"}
    return (real_cli if real else forked_cli)(args, cwd, env, timeout=30)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(
    ("place", "words"),
    [
        ("", "needs a file name"),
        ("afile/out.x", "afile is a file, not a folder"),
        ("folder", "it is a folder"),
        ("pipe", "would block until something reads it"),
    ],
)
def test_an_output_nothing_can_be_written_to_is_refused_at_once(
    tmp_path: Path, command: str, place: str, words: str
) -> None:
    (tmp_path / "afile").write_text("keep me")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe")
    done = mcptui([*COMMANDS[command], place], tmp_path, real=place == "pipe")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("mcptui: cannot ") and words in line, line
    assert (tmp_path / "afile").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "folder", "pipe"]


def test_a_recording_to_a_device_is_written_there_not_beside_it(tmp_path: Path) -> None:
    before = set(Path("/dev").iterdir())
    done = mcptui([*COMMANDS["record"], "/dev/null"], tmp_path)
    assert done.returncode == 1, done.stderr  # the API is not there: a connection failure
    assert "recorded to /dev/null" in done.stderr
    assert set(Path("/dev").iterdir()) == before
