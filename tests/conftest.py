"""Shared fixtures: where the real recorded upstream streams live; loopback-only networking.

The upstream streams are copied into the repository (`tests/fixtures/upstream`, with their
source and licence in SOURCE.md there), so a plain clone runs every test with nothing beside it.
"""

from __future__ import annotations

import compileall
import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UPSTREAM_DIR = REPO / "tests" / "fixtures" / "upstream"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        help="run the long fuzz corpus (thousands of cases) instead of CI's",
    )


@pytest.fixture(autouse=True)
def _own_settings(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[None]:
    """Each test remembers in a folder of its own (mcptui/io/settings.py: a theme chosen in
    one test is not the next test's, nor the developer's own settings any test's). The folder
    is made only if something is remembered."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.nodeid)[-120:]
    folder = Path(tempfile.gettempdir()) / f"mcptui-test-settings-{os.getpid()}" / name
    monkeypatch.setenv("MCPTUI_CONFIG_DIR", str(folder))
    yield
    shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        folder.parent.rmdir()  # once empty


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The folder of upstream `*.chunks.txt` streams (in the repository: never skipped)."""
    assert UPSTREAM_DIR.is_dir(), f"the upstream stream fixtures are missing: {UPSTREAM_DIR}"
    return UPSTREAM_DIR


def _loopback_only(address: object) -> None:
    """Refuse a connection that would leave this machine."""
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if not (host.startswith("127.") or host in ("::1", "localhost", "0.0.0.0")):
            raise OSError(f"test tried to reach {host}: tests must stay on loopback")


@pytest.fixture(autouse=True, scope="session")
def loopback_only() -> Iterator[None]:
    """Every socket connect in the test process is checked: no test reaches the internet."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def connect(self: socket.socket, address: object) -> None:
        _loopback_only(address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        _loopback_only(address)
        return original_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    """In the controller, before the workers start: compile mcptui's modules, and the test
    modules with pytest's assertions rewritten, once for every process that imports them.

    Why: with PYTHONDONTWRITEBYTECODE set (as on these machines) nothing is cached, so every
    `mcptui` a test starts compiled the package again (~0.1 s of CPU each), and each xdist
    worker rewrote and compiled every test module while collecting (~4 of its ~9 s of CPU).
    (CPU per test: `PYTHONPATH=bench pytest -p cpu_per_test`, bench/cpu_per_test.py.)"""
    if hasattr(config, "workerinput"):  # a worker: the controller did it
        return
    compileall.compile_dir(str(REPO / "tui" / "mcptui"), quiet=1)
    _rewrite_tests_once(config)
    if "MCPTUI_CACHE_DIR" not in os.environ:
        # One SDK schema cache (mcptui/io/sdk_schema_cache.py) for every mcptui the tests
        # start, whatever HOME a test gives it: derived once, not once per fresh HOME.
        cache = tempfile.mkdtemp(prefix="mcptui-test-cache-")
        os.environ["MCPTUI_CACHE_DIR"] = cache
        config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))
    # Derived here, once (~1.2 s of CPU), not by each worker's first mcptui at the same time.
    from mcptui.io.sdk_schema_cache import cached_schema

    cached_schema()
    if not config.option.collectonly:
        # One fork server for every worker (_cli_fork.py), warming while they collect.
        from _cli_fork import start_shared

        config.add_cleanup(start_shared())


def _rewrite_tests_once(config: pytest.Config) -> None:
    """Write pytest's cached rewritten module for each test file (as a worker would, were it
    allowed to write bytecode), so the workers read it instead of rewriting. Through pytest's
    own, private, functions: if they change, the workers simply rewrite as before."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return
    for source in sorted((REPO / "tests").rglob("*.py")):
        if "node_modules" in source.parts or not (
            source.name.startswith("test_") or source.name == "conftest.py"
        ):
            continue
        cache = get_cache_dir(source)
        pyc = cache / (source.name[:-3] + PYC_TAIL)
        try:
            if pyc.stat().st_mtime >= source.stat().st_mtime:
                continue
        except OSError:
            pass
        try:
            cache.mkdir(exist_ok=True)
            stat, code = _rewrite_test(source, config)
            _write_pyc(state, code, stat, pyc)
        except (OSError, SyntaxError):
            continue  # the worker will say what is wrong with it
