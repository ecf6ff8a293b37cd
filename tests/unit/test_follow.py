"""Following a file another process writes (`mcptui replay FILE --follow`): what is appended
joins the timeline a complete line at a time, redacted, and a file being written is followed
unasked."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcptui.sources.replay import open_session

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (
    (ROOT / "recordings" / "mcp-424-broken-schema.jsonl").read_bytes().splitlines(keepends=True)
)
"""A header and 61 records, the last one `response.completed`."""


def types(session: object) -> list[str | None]:
    return [e.kind for e in session.timeline.events]  # type: ignore[attr-defined]


def test_appended_lines_join_a_line_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    cut = SAMPLE[10]
    path.write_bytes(b"".join(SAMPLE[:10]) + cut[:25])  # a line still being written
    session = open_session(str(path), follow=True)
    session.load_all()
    follower = session.follower
    assert follower is not None and session.live
    assert len(session.timeline.events) == 9  # the header is no event; the cut line waits
    assert [p.line for p in session.problems] == [11]  # cut, as the first reading saw it
    assert follower.poll() == 0  # nothing new yet
    with path.open("ab") as file:
        file.write(cut[25:] + SAMPLE[11][:5])
    assert follower.poll() == 1
    assert session.problems == []  # the cut line is whole now
    with path.open("ab") as file:
        file.write(b"".join(SAMPLE[11:])[5:])
    assert follower.poll() == len(SAMPLE) - 11
    whole = open_session(str(path))
    whole.load_all()
    assert types(session) == types(whole)
    assert [e.line for e in session.timeline.events] == [e.line for e in whole.timeline.events]
    assert not follower.writing() or follower.clock() - follower.last_growth < 2


def test_a_dump_of_json_lines_is_followed_and_redacted(tmp_path: Path) -> None:
    path = tmp_path / "app.jsonl"
    events = [json.loads(line)["event"] for line in SAMPLE[1:]]
    path.write_text("".join(json.dumps(e) + "\n" for e in events[:5]))
    session = open_session(str(path), follow=True)
    follower = session.follower
    assert follower is not None
    leaked = {**events[5], "delta": "key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 here"}
    with path.open("a") as file:
        file.write(json.dumps(leaked) + "\n")
    assert follower.poll() == 1
    shown = json.dumps(session.timeline.events[-1].raw)
    assert "sk-proj-abcdefghijklmnop" not in shown


def test_a_replaced_file_stops_the_following_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"".join(SAMPLE[:10]))
    session = open_session(str(path), follow=True)
    follower = session.follower
    assert follower is not None
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"".join(SAMPLE))
    os.replace(replacement, path)
    assert follower.poll() == 1
    assert follower.ended == "the file was replaced or cut short while followed"
    assert not session.live  # the header no longer says it follows
    assert session.timeline.events[-1].raw["message"].startswith("stopped following")
    assert not follower.writing()
    assert follower.poll() == 0


def test_a_file_being_written_is_followed_unasked(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"".join(SAMPLE[:10]))
    session = open_session(str(path), follow=None)
    follower = session.follower
    assert follower is not None and not session.live  # written just now: live once it grows
    with path.open("ab") as file:
        file.write(SAMPLE[10])
    assert follower.poll() == 1 and session.live
    assert open_session(str(path), follow=False).follower is None
    old = path.stat().st_mtime - 60
    os.utime(path, (old, old))
    assert open_session(str(path), follow=None).follower is None  # written long ago
    path.write_bytes(b"".join(SAMPLE))
    assert open_session(str(path), follow=None).follower is None  # it has ended


def test_a_whole_text_format_is_not_followed(tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    events = [json.loads(line)["event"] for line in SAMPLE[1:4]]
    path.write_text("".join(f"data: {json.dumps(e)}\n\n" for e in events))
    assert open_session(str(path), follow=True).follower is None


def test_a_line_longer_than_a_read_is_taken_whole(tmp_path: Path, monkeypatch: object) -> None:
    from mcptui.sources import follow as module

    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"".join(SAMPLE[:10]))
    session = open_session(str(path), follow=True)
    follower = session.follower
    assert follower is not None
    monkeypatch.setattr(module, "MAX_READ", 64)  # type: ignore[attr-defined]
    with path.open("ab") as file:
        file.write(SAMPLE[10])  # several reads long
    polls = [follower.poll() for _ in range(len(SAMPLE[10]) // 64 + 1)]
    assert sum(polls) == 1 and polls[-1] == 1
    assert session.timeline.events[-1].line == 11
    follower.max_line = 100
    with path.open("ab") as file:
        file.write(b"x" * 200)
    assert [follower.poll() for _ in range(4)] == [0, 1, 0, 0]  # 64, then 128 bytes: too long
    assert follower.ended == "a line longer than 100 bytes"


def test_following_starts_after_the_last_whole_line_however_long(tmp_path: Path) -> None:
    from mcptui.sources.follow import follow_start

    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"a\n" + b"x" * (3 << 20))  # a last line of 3 MB, still being written
    assert follow_start(str(path), path.stat().st_size) == 2
    path.write_bytes(b"x" * 100)
    assert follow_start(str(path), 100) == 0
    path.write_bytes(b"a\nb\n")
    assert follow_start(str(path), 4) == 4
