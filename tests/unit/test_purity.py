"""The model and everything outside the UI must import without Textual.

Every module under `tui/` is checked in a fresh interpreter, except the UI itself. Modules added
later (sources, emulator, probe, ...) are picked up automatically.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tui

UI_PREFIXES = ("tui.app", "tui.widgets", "tui.screens", "tui.messages", "tui.commands")
"""The Textual UI: allowed to import textual."""
NOT_IMPORTABLE = {"tui.__main__"}
"""`python -m tui` runs the command line when imported; it is covered by the CLI tests."""
REQUIRED = {"tui.model", "tui.model.events", "tui.model.errors", "tui.model.state",
            "tui.model.reducer", "tui.model.timeline", "tui.model.sse", "tui.model.summary",
            "tui.model.textsafe", "tui.io.recording", "tui.importers", "tui.io.redact",
            "tui.report"}
REPO = Path(__file__).resolve().parents[2]


def is_ui(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in UI_PREFIXES)


def pure_modules() -> list[str]:
    """Every module under tui/, as pkgutil.walk_packages would list them, without importing
    anything: UI packages are skipped before their __init__ could run."""
    found = ["tui"]

    def walk(path: list[str], prefix: str) -> None:
        for info in pkgutil.iter_modules(path, prefix):
            if is_ui(info.name) or info.name in NOT_IMPORTABLE:
                continue
            found.append(info.name)
            if info.ispkg:
                walk([str(Path(info.module_finder.path) / info.name.rsplit(".", 1)[-1])],
                     info.name + ".")

    walk(list(tui.__path__), "tui.")
    return sorted(found)


MODULES = pure_modules()


def test_the_walk_finds_the_model_and_the_non_ui_modules():
    assert set(MODULES) >= REQUIRED
    assert not any(is_ui(name) for name in MODULES)


CHECK = """
import importlib, sys
name = sys.argv[1]
importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
if loaded:
    print(f"importing {name} imported textual: {loaded[:5]}")
    sys.exit(1)
"""


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_textual(module: str):
    result = subprocess.run([sys.executable, "-c", CHECK, module], cwd=REPO,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, (
        f"{module} must not import textual: {result.stdout.strip()} {result.stderr.strip()}")


def test_inspect_runs_without_textual(upstream_dir: Path):
    code = (
        "import sys\n"
        "from tui.cli import main\n"
        f"rc = main(['inspect', '--json', {str(upstream_dir / 'openai-error.1.chunks.txt')!r}])\n"
        "assert rc == 1, rc\n"
        "assert 'textual' not in sys.modules, 'inspect imported textual'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
