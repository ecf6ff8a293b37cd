"""Diagnose a file by its path: what a child process runs for a big replay, so the app's
process never holds the file's events twice."""

from __future__ import annotations

from typing import Any

from mcptui.io.formats import load_path
from mcptui.model.diagnosis import Diagnosis, diagnose_events


def diagnose_path(path: str, **options: Any) -> Diagnosis:
    """Load a file and diagnose it: what a child process runs for a big replay (the same
    loader gives the same events, so indexes match the app's timeline)."""
    loaded = load_path(path)
    return diagnose_events(loaded.events, loaded.snapshots, **options)
