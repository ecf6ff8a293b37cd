"""Input bounds: a size limit for files and special files, a timeout for a FIFO nobody writes
to. (`/dev/zero` grew memory by gigabytes a second; a writerless FIFO blocked forever.)"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcptui.cli.main import main
from mcptui.io.reading import WAIT_ENV, InputError, read_bounded

REPO = Path(__file__).resolve().parents[2]


def test_a_regular_file_over_the_limit_is_refused_before_reading(tmp_path: Path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"{}\n" * 1000)
    assert read_bounded(str(path), max_bytes=3000) == b"{}\n" * 1000
    with pytest.raises(InputError, match=r"larger than --max-bytes 2,999"):
        read_bounded(str(path), max_bytes=2999)


def test_an_endless_device_stops_at_the_limit():
    with pytest.raises(InputError, match="larger than --max-bytes 1,000,000"):
        read_bounded("/dev/zero", max_bytes=1_000_000)


def test_a_fifo_nobody_writes_to_is_given_up(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"nothing was written to it in 0\.3 s"):
        read_bounded(str(fifo), wait=0.3)


def test_a_fifo_with_a_writer_is_read_to_its_end(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:
            for _ in range(3):
                out.write(b'{"type": "x"}\n')

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_bounded(str(fifo), wait=5) == b'{"type": "x"}\n' * 3
    finally:
        writer.join()


def test_inspect_names_the_bound_and_exits_2(capsys: pytest.CaptureFixture[str]):
    assert main(["inspect", "/dev/zero", "--max-bytes", "100000"]) == 2
    out = capsys.readouterr()
    assert "/dev/zero is larger than --max-bytes 100,000" in out.out
    assert main(["inspect", "/dev/null", "--max-bytes", "0"]) == 2
    assert "--max-bytes must be at least 1" in capsys.readouterr().err


WAIT = "0.5"
"""`MCPTUI_INPUT_WAIT` for the commands run below: a stalled FIFO is given up in 0.5 s."""


def cli_on(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """`mcptui ARGS` started in the background (the caller feeds the FIFO meanwhile), with a
    short input wait."""
    return subprocess.Popen(
        [sys.executable, "-m", "mcptui", *args],
        cwd=cwd,
        text=True,
        env={**os.environ, WAIT_ENV: WAIT},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "fifo"],
        ["report", "fifo"],
        ["diff", "fifo", "fifo", "--no-tui"],
        ["replay", "fifo", "--screenshot", "out.svg"],
    ],
    ids=["inspect", "report", "diff", "replay"],
)
def test_a_fifo_nobody_writes_to_is_given_up_by_every_command(tmp_path: Path, args: list[str]):
    """The recording reader opened the path to sniff it, and opening a FIFO blocks until a
    writer comes: `inspect fifo` waited forever (README promises 10 s)."""
    os.mkfifo(tmp_path / "fifo")
    process = cli_on(args, tmp_path)
    out, err = process.communicate(timeout=60)  # a runaway guard: it used to block forever

    assert process.returncode == 2
    assert "fifo: nothing was written to it in 0.5 s (a FIFO with no writer?)" in " ".join(
        (out + err).split()
    )


def writer_end(fifo: Path, process: subprocess.Popen[str]) -> int:
    """The FIFO opened for writing once the command has it open for reading (polled: a
    blocking open would wait forever for a command that never opens it)."""
    while True:
        try:
            descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:  # ENXIO: no reader yet
            assert exc.errno == errno.ENXIO
            assert process.poll() is None, process.communicate()
            threading.Event().wait(0.01)
            continue
        os.set_blocking(descriptor, True)
        return descriptor


def test_a_fifo_whose_writer_sends_a_whole_recording_is_read_whole(tmp_path: Path):
    """The sniffing open let the writer in, then closed: what it sent was lost (or it died of
    a broken pipe), and the reading open found an empty FIFO."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    lines = (REPO / "recordings" / "mcp-success.jsonl").read_bytes()
    process = cli_on(["inspect", "--json", "fifo"], tmp_path)
    with os.fdopen(writer_end(fifo, process), "wb") as out:
        out.write(lines)
    stdout, stderr = process.communicate(timeout=60)

    assert process.returncode == 0, stderr
    assert json.loads(stdout)["files"][0]["events"] == lines.count(b"\n") - 1


def test_a_fifo_that_drips_is_given_up(tmp_path: Path):
    """A byte every few seconds reset the wait each time: the read never ended."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    process = cli_on(["inspect", "fifo"], tmp_path)
    stop = threading.Event()

    def drip() -> None:
        with (
            contextlib.suppress(BrokenPipeError),
            os.fdopen(writer_end(fifo, process), "wb", buffering=0) as out,
        ):
            while not stop.wait(0.1):  # the pace of the drip, not a wait for a result
                out.write(b"{")

    writer = threading.Thread(target=drip)
    writer.start()
    try:
        out, err = process.communicate(timeout=60)  # a runaway guard: it never ended
    finally:
        stop.set()
        writer.join()

    assert process.returncode == 2
    assert "given up (a pipe that never ends?)" in " ".join((out + err).split())
