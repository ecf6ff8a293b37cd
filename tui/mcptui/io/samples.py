"""The samples that ship with mcptui: the recordings and request files README's commands use.

A wheel carries them in `mcptui/samples/` (pyproject.toml's force-include); an editable install
finds them in the clone. A command given a path that names no file here, but whose file name
is a sample's (`mcp-424-broken-schema.jsonl`, or README's `recordings/…` from another folder),
reads the sample (`shipped_path`), and says so: README's commands then work after
`pipx install mcptui` without the clone.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

KINDS = {"recordings": ("recording", ".jsonl"), "requests": ("request", ".json")}


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    kind: str
    """`recording` or `request`."""
    folder: str
    """`recordings` or `requests`: where README names it."""
    path: Path
    description: str


def samples_root() -> Path | None:
    """The folder holding `recordings/` and `requests/`: the installed package's, else the
    clone's (an editable install)."""
    here = Path(__file__).resolve()
    for root in (here.parents[1] / "samples", here.parents[3]):
        if (root / "recordings").is_dir() and (root / "requests").is_dir():
            return root
    return None


def shipped() -> list[Sample]:
    """Every sample, recordings first, by name."""
    root = samples_root()
    if root is None:
        return []
    found: list[Sample] = []
    for folder, (kind, suffix) in KINDS.items():
        for path in sorted((root / folder).glob(f"*{suffix}")):
            found.append(Sample(path.name, kind, folder, path, _description(path, kind)))
    return found


def _description(path: Path, kind: str) -> str:
    try:
        with path.open(encoding="utf-8") as lines:
            first = lines.readline() if kind == "recording" else lines.read()
        value = json.loads(first)
    except (OSError, ValueError):
        return ""
    if kind == "recording":
        source = value.get("source") if isinstance(value, dict) else None
        text = source.get("description") if isinstance(source, dict) else None
        return str(text or "")
    tools = value.get("tools") if isinstance(value, dict) else None
    labels = [t.get("server_label") for t in tools or [] if isinstance(t, dict)]
    extra = ", background" if isinstance(value, dict) and value.get("background") else ""
    return f"a request to {', '.join(str(x) for x in labels if x) or 'no MCP server'}{extra}"


def shipped_path(given: str) -> Path | None:
    """The sample `given` names when no file is there: by its file name (a path's last part
    too, so README's `recordings/mcp-424-broken-schema.jsonl` works from any folder)."""
    if given in ("", "-") or Path(given).exists():
        return None
    name = Path(given).name
    for sample in shipped():
        if name in (sample.name, Path(sample.name).stem):
            return sample.path
    return None


def copy_samples(folder: Path) -> tuple[list[Path], list[Path]]:
    """Write every sample into `folder`/recordings and `folder`/requests; an existing file is
    kept. Returns (written, kept)."""
    written: list[Path] = []
    kept: list[Path] = []
    for sample in shipped():
        target = folder / sample.folder / sample.name
        if target.exists():
            kept.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample.path, target)
        written.append(target)
    return written, kept
