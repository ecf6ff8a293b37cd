"""The recent files the open dialog lists (issue 39): `inspect` notes each file it could read,
newest first, ten at most, each once; a file that could not be read is not noted."""

from __future__ import annotations

import shutil
from pathlib import Path

from mcptui.cli.main import main
from mcptui.io.recent import KEEP, note_opened, recent_files

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "recordings" / "mcp-success.jsonl"


def test_inspect_notes_the_files_it_read_newest_first(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE, tmp_path / "a.jsonl")
    shutil.copy(SAMPLE, tmp_path / "b.jsonl")
    (tmp_path / "junk.txt").write_text("not a stream\n")
    assert main(["inspect", "a.jsonl"]) == 0
    assert main(["inspect", "b.jsonl", "junk.txt", "missing.jsonl"]) == 2
    assert main(["inspect", "a.jsonl"]) == 0
    capsys.readouterr()
    listed = recent_files()
    assert [r.path for r in listed] == [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    assert all(r.exists for r in listed)
    (tmp_path / "b.jsonl").unlink()
    assert [r.exists for r in recent_files()] == [True, False]


def test_ten_are_kept_and_stdin_is_never_one(tmp_path):
    for number in range(KEEP + 3):
        (tmp_path / f"{number}.jsonl").write_text("{}\n")
        note_opened(tmp_path / f"{number}.jsonl")
    note_opened("-")
    listed = [Path(r.path).name for r in recent_files()]
    assert listed == [f"{n}.jsonl" for n in range(KEEP + 2, 2, -1)]


def test_several_files_read_at_once_are_listed_the_last_first(tmp_path, capsys):
    for name in ("a", "b", "c"):
        shutil.copy(SAMPLE, tmp_path / f"{name}.jsonl")
    assert main(["inspect", *(str(tmp_path / f"{n}.jsonl") for n in "abca")]) == 0
    capsys.readouterr()
    assert [Path(r.path).name for r in recent_files()] == ["a.jsonl", "c.jsonl", "b.jsonl"]
