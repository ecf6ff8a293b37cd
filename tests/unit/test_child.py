"""Diagnosing in a child process (what the app does for big replays) gives the same answer as
in-process, and a failure in the child comes back as an error, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcptui.io.child_process import ChildFailed, in_child
from mcptui.io.diagnose_file import diagnose_path
from mcptui.io.formats import load_path
from mcptui.model.diagnosis import diagnose_events

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_SAMPLE = str(REPO / "recordings" / "mcp-timeout-424.jsonl")


async def test_a_child_diagnoses_a_file_as_this_process_does():
    loaded = load_path(TIMEOUT_SAMPLE)
    here = diagnose_events(loaded.events, loaded.snapshots)
    there = await in_child(diagnose_path, TIMEOUT_SAMPLE, complete=True)
    assert [f.as_json() for f in there.findings] == [f.as_json() for f in here.findings]
    assert [f.code for f in there.findings] == ["likely_timeout"]
    assert there.item_causes.keys() == here.item_causes.keys()
    assert there.by_event.keys() == here.by_event.keys()


async def test_an_exception_in_the_child_is_raised_here():
    with pytest.raises(ChildFailed, match=r"^FileNotFoundError"):
        await in_child(open, str(REPO / "no-such-file.jsonl"))


def test_a_spawned_child_of_python_m_tui_does_not_run_the_command_again():
    """Spawning re-imports the parent's main module as `__mp_main__` (what
    multiprocessing.spawn does for `python -m mcptui`): it must define, not run. It ran the
    whole `inspect` again in the reading helper's process, which then died."""
    import subprocess
    import sys

    code = (
        "import runpy, sys; sys.argv = ['mcptui', 'inspect', 'no-such-file.jsonl']; "
        "runpy.run_module('mcptui.__main__', run_name='__mp_main__', alter_sys=True)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_spawned_child_never_imports_the_host_script(tmp_path: Path):
    """A host script's top level (a bench's imports, a script with no `__main__` guard) is
    not run again in a child `start_child` spawns: the child imports only its target's
    module. It was: a bench's reading helper first imported the bench, Textual and the app."""
    import subprocess
    import sys

    marker = tmp_path / "ran.txt"
    script = tmp_path / "host.py"
    script.write_text(
        "import os, time\n"
        f"with open({str(marker)!r}, 'a') as f: f.write(f'{{os.getpid()}}\\n')\n"
        "from mcptui.io.child_process import start_child\n"
        "child = start_child(time.sleep, (0,), 'mcptui-test')\n"
        "child.join(30)\n"
        "raise SystemExit(child.exitcode)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert len(marker.read_text().splitlines()) == 1  # the host only
