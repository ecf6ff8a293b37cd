"""The SDK's derived event schema (`mcptui.model.sdkschema`), kept on disk per SDK version.

Deriving it imports the openai SDK and builds its pydantic models (~1.5 s of CPU); reading it
back is ~3 ms for ~200 KB of JSON. So the first `mcptui` command after an install (or an SDK
upgrade) derives and writes it, and every later one reads it. The file holds type
definitions only, nothing from a user's streams.

Where: `$MCPTUI_CACHE_DIR`, else `$XDG_CACHE_HOME/mcptui`, else `~/.cache/mcptui`. A cache
that cannot be written (read-only home, full disk) costs the derivation each time, nothing
else; a file that does not parse, or was written for another SDK, is derived again. Writes go
to a temporary file renamed into place, so concurrent commands never read half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from mcptui.io.settings import user_folder
from mcptui.model import sdkschema


def cache_dir() -> Path:
    return user_folder("MCPTUI_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def cached_schema() -> dict[str, Any] | None:
    """The derived schema for the installed SDK, from the cache or derived now (and cached);
    None if the SDK's types could not be turned into one (the check then uses the SDK)."""
    try:
        key = sdkschema.cache_key()
    except Exception:  # no metadata (a vendored SDK): nothing to key a cache by
        return None
    path = cache_dir() / f"sdk-events-{key}.json"
    with contextlib.suppress(OSError, ValueError):
        found = json.loads(path.read_bytes())
        if (
            isinstance(found, dict)
            and found.get("key") == key
            and isinstance(found.get("events"), dict)
            and isinstance(found.get("$defs"), dict)
        ):
            return found
    try:
        schema = sdkschema.derive()
    except Exception:  # an SDK whose types this derivation does not know
        return None
    _write(path, schema)
    return schema


def _write(path: Path, schema: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".sdk-events-", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(schema, file)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def install() -> None:
    """Let the conformance check read the cached schema (the CLI calls this at start)."""
    sdkschema.provide(cached_schema)
