"""Sum a `MCPTUI_CPU_REPORT` file (tests/conftest.py) per tier and list the costliest tests.

    MCPTUI_CPU_REPORT=/tmp/cpu.jsonl pytest -n 2 tests/e2e
    python bench/cpu_report.py /tmp/cpu.jsonl [TOP]

CPU seconds, not wall: own = the pytest worker's process time during the test (setup, call,
teardown; a shared fixture's setup lands on the first test that uses it), children = the
subprocesses the test started and reaped. Commands forked by tests/_cli_fork.py's server
are reaped by that server, not by the test: they count only in the total of the run
(`time pytest ...`), when the worker reaps the server at its exit.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def main() -> None:
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    tiers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        tier = row["test"].split("/")[1] if row["test"].startswith("tests/") else "?"
        tiers[tier][0] += row["own"]
        tiers[tier][1] += row["children"]
        tiers[tier][2] += 1
    print(f"{'tier':10} {'tests':>6} {'own s':>8} {'children s':>11} {'total s':>8}")
    for tier, (own, kids, count) in sorted(tiers.items()):
        print(f"{tier:10} {count:6d} {own:8.1f} {kids:11.1f} {own + kids:8.1f}")
    own = sum(r["own"] for r in rows)
    kids = sum(r["children"] for r in rows)
    print(f"{'all':10} {len(rows):6d} {own:8.1f} {kids:11.1f} {own + kids:8.1f}\n")
    for row in sorted(rows, key=lambda r: -(r["own"] + r["children"]))[:top]:
        print(
            f"{row['own'] + row['children']:7.1f} {row['own']:6.1f} {row['children']:6.1f}  "
            f"{row['test']}"
        )


if __name__ == "__main__":
    main()
