"""Diagnosing in a child process (what the app does for big replays) gives the same answer as
in-process, and a failure in the child comes back as an error, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.child import ChildFailed, in_child
from tui.importers import load_path
from tui.model.diagnosis import diagnose_events, diagnose_path

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
