"""The terminal UI without a terminal (standard input or output redirected, as in a script or
CI): one line saying what to use instead, exit 2, nothing sent, never a hang or a screenful of
escape codes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _cli_fork import forked_cli, real_cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "recordings" / "mcp-424-broken-schema.jsonl"


def without_terminal(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` with stdin from /dev/null and stdout and stderr to files: forked from a
    process that has imported mcptui (_cli_fork.py), but `replay` as a real `python -m mcptui`
    (one real process among these: the Textual app is the one to start, or refuse to)."""
    env = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-not-used", "CI": "true"}
    real = args[0] == "replay" and "--step" not in args
    return (real_cli if real else forked_cli)(list(args), cwd, env, timeout=30)


@pytest.mark.parametrize(
    ("args", "instead"),
    [
        (["replay", str(SAMPLE)], "mcptui inspect"),
        (["replay", str(SAMPLE), "--step", "3"], "--screenshot OUT.svg"),
        (
            [
                "run",
                str(REPO / "requests" / "demo.json"),
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--record",
                "rec.jsonl",
            ],
            "--no-tui",
        ),
        (["attach", "resp_x", "--base-url", "http://127.0.0.1:9/v1"], "--no-tui"),
        (["proxy", "--port", "0"], "--no-tui"),
        (["tap", "--upstream", "http://127.0.0.1:9/mcp", "--port", "0"], "--no-tui"),
    ],
)
def test_the_terminal_ui_refuses_to_start_without_a_terminal(
    tmp_path: Path, args: list[str], instead: str
) -> None:
    done = without_terminal(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # not one escape code
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("mcptui: the terminal UI needs a terminal") and instead in line
    assert not (tmp_path / "rec.jsonl").exists()  # nothing was sent, nothing recorded
