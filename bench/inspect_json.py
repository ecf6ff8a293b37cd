"""`mcptui inspect --json` on a big recording, against loading the same lines with json.loads.

Both run as fresh processes, so each figure is what a user waits for and what the machine
holds: wall time (best of `--repeat`) and peak resident memory (ru_maxrss of the child).

  baseline   python: read the file, `json.loads` every line, keep them in a list
  inspect    `python -m mcptui inspect --json FILE` (read, fold, check, diagnose, print)

The recording is bench/tui_open.py's (200k real-shaped events, generated once into bench/out/).
Targets: inspect <= 2.5x the baseline's time, peak RSS <= 5x the file. Exit 1 when missed.

Run: `.venv/bin/python bench/inspect_json.py [--events N] [--repeat R]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tui_open import OUT_DIR, generate

TARGET_TIME_RATIO = 2.5
TARGET_RSS_RATIO = 5.0
BASELINE = (
    "import json, sys\n"
    "rows = [json.loads(line) for line in open(sys.argv[1], 'rb').read().decode()"
    ".split('\\n') if line]\n"
    "print(len(rows))\n"
)


def timed(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one child process run to the end."""
    start = time.perf_counter()
    pid = subprocess.Popen(argv, stdout=subprocess.DEVNULL).pid
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # inspect exits 1 on failures found
        raise SystemExit(f"{argv} failed with {status}")
    return elapsed, usage.ru_maxrss * 1024


def best(argv: list[str], repeat: int) -> tuple[float, int]:
    runs = [timed(argv) for _ in range(repeat)]
    return min(t for t, _ in runs), max(rss for _, rss in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    path = OUT_DIR / f"tui_open-{args.events}-s{args.seed}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        generate(path, args.events, args.seed)
    size = path.stat().st_size
    base_s, base_rss = best([sys.executable, "-c", BASELINE, str(path)], args.repeat)
    inspect_s, inspect_rss = best(
        [sys.executable, "-m", "mcptui", "inspect", "--json", str(path)], args.repeat
    )
    time_ratio, rss_ratio = inspect_s / base_s, inspect_rss / size
    ok = time_ratio <= TARGET_TIME_RATIO and rss_ratio <= TARGET_RSS_RATIO
    print(f"file      {path}  {size / 2**20:.1f} MiB, {args.events:,} events")
    print(
        f"baseline  json.loads kept in a list: {base_s:.2f} s, peak RSS "
        f"{base_rss / 2**20:.0f} MiB ({base_rss / size:.1f}x the file)"
    )
    print(f"inspect   --json: {inspect_s:.2f} s, peak RSS {inspect_rss / 2**20:.0f} MiB")
    print(
        f"time      {time_ratio:.2f}x the baseline  target <= {TARGET_TIME_RATIO}  "
        f"{'PASS' if time_ratio <= TARGET_TIME_RATIO else 'FAIL'}"
    )
    print(
        f"memory    {rss_ratio:.2f}x the file      target <= {TARGET_RSS_RATIO}  "
        f"{'PASS' if rss_ratio <= TARGET_RSS_RATIO else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
