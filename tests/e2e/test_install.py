"""The wheel installs beside another package that ships a top-level `tui/` and mcptui still runs.

A PyPI package named `tui` exists (and 400+ public repositories ship a `tui/__init__.py`): when
mcptui's import name was `tui`, installing it broke `mcptui` with the other package's
SyntaxError. The import name is `mcptui` now and `tui/` only the source root; this builds the
real wheel, installs it with a stand-in for that package in a fresh venv, and runs the command.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PY2_INIT = 'print "tui 1.1.1"\n'
"""What `pip install tui==1.1.1` puts in `tui/__init__.py`, in effect: code Python 3 rejects."""


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def other_tui_wheel(folder: Path) -> Path:
    """A minimal wheel of a distribution `tui` whose top-level package is `tui`."""
    files = {
        "tui/__init__.py": PY2_INIT.encode(),
        "tui-1.1.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tui\nVersion: 1.1.1\n",
        "tui-1.1.1.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = [record_line(name, data) for name, data in files.items()]
    record.append("tui-1.1.1.dist-info/RECORD,,")
    path = folder / "tui-1.1.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr("tui-1.1.1.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def run(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=180, check=False
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mcptui's wheel, built once for the module (offline: no build isolation)."""
    dist = tmp_path_factory.mktemp("dist")
    built = run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
        "-w", dist, REPO,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (found,) = dist.glob("mcptui-*.whl")
    return found


def fresh_venv(folder: Path, *wheels: Path) -> tuple[Path, Path, Path]:
    """A new venv in `folder`/env with `wheels` installed: (env, its python, its site-packages).
    mcptui's dependencies come from the test venv's site-packages (a path line, so the
    editable install's own .pth there is not processed: only the wheel provides mcptui)."""
    env = folder / "env"
    assert run(sys.executable, "-m", "venv", "--without-pip", env).returncode == 0
    python = env / "bin" / "python"
    site = Path(
        run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    for whl in wheels:
        done = run(
            sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index",
            "--no-deps", whl,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return env, python, site


def test_the_wheel_beside_a_package_named_tui_still_runs(tmp_path: Path, wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/", 1)[0] for name in archive.namelist()}
    assert "mcptui" in tops and "tui" not in tops, tops

    env, python, site = fresh_venv(tmp_path, other_tui_wheel(tmp_path), wheel)

    broken = run(python, "-c", "import tui")
    assert "SyntaxError" in broken.stderr  # the other package is there, and as broken as it was

    version = run(env / "bin" / "mcptui", "--version", cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("mcptui ")
    where = run(python, "-c", "import mcptui; print(mcptui.__file__)", cwd=tmp_path)
    assert where.stdout.strip().startswith(str(site)), where.stdout

    sample = REPO / "recordings" / "mcp-424-broken-schema.jsonl"
    inspected = run(env / "bin" / "mcptui", "inspect", "--json", sample, cwd=tmp_path)
    assert inspected.returncode == 1, inspected.stderr  # a failure in the recording: exit 1
    assert "unhandled errors in a TaskGroup" in inspected.stdout

    module = run(python, "-m", "mcptui", "--version", cwd=tmp_path)
    assert module.returncode == 0 and module.stdout.startswith("mcptui "), module.stderr


def test_the_wheel_carries_the_samples_and_readme_s_commands_work_from_an_empty_folder(
    tmp_path: Path, wheel: Path
):
    """Issue 39: after a wheel install, away from the clone, `samples` lists them and a
    sample's name (or README's recordings/… path) opens the shipped file; the demo runs."""
    env, python, site = fresh_venv(tmp_path, wheel)
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    mcptui = env / "bin" / "mcptui"

    listed = run(mcptui, "samples", cwd=empty)
    assert listed.returncode == 0, listed.stderr
    assert "recordings/mcp-424-broken-schema.jsonl" in listed.stdout
    assert "requests/demo.json" in listed.stdout

    shot = run(
        mcptui, "replay", "mcp-424-broken-schema.jsonl", "--failure", "--screenshot", "x.svg",
        cwd=empty,
    )  # fmt: skip
    assert shot.returncode in (0, 1), shot.stderr
    assert "reading the shipped sample" in shot.stderr
    assert (empty / "x.svg").read_text().startswith("<svg")
    assert str(site) in run(python, "-c", "import mcptui; print(mcptui.__file__)").stdout

    readme_path = run(mcptui, "inspect", "recordings/mcp-424-broken-schema.jsonl", cwd=empty)
    assert readme_path.returncode == 1 and "search_files" in readme_path.stdout

    copied = run(mcptui, "samples", "--copy", "mine", cwd=empty)
    assert copied.returncode == 0, copied.stderr
    assert (empty / "mine" / "requests" / "demo.json").is_file()

    demo = run(mcptui, "demo", "--no-tui", cwd=empty)
    assert demo.returncode == 1, demo.stderr  # the demo's run holds its 424
    assert "broken_schema" in demo.stdout
