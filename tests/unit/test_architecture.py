"""The layers of docs/architecture.md hold: the import-linter contracts in pyproject.toml pass,
they name every package there is, and `inspect` runs without Textual.

grimp reads every import statement, those inside functions too, so the contracts see what a
run-time check of `sys.modules` would miss (a lazy import on a path a test never takes).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import mcptui

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def test_the_contracts_hold():
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(contracts())} kept, 0 broken" in done.stdout


def test_every_package_of_the_source_root_is_in_a_layer():
    """A new package outside the layers would be checked by no contract."""
    (layers,) = [c for c in contracts() if c["type"] == "layers"]
    named = {name.strip() for layer in layers["layers"] for name in layer.split(":")}
    root = Path(mcptui.__file__).parent
    packages = {p.parent.name for p in root.glob("*/__init__.py")}
    assert packages == named
    loose = sorted(p.name for p in root.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


def test_inspect_runs_without_textual(upstream_dir: Path):
    code = (
        "import sys\n"
        "from mcptui.cli.main import main\n"
        f"rc = main(['inspect', '--json', {str(upstream_dir / 'openai-error.1.chunks.txt')!r}])\n"
        "assert rc == 1, rc\n"
        "assert 'textual' not in sys.modules, 'inspect imported textual'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def imported_by(modules: str, later: tuple[str, ...]) -> list[str]:
    """Which of `later` a fresh interpreter has loaded once it imports `modules`."""
    code = f"import sys\nimport {modules}\nprint([m for m in {later!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout.strip())


def test_the_app_imports_without_the_checks():
    """The checks' modules (causes, conformance, SDK messages: ~18 ms of imports) load when the
    first check starts, after the first frame: a cold start paints sooner (bench/cold_start.py)."""
    checks = ("mcptui.model.causes", "mcptui.model.diagnosis", "mcptui.model.conformance")
    assert imported_by("mcptui.ui.app, mcptui.sources.replay", checks) == []


def test_the_app_imports_without_the_whole_file_readers():
    """A recording or dump is read a piece at a time: the whole-text readers (archives, pastes)
    and multiprocessing (a big file's reading helper) load only when used, ~7 ms of a small
    recording's first screen (bench/cold_start.py)."""
    later = ("multiprocessing", "mcptui.io.formats", "mcptui.io.archives", "mcptui.io.paste")
    app = "mcptui.cli.main, mcptui.cli.replay, mcptui.ui.app, mcptui.sources.replay"
    assert imported_by(app, later) == []
