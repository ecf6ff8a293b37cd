"""The recorder child's priority (tui/mcptui/capture/offload.py `Priority`): it starts on idle CPU
only (SCHED_IDLE, nice 10 kept beneath), stays there while it keeps up with the relay, and
goes back to a nice-10 share once it falls `LAG_SECONDS` behind (idle CPU may never come).
Run in a fresh interpreter: it changes its own process's scheduling."""

from __future__ import annotations

import json
import os
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


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling policies")
def test_the_recorder_runs_on_idle_cpu_until_it_falls_behind():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    ).stdout
    start, keeping_up, behind = (tuple(look) for look in json.loads(out))
    base = os.nice(0)
    assert start == (os.SCHED_IDLE, base + 10)
    assert keeping_up == start
    assert behind == (os.SCHED_OTHER, base + 10)
