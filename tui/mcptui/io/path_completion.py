"""What a path typed so far can become (the open dialog's Tab, tui/mcptui/ui/screens/
open_dialog.py): the entries of its folder that start with its last part, folders with a
trailing `/`, in the form typed (`~/` stays `~/`, a relative path stays relative).

Hidden entries are offered only once a `.` is typed, as shells do; a folder that cannot be
read offers nothing (completing is a convenience: it never raises).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

LIMIT = 500
"""Entries read from one folder at most: a huge folder must not stall a key."""


@dataclass(frozen=True)
class Completion:
    """The text after Tab, and the names it could still become (folders end in `/`)."""

    text: str
    names: tuple[str, ...]


def candidates(typed: str) -> list[str]:
    """Every completion of `typed`, as whole texts in the form typed, sorted."""
    folder_text, _, prefix = typed.rpartition(os.sep)
    if os.sep in typed:
        folder_text += os.sep
    folder = Path(os.path.expanduser(folder_text or "."))
    found: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= LIMIT:
                    break
                name = entry.name
                if not name.startswith(prefix) or (name.startswith(".") and not prefix):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                found.append(folder_text + name + (os.sep if is_dir else ""))
    except OSError:
        return []
    return sorted(found)


def complete(typed: str) -> Completion:
    """`typed` extended as far as every candidate agrees (a single one: whole), and the names
    left to choose from (none when it is whole, or nothing matches)."""
    found = candidates(typed)
    if not found:
        return Completion(typed, ())
    common = os.path.commonprefix(found)  # noqa: RUF071 (by character: `alpha-` of two names)
    text = common if len(common) > len(typed) else typed
    if len(found) == 1:
        return Completion(text, ())
    return Completion(text, tuple(last_part(path) for path in found))


def last_part(path: str) -> str:
    """`runs/old/` → `old/`, `runs/a.jsonl` → `a.jsonl`: the name a candidate is listed by."""
    folder = path.endswith(os.sep)
    return path.rstrip(os.sep).rpartition(os.sep)[2] + (os.sep if folder else "")
