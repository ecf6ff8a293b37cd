"""The files opened lately (by `replay`, `inspect` and the open dialog), most recent first,
kept in state.json (io/settings.py) for the open dialog's list.

Absolute paths, so the list means the same from any folder; at most `KEEP`. A file that has
gone since is still listed (`exists` False: the dialog greys it) until newer ones push it out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mcptui.io.settings import remember, remembered

KEY = "recent_files"
KEEP = 10


@dataclass(frozen=True)
class Recent:
    path: str
    exists: bool


def note_opened(*paths: str | os.PathLike[str]) -> None:
    """Put `paths` first in the list, the last given first (one write for them all: `inspect`
    of many files). A path that names no regular file (`-`, a FIFO) is not a file to open
    again, and is left out."""
    found: list[str] = []
    for path in paths:
        text = os.fspath(path)
        if text == "-":
            continue
        try:
            full = Path(text).expanduser().resolve()
            if full.is_file():
                found.insert(0, str(full))
        except (OSError, RuntimeError):
            continue
    if not found:
        return
    fresh = list(dict.fromkeys(found))
    kept = [p for p in _listed() if p not in fresh]
    remember(KEY, [*fresh, *kept][:KEEP])


def recent_files() -> list[Recent]:
    """The list, most recent first, each said to exist or not now."""
    return [Recent(path, Path(path).is_file()) for path in _listed()]


def _listed() -> list[str]:
    value = remembered(KEY)
    if not isinstance(value, list):
        return []
    return [p for p in value if isinstance(p, str)][:KEEP]
