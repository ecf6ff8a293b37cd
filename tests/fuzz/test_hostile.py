"""Hostile inputs in every format README lists, through every file-reading command as an
`mcptui` process of its own under a time and memory cap (tests/fuzz/hostile.py builds and runs
them): forked from tests/_cli_fork.py's server, which has imported mcptui already (~0.1 s of CPU
a run instead of ~1.2 s), but for what only the console script's own process shows.

Two properties per run, so a leak and a crash are told apart:
- it ends by itself with exit 0, 1 or 2, no traceback, and no ESC, BEL, C1 or bidi control in
  its standard output, standard error or any file it wrote;
- none of the planted secrets (API key, server_url path token, MCP header value) is in any of them.

CI runs a seeded, stratified sample: one input per format, one or two commands each, the
commands in turn (well under a minute on two cores). `--fuzz-long` runs every input through
every command (bench/audit_hostile.py prints the same as a table).

A FIFO with no writer is given up after `MCPTUI_INPUT_WAIT` seconds (README's 10 s, 2 here).
"""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from _cli_fork import forked_run
from hostile import COMMANDS, Case, Launch, Ran, Result, generate, process, run

pytestmark = pytest.mark.xdist_group("test_hostile")
"""One worker runs this module (`--dist loadgroup`, pyproject.toml): otherwise
its session fixture runs every hostile case once in each worker that runs one of its tests."""

MCPTUI = str(Path(sys.executable).with_name("mcptui"))
SEED = 35
INPUT_WAIT = "2"
TIMEOUT = 45.0
"""A runaway guard (a run takes seconds): a FIFO no one writes to must be given up in 10 s."""
MEMORY = 3 << 30
"""RLIMIT_AS of each run (of a fork: beyond what it holds at the fork): a runaway guard, not a
target (the largest input is 8 MB)."""


def forked(args: list[bytes], work: Path, env: dict[str, str], timeout: float, memory: int) -> Ran:
    """The run forked from the server: its own pid, folder, environment, session and output."""
    done = forked_run(list(args), work, env, timeout, memory=memory)
    return Ran(done.returncode, done.max_rss_kb, done.timed_out, done.stdout, done.stderr)


def launcher(case: Case) -> Launch:
    """The console script for a file name that is not UTF-8 (argv bytes); a fork for the
    rest."""
    try:
        case.filename.decode("utf-8")
    except UnicodeDecodeError:
        return process(MCPTUI)
    return forked


def ci_sample() -> list[tuple[Case, str]]:
    """One input per format (seeded), each with the next command in turn; the first five
    formats with a second one, so every command runs on two or three formats."""
    rng = random.Random(SEED)
    by_format: dict[str, list[Case]] = {}
    for case in generate():
        by_format.setdefault(case.fmt, []).append(case)
    commands = list(COMMANDS)
    rng.shuffle(commands)
    chosen: list[tuple[Case, str]] = []
    turn = 0
    for number, (_, cases) in enumerate(sorted(by_format.items())):
        case = rng.choice(cases)
        for _ in range(2 if number < 5 else 1):
            chosen.append((case, commands[turn % len(commands)]))
            turn += 1
    return chosen


def full_set() -> list[tuple[Case, str]]:
    return [(case, command) for case in generate() for command in COMMANDS]


def selected(config: pytest.Config) -> list[tuple[Case, str]]:
    if not hasattr(config, "_hostile_runs"):
        config._hostile_runs = full_set() if config.getoption("--fuzz-long") else ci_sample()
    return config._hostile_runs


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for fixture in ("crash_run", "leak_run"):
        if fixture in metafunc.fixturenames:
            runs = selected(metafunc.config)
            metafunc.parametrize(
                fixture, runs, ids=[f"{case.name}-{command}" for case, command in runs]
            )


@pytest.fixture(scope="session")
def results(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[tuple[str, str], Result]]:
    """Every selected run, two at a time (the machine has two cores; the forks one at a time):
    each test reads its own.
    A FIFO no one writes to is given up after `INPUT_WAIT` seconds (README's 10 s otherwise)."""
    runs = selected(request.config)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCPTUI_INPUT_WAIT", INPUT_WAIT)
        yield _run_all(runs, tmp_path_factory)


def _run_all(
    runs: list[tuple[Case, str]], tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Result]:
    root = tmp_path_factory.mktemp("hostile")

    def one(number: int, case: Case, command: str) -> Result:
        work = root / f"{number:04d}"
        try:
            return run(
                case, command, work, MCPTUI, timeout=TIMEOUT, memory=MEMORY, launch=launcher(case)
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)

    with ThreadPoolExecutor(2) as pool:
        done = pool.map(lambda job: one(job[0], *job[1]), enumerate(runs))
        return {(r.case, r.command): r for r in done}


def test_every_command_ends_cleanly_and_shows_no_control(
    results: dict[tuple[str, str], Result], crash_run: tuple[Case, str]
):
    case, command = crash_run
    result = results[case.name, command]
    problems = [p for p in result.problems if not p.startswith("secret")]
    assert not problems, f"{case.name} {command}: exit {result.code}: {problems}"


def test_no_planted_secret_in_any_output(
    results: dict[tuple[str, str], Result], leak_run: tuple[Case, str]
):
    case, command = leak_run
    result = results[case.name, command]
    leaks = [p for p in result.problems if p.startswith("secret")]
    assert not leaks, f"{case.name} {command}: {leaks}"
