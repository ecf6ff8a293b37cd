"""`mcptui emulate` and `mcptui demo-server` as a user starts them: a busy port is one line and
exit 2, never a traceback; `--port 0` takes a free port and prints the URL to use."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from _cli_fork import forked_cli

MCPTUI = Path(sys.executable).parent / "mcptui"
COMMANDS = [
    pytest.param(["emulate"], id="emulate"),
    pytest.param(["demo-server"], id="demo-server"),
]


@pytest.fixture
def busy_port() -> Iterator[int]:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_busy_port_is_one_line_and_exit_2(command: list[str], busy_port: int, tmp_path: Path):
    """Forked from a process that has imported mcptui (_cli_fork.py); the console script's
    own process is the next test's."""
    done = forked_cli([*command, "--port", str(busy_port)], tmp_path, timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        f"mcptui: port {busy_port} is in use: pass --port, or --port 0 for a free one\n"
    )
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_port_0_takes_a_free_port_and_prints_the_url(command: list[str]):
    proc = subprocess.Popen(
        [str(MCPTUI), *command, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 20
        found = None
        while found is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found is not None, "no URL printed"
        port = int(found.group(1))
        assert port != 0
        with closing(socket.create_connection(("127.0.0.1", port), timeout=5)):
            pass  # the printed URL is the one that answers
    finally:
        proc.terminate()
        proc.wait(timeout=10)
