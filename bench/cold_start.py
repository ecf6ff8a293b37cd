"""Cold start: how long a fresh `mcptui` process takes on a small recording (issue 37).

Why: a user runs `mcptui inspect FILE` or opens FILE in the app far more often than anything
else, and on a small file almost all of that time is the interpreter starting and mcptui's
imports, not the file. These figures are what the user waits for.

What it measures, each in fresh processes of the installed console script, after one untimed
warm run of each (so the bytecode is compiled and the SDK schema cache is written, as on any
machine after the first command; `PYTHONDONTWRITEBYTECODE` is dropped from the children's
environment for the same reason):

  inspect (wall, cpu)    `mcptui inspect SMALL > /dev/null`: wall from spawn to reaped, and the
                         child's user + system CPU (`os.wait4`), best of `--repeat`
  inspect --json, report the same for `mcptui inspect --json SMALL` and `mcptui report SMALL`
  first screen           `mcptui replay SMALL --instant` in a real terminal: tmux on a private
                         socket (`-L`), 100x30; from the `tmux new-session` that launches it (the
                         tmux server is already up) to the first `capture-pane` that shows the
                         failure's text (`http_error 424`), polled every 5 ms; best and median,
                         and (information: wall time swings with the machine's load, CPU less)
                         the app's CPU by then, from /proc, best

Anchors, measured in the same run (the machine's speed swings by 30-50% between spells):
`python -c pass` wall, best of `--repeat`, and the CPU of a fixed 10M-step Python loop in this
process, best of 3.

Goals: inspect <= 0.3 s of wall, first screen <= 0.4 s (the best of the runs). Every figure is
printed for a person and as one machine-readable line,
`FIGURE<TAB>name<TAB>value<TAB>unit<TAB>goal<TAB>PASS|FAIL|info` (bench/figures.py). The exit
status is 0 whether or not the goals are met (the lines say).

Run: `.venv/bin/python bench/cold_start.py [--quick] [--repeat N]`. Needs tmux for the
first-screen figure (skipped, and said, without it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import figure

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
MCPTUI = Path(sys.executable).parent / "mcptui"
SCREEN_TEXT = "http_error 424"
"""On the first screen of SMALL: the failed call's error, in the tree and the detail pane."""
SOCKET = f"mcptui-cold-{os.getpid()}"
TERMINAL_SIZE = ("100", "30")
POLL_SECONDS = 0.005
SCREEN_TIMEOUT = 15.0

INSPECT_GOAL = 0.3
SCREEN_GOAL = 0.4


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    goal: float | None
    """None for an anchor or information: printed without a verdict."""

    def human(self) -> str:
        text = f"  {self.name:<44} {self.value:7.3f} {self.unit}"
        if self.goal is None:
            return text
        verdict = "PASS" if self.value <= self.goal else "FAIL"
        return f"{text}   goal <= {self.goal} s   {verdict}"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
    return env


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds from spawn to reaped, and the child's user + system CPU seconds."""
    began = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_env()
    )
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = 0  # reaped by wait4: keep Popen from waiting again
    return wall, usage.ru_utime + usage.ru_stime


def best_of(argv: list[str], repeat: int) -> tuple[float, float]:
    run_once(argv)  # warm: bytecode, the SDK schema cache, the page cache
    runs = [run_once(argv) for _ in range(repeat)]
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def loop_cpu() -> float:
    """CPU seconds of a fixed 10M-step Python loop, best of 3: the machine's speed now."""
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        total = 0
        for step in range(10_000_000):
            total += step
        best = min(best, time.process_time() - began)
    return best


def tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, env=child_env()
    )


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds a running process has used so far (clock-tick resolution)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def screen_once(index: int) -> tuple[float, float | None] | None:
    """Seconds from launching the app in a new tmux session to SCREEN_TEXT on its screen, and
    the CPU seconds the app had used by then (None where /proc cannot say)."""
    name = f"run{index}"
    command = f"exec {MCPTUI} replay {SMALL} --instant"
    width, height = TERMINAL_SIZE
    began = time.perf_counter()
    tmux("new-session", "-d", "-s", name, "-x", width, "-y", height, command)
    try:
        while time.perf_counter() - began < SCREEN_TIMEOUT:
            if SCREEN_TEXT in tmux("capture-pane", "-p", "-t", name).stdout:
                wall = time.perf_counter() - began
                pid = tmux("display-message", "-p", "-t", name, "#{pane_pid}").stdout.strip()
                return wall, process_cpu(int(pid)) if pid.isdigit() else None
            time.sleep(POLL_SECONDS)
        return None
    finally:
        tmux("kill-session", "-t", name)


def first_screen(repeat: int) -> list[tuple[float, float | None]] | None:
    """Each run's seconds to the first screen and the app's CPU by then (a run that timed
    out is left out)."""
    if shutil.which("tmux") is None:
        print("  first screen: skipped, tmux is not installed")
        return None
    # A session that only holds the server up, so no run pays for starting it.
    tmux("new-session", "-d", "-s", "hold", "-x", TERMINAL_SIZE[0], "-y", TERMINAL_SIZE[1])
    try:
        screen_once(0)  # warm
        times = [t for t in (screen_once(i + 1) for i in range(repeat)) if t is not None]
    finally:
        socket_path = tmux("display-message", "-p", "#{socket_path}").stdout.strip()
        tmux("kill-server")
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)  # tmux leaves the socket file behind
    if len(times) < repeat:
        print(f"  first screen: {repeat - len(times)} run(s) timed out after {SCREEN_TIMEOUT} s")
    return times or None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (3 instead of 7)")
    parser.add_argument("--repeat", type=int, default=None, help="fresh processes per figure")
    args = parser.parse_args()
    repeat = args.repeat or (3 if args.quick else 7)
    small = str(SMALL)

    figures: list[Figure] = []
    pass_wall, _ = best_of([sys.executable, "-c", "pass"], repeat)
    figures.append(Figure("anchor: python -c pass (wall)", pass_wall, "s", None))
    figures.append(Figure("anchor: 10M-step Python loop (cpu)", loop_cpu(), "s", None))

    for label, argv, goal in (
        ("inspect small file", ["inspect", small], INSPECT_GOAL),
        ("inspect --json small file", ["inspect", "--json", small], INSPECT_GOAL),
        ("report small file", ["report", small], INSPECT_GOAL),
    ):
        wall, cpu = best_of([str(MCPTUI), *argv], repeat)
        figures.append(Figure(f"cold start: {label} (wall)", wall, "s", goal))
        figures.append(Figure(f"cold start: {label} (cpu)", cpu, "s", None))

    screens = first_screen(repeat)
    if screens is not None:
        times = [wall for wall, _ in screens]
        figures.append(
            Figure("cold start: first screen in tmux (best)", min(times), "s", SCREEN_GOAL)
        )
        figures.append(
            Figure("cold start: first screen in tmux (median)", statistics.median(times), "s", None)
        )
        cpus = [cpu for _, cpu in screens if cpu is not None]
        if cpus:
            figures.append(Figure("cold start: first screen, app cpu (best)", min(cpus), "s", None))

    print(f"cold start, {SMALL.name}, best of {repeat} fresh processes (after a warm run):")
    for one in figures:
        print(one.human())
    for one in figures:
        figure(one.name, one.value, one.unit, one.goal)  # bench/all.py reads these
    return 0


if __name__ == "__main__":
    sys.exit(main())
