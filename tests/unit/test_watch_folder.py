"""`mcptui watch`'s rows, without the app: what a recording is summed up as (status, responses,
failures), and what a poll of the folder lists and reads: only new and grown files, only
their new lines, newest first, a renamed recording kept, other files left out."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from mcptui.cli.main import main
from mcptui.io.folder_watch import FolderWatch, folder_problem
from mcptui.io.recording import read_recording
from mcptui.model.recording_status import summarize
from mcptui.model.reducer import Reducer

REPO = Path(__file__).resolve().parents[2]
SUCCESS = REPO / "recordings" / "mcp-success.jsonl"
BROKEN = REPO / "recordings" / "mcp-424-broken-schema.jsonl"


def lines_of(sample: Path, created: str | None = None) -> list[str]:
    """The sample's lines (each with its newline), its header's `created` replaced."""
    header, *rest = sample.read_text(encoding="utf-8").splitlines()
    if created is not None:
        header = json.dumps({**json.loads(header), "created": created})
    return [line + "\n" for line in [header, *rest]]


def summary_of(lines: list[str], *, growing: bool):
    loaded = read_recording(enumerate(lines, 1))
    reducer = Reducer()
    reducer.fold(loaded.events)
    return summarize(reducer.state, len(loaded.events), growing=growing)


# -- the row summary --------------------------------------------------------------------------


def test_a_recording_is_completed_failed_or_still_open_as_inspect_counts_it():
    done = summary_of(lines_of(SUCCESS), growing=False)
    assert (done.status, done.responses, done.failures) == ("completed", 1, 0)
    broken = summary_of(lines_of(BROKEN), growing=True)  # ended: growing or not
    assert (broken.status, broken.responses, broken.failures) == ("failed", 1, 1)
    cut = lines_of(SUCCESS)[:20]  # the response never reached its terminal event
    assert summary_of(cut, growing=True).status == "writing"
    assert summary_of(cut, growing=False).status == "never finished"
    assert summary_of(cut, growing=False).events == 19
    header_only = lines_of(SUCCESS)[:1]
    assert summary_of(header_only, growing=True).status == "writing"
    assert summary_of(header_only, growing=False).status == "never finished"
    assert summary_of(header_only, growing=False).responses == 0


# -- polling the folder -----------------------------------------------------------------------


def write(path: Path, lines: list[str], mode: str = "w") -> Path:
    with path.open(mode, encoding="utf-8") as out:
        out.write("".join(lines))
    return path


def listed(watch: FolderWatch) -> list[tuple[str, str, int]]:
    return [(row.path.name, row.summary.status, row.summary.events) for row in watch.rows()]


def test_rows_come_newest_first_and_other_files_are_left_out(tmp_path: Path):
    write(tmp_path / "old.jsonl", lines_of(BROKEN, "2026-01-01T10:00:00+00:00"))
    write(tmp_path / "new.jsonl", lines_of(SUCCESS, "2026-01-02T10:00:00+00:00"))
    write(tmp_path / "dump.jsonl", ['{"type": "response.created"}\n'])  # no mcptui header
    write(tmp_path / "notes.txt", lines_of(SUCCESS))  # not *.jsonl
    watch = FolderWatch(tmp_path)
    assert watch.poll(time.time() + 3600)
    assert listed(watch) == [("new.jsonl", "completed", 63), ("old.jsonl", "failed", 61)]
    reads = watch.reads
    assert not watch.poll(time.time() + 3600)  # nothing changed: a stat each, no read
    assert watch.reads == reads


def test_a_growing_file_is_read_only_from_where_the_last_read_stopped(tmp_path: Path):
    lines = lines_of(SUCCESS)
    path = write(tmp_path / "run.jsonl", [*lines[:10], lines[10][:15]])  # a line half written
    watch = FolderWatch(tmp_path)
    assert watch.poll(time.time())
    assert listed(watch) == [("run.jsonl", "writing", 9)]
    followed = next(iter(watch._files.values())).followed
    assert followed is not None
    assert followed.offset == len("".join(lines[:10]).encode())  # the half line waits
    write(path, [lines[10][15:], *lines[11:]], "a")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))  # a new mtime, surely
    assert watch.poll(time.time())
    assert listed(watch) == [("run.jsonl", "completed", 63)]
    assert watch.reads == 2


def test_a_response_left_open_never_finished_once_the_file_is_quiet(tmp_path: Path):
    write(tmp_path / "killed.jsonl", lines_of(SUCCESS)[:20])
    watch = FolderWatch(tmp_path, quiet=30)
    now = time.time()
    watch.poll(now)
    assert listed(watch)[0][1] == "writing"
    assert watch.poll(now + 31)  # no read: the same bytes, quiet by now
    assert listed(watch)[0][1] == "never finished"
    assert watch.reads == 1
    assert next(iter(watch._files.values())).followed is None  # only its row is kept


def test_a_header_not_yet_whole_is_not_listed_until_it_is(tmp_path: Path):
    header = lines_of(SUCCESS)[0]
    path = write(tmp_path / "new.jsonl", [header[:40]])
    watch = FolderWatch(tmp_path)
    assert not watch.poll(time.time())
    assert watch.rows() == []
    write(path, [header[40:]], "a")
    assert watch.poll(time.time())
    assert listed(watch) == [("new.jsonl", "writing", 0)]


def test_a_recording_renamed_while_written_keeps_its_row_and_is_not_read_again(tmp_path: Path):
    path = write(tmp_path / "20260101-100000-pending.jsonl", lines_of(SUCCESS))
    watch = FolderWatch(tmp_path)
    watch.poll(time.time())
    path.rename(tmp_path / "20260101-100000-resp_1.jsonl")
    assert watch.poll(time.time())
    assert listed(watch) == [("20260101-100000-resp_1.jsonl", "completed", 63)]
    assert watch.reads == 1
    (tmp_path / "20260101-100000-resp_1.jsonl").unlink()
    assert watch.poll(time.time())
    assert watch.rows() == []


# -- a folder that cannot be watched ----------------------------------------------------------


def test_a_missing_folder_a_file_or_an_unreadable_one_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    assert main(["watch", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == f"mcptui: watch {tmp_path / 'nowhere'}: no such folder\n"
    file = write(tmp_path / "a.jsonl", lines_of(SUCCESS))
    assert main(["watch", str(file)]) == 2
    assert "is not a folder" in capsys.readouterr().err

    def refused(path: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "scandir", refused)  # (the tests run as root: chmod would not do)
    assert folder_problem(str(tmp_path)) == "cannot list it: Permission denied"
    assert main(["watch", str(tmp_path)]) == 2
    assert capsys.readouterr().err.endswith("cannot list it: Permission denied\n")
