"""The recorder child's priority (tui/mcptui/capture/offload.py `Priority`): it starts on idle CPU
only (SCHED_IDLE at nice 10), stays there while it keeps up with the relay, and takes back the
share it started with once it falls `LAG_SECONDS` behind, or when the relay stops and waits for
it (idle CPU may never come). A process that could not take its share back never gives it up.
Each case runs in a fresh interpreter: it changes its own process's scheduling."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

PROBE = """
import json, os, time
from mcptui.capture.offload import LAG_SECONDS, Priority
seen = []
def look(): seen.append((os.sched_getscheduler(0), os.nice(0)))
priority = Priority(); look()
priority.keep_up(time.monotonic()); look()  # a step stamped just now: keeping up
priority.keep_up(time.monotonic() - LAG_SECONDS - 0.5); look()  # behind
print(json.dumps(seen))
"""

RELAY_STOPS = """
import json, os, sys
from mcptui.capture.offload import Priority, restore
priority = Priority()
lowered = (os.sched_getscheduler(0), os.nice(0))
pid = os.fork()
if pid == 0:  # the relay's side: it stops and gives its recorder (the parent here) its share
    restore(os.getppid(), priority.base)
    os._exit(0)
os.waitpid(pid, 0)
print(json.dumps([lowered, (os.sched_getscheduler(0), os.nice(0))]))
"""

linux = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling policies")


def looks(program: str, *before: str) -> list[tuple[int, int]]:
    out = subprocess.run(
        [*before, sys.executable, "-c", program], capture_output=True, text=True, check=True
    ).stdout
    return [(policy, nice) for policy, nice in json.loads(out)]


@linux
def test_the_recorder_runs_on_idle_cpu_until_it_falls_behind():
    start, keeping_up, behind = looks(PROBE)
    base = os.nice(0)
    assert start == (os.SCHED_IDLE, base + 10)
    assert keeping_up == start
    assert behind == (os.SCHED_OTHER, base)


@linux
def test_the_relay_gives_its_recorder_its_share_when_it_stops():
    lowered, after = looks(RELAY_STOPS)
    assert lowered == (os.SCHED_IDLE, os.nice(0) + 10)
    assert after == (os.SCHED_OTHER, os.nice(0))


@linux
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="dropping CAP_SYS_NICE takes root and util-linux's setpriv",
)
def test_a_recorder_that_could_not_take_its_share_back_never_gives_it_up():
    """Without CAP_SYS_NICE and with RLIMIT_NICE 0 (an ordinary user's), SCHED_IDLE and nice 10
    could not be left again: a loaded machine would starve the drain a Ctrl+C waits for."""
    drop = ["setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice"]
    prlimit = ["prlimit", "--nice=0:0"] if shutil.which("prlimit") else []
    start, keeping_up, behind = looks(PROBE, *prlimit, *drop)
    assert start == keeping_up == behind == (os.SCHED_OTHER, os.nice(0))
