"""Shared fixtures: where the real recorded upstream streams live; loopback-only networking.

The upstream streams are copied into the repository (`tests/fixtures/upstream`, with their
source and licence in SOURCE.md there), so a plain clone runs every test with nothing beside it.
"""

from __future__ import annotations

import compileall
import socket
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


# -- CPU per test (opt-in): where the suite's CPU goes ------------------------------------------


class _CpuReport:
    """Per test phase, the CPU seconds of this process and of the subprocesses it reaped
    (`RUSAGE_CHILDREN`: the CLI runs, servers and stacks a test starts). Wall time on a shared
    2-core machine is noise; CPU is what a clean clone on 2 cores has to pay."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: object) -> Iterator[None]:
        import json
        import resource
        import time

        own = time.process_time()
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        yield
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        line = {
            "test": item.nodeid,
            "own": round(time.process_time() - own, 3),
            "children": round(after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime, 3),
        }
        with self.path.open("a") as out:
            out.write(json.dumps(line) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    """`MCPTUI_CPU_REPORT=FILE pytest ...` appends one JSON line per test (bench/cpu_report.py
    sums them per tier and lists the costliest).

    And mcptui's modules are compiled once, before any worker or child process starts: with
    PYTHONDONTWRITEBYTECODE set (as on these machines) every `mcptui` a test starts compiled
    them again from source, ~0.1 s of CPU each."""
    import os

    if not hasattr(config, "workerinput"):  # the controller, not each xdist worker
        compileall.compile_dir(str(REPO / "tui" / "mcptui"), quiet=1)
    target = os.environ.get("MCPTUI_CPU_REPORT")
    if target:
        config.pluginmanager.register(_CpuReport(Path(target)), "mcptui-cpu-report")
