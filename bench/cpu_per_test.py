"""A pytest plugin that records the CPU each test costs, its own and its subprocesses'.

Wall time on a shared 2-core machine is noise; CPU is what the suite's wall time is bounded by
(wall >= CPU / cores). Load it with `PYTHONPATH=bench pytest -p cpu_per_test ...`; each worker
appends JSON lines to $CPU_LOG_DIR (default /tmp/cpu_per_test), then
`python bench/cpu_per_test.py [DIR]` sums them per tier and lists the costliest tests.

Children are counted when reaped (getrusage(RUSAGE_CHILDREN)), so a server a session fixture
starts is charged to the test during whose teardown it exits. The exception: tests/_cli_fork.py's
fork server reaps the commands it forks itself. The run's shared one (tests/conftest.py) serves
every worker, so its CPU is one line of its own, `(shared fork server)`; a worker's own (-n 0
without it) is read from /proc while it runs and charged to the test that ran its commands.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

LOG_DIR = Path(os.environ.get("CPU_LOG_DIR", "/tmp/cpu_per_test"))


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + _fork_server()


def _fork_server() -> float:
    """CPU so far of this worker's own tests/_cli_fork.py server, if it has one (pytest -n 0
    without tests/conftest.py's shared one): its own and its reaped commands'."""
    fork = sys.modules.get("_cli_fork")
    pid = fork.server_pid() if fork is not None else None
    return 0.0 if pid is None else _cpu_of(pid)


def _cpu_of(pid: int) -> float:
    """utime, stime, cutime and cstime of `pid` (/proc/PID/stat) in seconds; 0 once gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """In the controller: the shared fork server's CPU (its warm-up and every command forked
    for any worker), as one line of its own: it cannot be told apart per test."""
    fork = sys.modules.get("_cli_fork")
    shared = fork.shared_server_pid() if fork is not None else None
    if hasattr(session.config, "workerinput") or shared is None:
        return
    record = {"test": "(shared fork server)", "own": 0.0, "children": _cpu_of(shared), "wall": 0.0}
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    with (LOG_DIR / "fork-server.jsonl").open("a") as log:
        log.write(json.dumps(record) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, kids, wall = time.process_time(), _children(), time.perf_counter()
    began = time.time()
    yield
    record = {
        "test": item.nodeid,
        "began": began,
        "own": time.process_time() - own,
        "children": _children() - kids,
        "wall": time.perf_counter() - wall,
    }
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with (LOG_DIR / f"{worker}.jsonl").open("a") as log:
        log.write(json.dumps(record) + "\n")


def _timeline(directory: Path) -> None:
    """When each worker ran its first and last test, from the earliest start: a worker that
    ends long after the others is the suite's tail (a group too big for one worker)."""
    workers = {
        f.stem: [json.loads(line) for line in f.open()] for f in sorted(directory.glob("*.jsonl"))
    }
    starts = [row["began"] for rows in workers.values() for row in rows if "began" in row]
    if not starts:
        return
    zero = min(starts)
    print(f"\n{'worker':8} {'tests':>6} {'first s':>8} {'last end s':>10} {'in tests s':>10}")
    for name, rows in workers.items():
        timed = [r for r in rows if "began" in r]
        if not timed:
            continue
        first = min(r["began"] for r in timed) - zero
        last = max(r["began"] + r["wall"] for r in timed) - zero
        busy = sum(r["wall"] for r in timed)
        print(f"{name:8} {len(timed):6d} {first:8.1f} {last:10.1f} {busy:10.1f}")
        tail = sorted(timed, key=lambda r: r["began"])[-3:]
        for row in tail:
            print(f"{'':8} ends with {row['began'] - zero:7.1f}+{row['wall']:.1f}  {row['test']}")


def _summary(directory: Path) -> None:
    rows = [json.loads(line) for f in directory.glob("*.jsonl") for line in f.open()]
    tiers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for row in rows:
        parts = row["test"].split("/")
        tier = parts[1] if len(parts) > 2 else parts[0]
        t = tiers[tier]
        t[0] += row["own"]
        t[1] += row["children"]
        t[2] += row["wall"]
        t[3] += 1
    total = [0.0, 0.0, 0.0, 0]
    print(f"{'tier':10} {'tests':>6} {'own s':>8} {'child s':>8} {'cpu s':>8} {'wall s':>8}")
    for tier, (own, kids, wall, n) in sorted(tiers.items(), key=lambda kv: -kv[1][0] - kv[1][1]):
        print(f"{tier:10} {n:6d} {own:8.1f} {kids:8.1f} {own + kids:8.1f} {wall:8.1f}")
        total = [total[0] + own, total[1] + kids, total[2] + wall, total[3] + n]
    own, kids, wall, n = total
    print(f"{'total':10} {n:6d} {own:8.1f} {kids:8.1f} {own + kids:8.1f} {wall:8.1f}")
    files: dict[str, float] = defaultdict(float)
    for row in rows:
        files[row["test"].split("::")[0]] += row["own"] + row["children"]
    print("\ncostliest files (cpu s):")
    for name, cpu in sorted(files.items(), key=lambda kv: -kv[1])[:30]:
        print(f"{cpu:8.1f}  {name}")
    print("\ncostliest tests (own + children s):")
    rows.sort(key=lambda r: -(r["own"] + r["children"]))
    for row in rows[:40]:
        print(f"{row['own']:7.1f} {row['children']:7.1f}  {row['test']}")


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else LOG_DIR
    _summary(folder)
    _timeline(folder)
