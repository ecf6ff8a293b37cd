"""Sharing from the app and the command line: `replay --screenshot` (headless SVG at a step or
on the failure), `R` (the session's report next to the recording) and `E` (the request as
curl, Python and a request file), all redacted."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from _app_support import REPO, SAMPLE_424, SIZE, TASKGROUP_ERROR, toasts, wait_until
from mcptui.cli.main import main
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp

HOSTILE = REPO / "tests" / "fixtures" / "share" / "hostile.jsonl"
SECRETS = (
    "sk-proj-Secr3tKeyValue0123456789",
    "mcp-bearer-token-8c2f1e9a77",
    "Zx9k2LmQ8vR4tY7wQ3",
    "qs9Secret77value",
)
UPSTREAM_DUMP = REPO / "tests" / "fixtures" / "upstream" / "openai-mcp-tool-approval.1.chunks.txt"


def svg_lines(svg: str) -> list[str]:
    """The screen's text rows as drawn in a Textual SVG (one <text> per styled run)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for found in re.finditer(r'<text[^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y = float(found.group(1)), float(found.group(2))
        rows.setdefault(y, []).append((x, html.unescape(found.group(3))))
    return [
        "".join(text for _, text in sorted(row)).replace("\xa0", " ")
        for _, row in sorted(rows.items())
    ]


# -- replay --screenshot -----------------------------------------------------------------------


def test_a_screenshot_on_the_failure_shows_its_error_and_likely_cause(tmp_path, capsys):
    out = tmp_path / "shots" / "failure.svg"
    code = main(
        ["replay", str(SAMPLE_424), "--screenshot", str(out), "--failure", "--size", "100x30"]
    )
    assert code == 0, capsys.readouterr().err
    assert f"screenshot saved to {out}" in capsys.readouterr().err
    screen = "\n".join(svg_lines(out.read_text(encoding="utf-8")))
    assert "✗ mcp_call search_files @files" in screen
    detail = [line.split("│")[-1].strip() for line in screen.splitlines()]
    error = detail.index("error")  # the detail pane opens with the item's error
    assert detail[error + 1 : error + 3] == [  # (at 100 columns the pane is 55 wide)
        "http_error 424: unhandled errors in a TaskGroup (1",
        "sub-exception)",
    ]
    assert "possible cause: Output schema without" in screen
    assert "step 16 / 61" in screen  # up to the failed item's own last event


def test_a_screenshot_at_a_step_and_of_a_file_with_secrets(tmp_path, capsys):
    out = tmp_path / "step.svg"
    assert main(["replay", str(SAMPLE_424), "--screenshot", str(out), "--step", "3"]) == 0
    assert "step 3 / 61" in "\n".join(svg_lines(out.read_text(encoding="utf-8")))
    text = HOSTILE.read_text(encoding="utf-8")
    assert all(secret in text for secret in SECRETS)
    secret_shot = tmp_path / "hostile.svg"
    assert main(["replay", str(HOSTILE), "--screenshot", str(secret_shot), "--failure"]) == 0
    svg = secret_shot.read_text(encoding="utf-8")
    screen = "\n".join(svg_lines(svg))
    assert "424: bad | cell" in screen and "[red]x[/red]" in screen  # shown literally
    for secret in SECRETS:
        assert secret not in svg
    capsys.readouterr()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "9x3"], "--size '9x3': give COLUMNSxROWS"),
        (["--step", "2", "--failure"], "--step N and --failure are two places to open at"),
    ],
)
def test_screenshot_refusals(tmp_path, capsys, args, message):
    out = tmp_path / "x.svg"
    assert main(["replay", str(SAMPLE_424), "--screenshot", str(out), *args]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


# -- R and E -----------------------------------------------------------------------------------


def app_on_copy(tmp_path: Path, source: Path) -> tuple[McptuiApp, Path]:
    """The app on a copy of `source` in tmp_path: what R and E write goes beside it."""
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    return McptuiApp(open_session(str(copy), instant=True), paused=True, open_at="end"), copy


async def toast_after(app: McptuiApp, key: str, words: str, timeout: float = 5) -> list[str]:
    """Press `key` in the app; the toasts that say `words` (the test fails if none comes)."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        assert await wait_until(
            pilot, lambda: any(words in t for t in toasts(pilot)), timeout=timeout
        )
        return [t for t in toasts(pilot) if words in t]


async def report_from_r(tmp_path: Path, source: Path) -> str:
    """Press R on a copy of `source`; the report's text once the toast names it."""
    app, copy = app_on_copy(tmp_path, source)
    report = tmp_path / f"{copy.stem}-report.md"
    await toast_after(app, "R", f"Report saved to {report}", timeout=10)
    return report.read_text(encoding="utf-8")


async def test_r_writes_the_sessions_report_beside_the_recording(tmp_path):
    text = await report_from_r(tmp_path, HOSTILE)
    assert "## Failures (1)" in text and "424: bad" in text
    for secret in SECRETS:
        assert secret not in text


async def test_r_includes_the_likely_cause_of_the_shipped_424(tmp_path):
    text = await report_from_r(tmp_path, SAMPLE_424)
    assert TASKGROUP_ERROR in text
    assert "Possible cause: Output schema without structuredContent" in text


async def test_e_exports_the_request_three_ways_with_placeholders(tmp_path):
    app, copy = app_on_copy(tmp_path, HOSTILE)
    (toast,) = await toast_after(app, "E", "Exported the request")
    # The toast names what to set (the key, the MCP header, the server URL's tokens).
    needed = toast.split("Set first: ")[1].replace("\n", " ").split(", ")
    assert needed[0] == "OPENAI_API_KEY" and len(needed) == 4
    assert os.access(tmp_path / f"{copy.stem}-request.sh", os.X_OK)
    written = {
        path.suffix: path.read_text(encoding="utf-8")
        for path in tmp_path.glob(f"{copy.stem}-request.*")
    }
    assert set(written) == {".sh", ".py", ".json"}
    assert "$OPENAI_API_KEY" in written[".sh"] and "curl" in written[".sh"]
    assert "from openai import OpenAI" in written[".py"]
    assert "${" in written[".json"]  # the redacted header and URL tokens as variables
    for text in written.values():
        for secret in SECRETS:
            assert secret not in text


async def test_e_on_a_dump_without_a_request_says_what_can_be_exported(tmp_path):
    app, _copy = app_on_copy(tmp_path, UPSTREAM_DUMP)
    await toast_after(app, "E", "Nothing to export")
    assert [p.name for p in tmp_path.iterdir()] == [UPSTREAM_DUMP.name]


def test_a_screenshot_never_replaces_the_file_replayed(tmp_path, capsys):
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(SAMPLE_424.read_bytes())
    assert main(["replay", str(copy), "--screenshot", str(copy)]) == 2
    assert "is the file replayed" in capsys.readouterr().err
    assert copy.read_bytes() == SAMPLE_424.read_bytes()


# -- secrets in toasts and in what R and s write (issue 35) -------------------------------------

SPLIT_TOKEN = "pthT0k3nA1b2C3d4"
SPLIT_HEADER = "xak7Hq2Lm9Pz4Wd6"


def split_secrets_recording(folder: Path) -> Path:
    """Someone else's recording: its request names a URL token and an MCP header value (in
    clear), and the message's text echoes both, split across its deltas."""
    text = f"token {SPLIT_TOKEN} header {SPLIT_HEADER} done"
    cuts = [text.index(SPLIT_TOKEN) + 5, text.index(SPLIT_HEADER) + 6]
    pieces = [text[: cuts[0]], text[cuts[0] : cuts[1]], text[cuts[1] :]]
    request = {
        "model": "m",
        "input": "q",
        "tools": [
            {
                "type": "mcp",
                "server_label": "s",
                "headers": {"X-Api-Key": SPLIT_HEADER},
                "server_url": f"https://mcp.example.com/s/{SPLIT_TOKEN}/mcp",
            }
        ],
    }
    item = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    events = [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": piece,
        }
        for piece in pieces
    ]
    events += [
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "output": [item]},
        },
    ]
    lines = [{"mcptui": "recording", "format": 1, "request": request}]
    lines += [{"t": 0.01 * n, "event": {**e, "sequence_number": n}} for n, e in enumerate(events)]
    path = folder / "split.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def pieces_in(text: str) -> list[str]:
    return [
        s[at : at + 6]
        for s in (SPLIT_TOKEN, SPLIT_HEADER)
        for at in range(len(s) - 5)
        if s[at : at + 6] in text
    ]


async def test_r_and_a_toast_never_show_a_secret_split_across_deltas(tmp_path):
    source = (
        split_secrets_recording(tmp_path / "src") if (tmp_path / "src").mkdir() is None else None
    )
    assert source is not None
    text = await report_from_r(tmp_path, source)
    assert "done" in text and pieces_in(text) == []
    app = McptuiApp(open_session(str(source), instant=True), paused=True, open_at="end")
    async with app.run_test(size=SIZE) as pilot:
        app.notify(
            f"Could not reach https://mcp.example.com/s/{SPLIT_TOKEN}/mcp: {SPLIT_HEADER} refused",
            severity="error",
        )
        assert await wait_until(pilot, lambda: any("refused" in t for t in toasts(pilot)))
        assert pieces_in("\n".join(toasts(pilot))) == []
