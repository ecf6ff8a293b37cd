"""Shared fixtures: where the real recorded upstream streams live; loopback-only networking.

The upstream streams are copied into the repository (`tests/fixtures/upstream`, with their
source and licence in SOURCE.md there), so a plain clone runs every test with nothing beside it.
"""

from __future__ import annotations

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
