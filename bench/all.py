"""Every bench, one command: a table of each figure, its goal and PASS/FAIL, round by round.

Each bench runs as its own process and prints `FIGURE` lines (bench/figures.py); this collects
them. Every round starts with the anchor, a fixed 10-million-step Python loop's CPU time, so a
slow spell of the machine is told apart from a regression: compare a figure's ratio to its
anchor's across rounds, not the raw figure. README's figures come from this command.

Run: `.venv/bin/python bench/all.py [--rounds 3] [--quick] [--only NAME,...]`.
Exit 0 when every goal passed in every round, 1 otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
ANCHOR = """
import time
best = 9e9
for _ in range(3):
    s = time.process_time(); x = 0
    for i in range(10_000_000): x += i
    best = min(best, time.process_time() - s)
print(f"FIGURE\\tanchor: 10M-step Python loop (CPU)\\t{best:.3f}\\ts\\t\\tinfo")
"""


@dataclass(frozen=True)
class Bench:
    name: str
    argv: tuple[str, ...]
    quick: tuple[str, ...]
    """The arguments of a quick round (`--quick`: smaller inputs, fewer repeats)."""


BENCHES = (
    Bench("cold_start", ("bench/cold_start.py",), ("bench/cold_start.py", "--quick")),
    Bench(
        "dumps",
        ("bench/dumps.py", "--events", "200000"),
        ("bench/dumps.py", "--events", "20000", "--repeat", "1"),
    ),
    Bench(
        "dumps_1m",
        ("bench/dumps.py", "--events", "1000000", "--paint-only"),
        ("bench/dumps.py", "--events", "50000", "--paint-only", "--repeat", "1"),
    ),
    Bench(
        "live",
        ("bench/live.py", "--events", "200000"),
        ("bench/live.py", "--events", "20000", "--repeat", "1"),
    ),
    Bench("proxy", ("bench/proxy.py",), ("bench/proxy.py", "--quick")),
    Bench(
        "terminal_steps",
        ("bench/terminal_steps.py",),
        ("bench/terminal_steps.py", "--events", "20000", "--samples", "20"),
    ),
    Bench(
        "steps",
        ("bench/tui_open.py", "--reuse"),
        ("bench/tui_open.py", "--reuse", "--events", "20000", "--repeat", "1"),
    ),
)


@dataclass
class Row:
    name: str
    value: str
    unit: str
    goal: str
    verdict: str


def run(argv: list[str]) -> tuple[list[Row], str]:
    """The FIGURE lines of one bench process, and its failure (empty when it ran through)."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    rows = [
        Row(*line.split("\t")[1:6])
        for line in done.stdout.splitlines()
        if line.startswith("FIGURE\t") and line.count("\t") == 5
    ]
    failure = ""
    if not rows:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        failure = (
            f"exit {done.returncode} after {time.perf_counter() - start:.0f} s: " + " | ".join(tail)
        )
    return rows, failure


def table(rows: list[Row]) -> list[str]:
    width = max([len(row.name) for row in rows] + [10])
    lines = [f"  {'figure':<{width}}  {'value':>10} {'unit':<9} {'goal':<14} verdict"]
    lines += [
        f"  {row.name:<{width}}  {row.value:>10} {row.unit:<9} {row.goal:<14} {row.verdict}"
        for row in rows
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="small inputs: a smoke run")
    parser.add_argument("--only", default="", help="comma-separated bench names")
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHES if not args.only or b.name in args.only.split(",")]
    verdicts: dict[str, list[str]] = {}
    for round_number in range(1, args.rounds + 1):
        print(f"round {round_number} of {args.rounds}", flush=True)
        rows, _ = run([sys.executable, "-c", ANCHOR])
        for bench in chosen:
            found, failure = run([sys.executable, *(bench.quick if args.quick else bench.argv)])
            if failure:
                found.append(Row(f"{bench.name}: did not run", failure[:60], "", "", "FAIL"))
            rows += found
        for line in table(rows):
            print(line, flush=True)
        for row in rows:
            verdicts.setdefault(row.name, []).append(row.verdict)
    goals = {name: v for name, v in verdicts.items() if set(v) != {"info"}}
    passed = [name for name, v in goals.items() if set(v) == {"PASS"} and len(v) == args.rounds]
    print(f"goals passed in all {args.rounds} round(s): {len(passed)} of {len(goals)}")
    for name, v in goals.items():
        if name not in passed:
            print(f"  not met: {name} ({', '.join(v)})")
    return 0 if len(passed) == len(goals) else 1


if __name__ == "__main__":
    sys.exit(main())
