"""The hostile-input audit of issue 35: every generated input (tests/fuzz/hostile.py) through
every file-reading command (inspect, --json, --strict, report md/html, diff, export
curl/python/request, replay --screenshot) as a subprocess under a time and memory cap, and the
closing note's table per format and in total: inputs, runs, exit 3, runs over 20 s, runs over
1 GB peak RSS, leaks (a planted secret in an output) and escapes (ESC/BEL/C1/bidi in an output).

Runs against any checkout: `--mcptui /path/to/.venv/bin/mcptui` (the inputs are built here, by
the standard library and PyYAML, never by the checkout under test).

    .venv/bin/python bench/audit_hostile.py                       # everything (long)
    .venv/bin/python bench/audit_hostile.py --per-format 2        # a seeded sample per format
    .venv/bin/python bench/audit_hostile.py --mcptui /old/.venv/bin/mcptui --json before.json
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fuzz"))

from hostile import COMMANDS, Case, Result, generate, run  # noqa: E402

SLOW = 20.0
BIG_KB = 1 << 20  # 1 GiB in KiB (ru_maxrss)
COLUMNS = (
    "inputs",
    "runs",
    "exit 3",
    "other exit",
    ">20 s",
    ">1 GB",
    "leaks",
    "escapes",
    "tracebacks",
)


def sample(cases: list[Case], per_format: int, seed: int) -> list[Case]:
    """`per_format` inputs of each format, chosen with `seed` (all when 0)."""
    if not per_format:
        return cases
    rng = random.Random(seed)
    by_format: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_format[case.fmt].append(case)
    return [
        case
        for fmt in by_format
        for case in sorted(
            rng.sample(by_format[fmt], min(per_format, len(by_format[fmt]))), key=cases.index
        )
    ]


def tally(results: list[Result], inputs: dict[str, set[str]]) -> dict[str, dict[str, int]]:
    rows: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    for r in results:
        for key in (r.fmt, "total"):
            row = rows[key]
            row["runs"] += 1
            row["exit 3"] += r.code == 3
            row["other exit"] += r.code not in (0, 1, 2, 3) or r.timed_out
            row[">20 s"] += r.seconds > SLOW
            row[">1 GB"] += r.max_rss_kb > BIG_KB or any("MemoryError" in p for p in r.problems)
            row["leaks"] += any(p.startswith("secret") for p in r.problems)
            row["escapes"] += any(p.startswith("escape") for p in r.problems)
            row["tracebacks"] += any(p.startswith("traceback") for p in r.problems)
    for key, names in inputs.items():
        rows[key]["inputs"] = len(names)
    return rows


def table(rows: dict[str, dict[str, int]]) -> str:
    head = "| format | " + " | ".join(COLUMNS) + " |"
    lines = [head, "|" + " --- |" * (len(COLUMNS) + 1)]
    for key in [k for k in rows if k != "total"] + ["total"]:
        lines.append(f"| {key} | " + " | ".join(str(rows[key][c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mcptui", default=str(REPO / ".venv" / "bin" / "mcptui"))
    parser.add_argument(
        "--per-format",
        type=int,
        default=0,
        metavar="K",
        help="a seeded sample of K inputs per format (default: all)",
    )
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="RLIMIT_AS per run")
    parser.add_argument("--only", default="", help="comma-separated case name prefixes")
    parser.add_argument(
        "--also",
        default="",
        help="with --per-format: these case name prefixes too (comma-separated)",
    )
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--json", metavar="OUT", help="write every run's result here")
    args = parser.parse_args()

    everything = generate()
    cases = sample(everything, args.per_format, args.seed)
    if args.also:
        more = [
            c
            for c in everything
            if c.name.startswith(tuple(args.also.split(","))) and c not in cases
        ]
        cases = sorted(cases + more, key=everything.index)
    if args.only:
        cases = [c for c in cases if c.name.startswith(tuple(args.only.split(",")))]
    commands = args.commands.split(",")
    jobs = [(case, command) for case in cases for command in commands]
    root = Path(tempfile.mkdtemp(prefix="audit-hostile-"))
    started = time.monotonic()

    def one(number: int, case: Case, command: str) -> Result:
        work = root / f"{number:05d}"
        try:
            return run(
                case,
                command,
                work,
                args.mcptui,
                timeout=args.timeout,
                memory=int(args.memory_gb * (1 << 30)),
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)

    results: list[Result] = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(lambda job: one(job[0], *job[1]), enumerate(jobs)):
            results.append(result)
            if result.problems:
                print(
                    f"{result.case} {result.command}: exit {result.code} "
                    f"{result.seconds:.1f}s {result.max_rss_kb >> 10} MB: "
                    f"{'; '.join(result.problems)}",
                    file=sys.stderr,
                    flush=True,
                )
    shutil.rmtree(root, ignore_errors=True)
    inputs: dict[str, set[str]] = defaultdict(set)
    for case in cases:
        inputs[case.fmt].add(case.name)
        inputs["total"].add(case.name)
    print(f"mcptui: {args.mcptui}")
    print(
        f"{len(cases)} inputs, {len(jobs)} runs in {time.monotonic() - started:.0f} s "
        f"({args.jobs} at a time, cap {args.timeout:.0f} s and {args.memory_gb:g} GB each)"
    )
    print(table(tally(results, inputs)))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
