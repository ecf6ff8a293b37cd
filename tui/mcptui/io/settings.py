"""What mcptui remembers between runs (the theme chosen in the palette), in one small JSON file.

Where: `$MCPTUI_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mcptui`, else `~/.config/mcptui`, as
`state.json`. Written whole to a temporary file and renamed, so a crash never leaves half a
file; a file that cannot be read or written is as if there were none (remembering is a
convenience: it never stops the app).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

STATE = "state.json"


def user_folder(explicit: str, xdg: str, fallback: str) -> Path:
    """mcptui's folder of a kind: `$explicit`, else `$xdg/mcptui`, else `~/fallback/mcptui`
    (the XDG base directories; the SDK schema cache's is one, io/sdk_schema_cache.py)."""
    given = os.environ.get(explicit)
    if given:
        return Path(given)
    return Path(os.environ.get(xdg) or str(Path.home() / fallback)) / "mcptui"


def config_dir() -> Path:
    return user_folder("MCPTUI_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def _read() -> dict[str, Any]:
    try:
        value = json.loads((config_dir() / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def remembered(key: str) -> Any:
    """The value last remembered under `key` (None: none)."""
    return _read().get(key)


def remember(key: str, value: Any) -> None:
    """Keep `value` under `key` for the next run (quietly not, when the folder is not ours)."""
    state = _read()
    if state.get(key) == value:
        return
    state[key] = value
    folder = config_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{STATE}.{os.getpid()}"
        partial.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        partial.replace(folder / STATE)
    except OSError:
        return
