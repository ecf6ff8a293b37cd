"""Input bounds: a size limit for files and special files, a timeout for a FIFO nobody writes
to. (`/dev/zero` grew memory by gigabytes a second; a writerless FIFO blocked forever.)"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tui.cli import main
from tui.io.reading import InputError, read_bounded


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
