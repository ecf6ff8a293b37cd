"""`mcptui report`: the Markdown a user pastes into a GitHub issue, checked the way GitHub reads
it (markdown-it-py, CommonMark with tables, raw HTML on): tables, fenced JSON, collapsed
blocks; the HTML file; and that no secret and no markup from the stream gets through."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mcptui.cli.main import main
from mcptui.io.recording import event_line
from test_wire import NO_STRUCTURED, TASKGROUP, Wire, call, in_time_order, listing, stream

REPO = Path(__file__).resolve().parents[2]
SAMPLE_424 = REPO / "recordings" / "mcp-424-broken-schema.jsonl"
SAMPLE_SUCCESS = REPO / "recordings" / "mcp-success.jsonl"
GITHUB = MarkdownIt("commonmark", {"html": True}).enable("table")
"""GitHub-flavoured enough: pipe tables, fences, and raw HTML blocks such as <details>."""

SECRETS = (
    "sk-proj-Secr3tKeyValue0123456789",
    "mcp-bearer-token-8c2f1e9a77",
    "Zx9k2LmQ8vR4tY7wQ3",
    "qs9Secret77value",
)
HOSTILE = REPO / "tests" / "fixtures" / "share" / "hostile.jsonl"


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["report", *args])
    return code, capsys.readouterr().out


def tokens_of(markdown: str) -> list[Token]:
    return GITHUB.parse(markdown)


def details_blocks(markdown: str) -> list[str]:
    """The text of each <details> … </details> block as GitHub would group it."""
    return re.findall(r"<details><summary>.*?</details>", GITHUB.render(markdown), re.S)


def tables(tokens: list[Token]) -> list[list[list[str]]]:
    """Each table as its rows of cell sources, the header row first."""
    found: list[list[list[str]]] = []
    for position, token in enumerate(tokens):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            found[-1].append([])
        elif token.type in ("td_open", "th_open"):
            inline = tokens[position + 1]
            found[-1][-1].append(inline.content if inline.type == "inline" else "")
    return found


def table_rows(tokens: list[Token]) -> list[list[str]]:
    return [row for table in tables(tokens) for row in table]


def rendered_text(markdown: str) -> str:
    """What a reader sees: the HTML with tags dropped and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", GITHUB.render(markdown)))


# -- the shipped 424 ---------------------------------------------------------------------------


def test_the_424_report_leads_with_the_error_and_its_likely_cause(capsys):
    code, out = report(capsys, str(SAMPLE_424))
    assert code == 1  # a failure, as inspect says
    seen = rendered_text(out)
    verdict = seen[seen.index("1 failure") : seen.index("Request")]
    assert "mcp_call search_files" in verdict
    assert "424: unhandled errors in a TaskGroup (1 sub-exception)" in verdict
    assert (
        "4 possible causes the stream cannot tell apart (Output schema without "
        "structuredContent, Invalid content block" in verdict
    )
    assert "x-request-id req_6013230f8687d23777e6f50b366c7783" in seen
    failure = seen[seen.index("Failures (1)") :]
    assert "evidence: the call failed 1.13 s after its arguments were sent" in failure
    assert "try: Return structuredContent that matches the outputSchema" in failure


def test_tables_fenced_json_and_collapsed_blocks_render_as_github_shows_them(capsys):
    _code, out = report(capsys, str(SAMPLE_424))
    tokens = tokens_of(out)
    rows = table_rows(tokens)
    assert ["#", "item", "status", "start", "took", "tool", "error / gist"] in rows
    call_row = next(row for row in rows if row[1].startswith("mcp\\_call search\\_files"))
    assert "failed" in call_row[2] and "TaskGroup" in call_row[6]
    tools_row = next(row for row in rows if row[:2] == ["mcp", "files"])
    assert tools_row[2] == "`https://files.example.com/mcp`"
    fences = [t for t in tokens if t.type == "fence"]
    assert {"text", "json"} <= {t.info for t in fences}
    arguments = next(t for t in fences if '"query": "Q3 budget forecast"' in t.content)
    assert json.loads(arguments.content)["max_results"] == 5
    blocks = details_blocks(out)
    assert [re.search(r"<summary>(.*?)</summary>", b).group(1) for b in blocks] == [
        "Events of mcp_call search_files @files (8)",
        "Terminal event: response.completed (event 61)",
    ]
    failed_events = re.search(r'<code class="language-json">(.*?)</code>', blocks[0], re.S)
    lines = html.unescape(failed_events.group(1)).splitlines()
    assert [json.loads(line)["type"] for line in lines][-2:] == [
        "response.mcp_call.failed",
        "response.output_item.done",
    ]
    assert "openai-python" in out.splitlines()[-1]  # the environment footer


def test_a_run_without_failure_says_so(capsys):
    code, out = report(capsys, str(SAMPLE_SUCCESS))
    assert code == 0
    assert "No failure." in rendered_text(out)
    assert "Failures" not in out


# -- secrets and hostile content ---------------------------------------------------------------


def hostile_recording(_tmp_path: Path | None = None) -> Path:
    """tests/fixtures/share/hostile.jsonl (make_hostile.py): a header never redacted, and a
    failure whose text tries every way out of a Markdown report."""
    text = HOSTILE.read_text(encoding="utf-8")
    assert all(secret in text for secret in SECRETS)  # else "not in the report" proves nothing
    return HOSTILE


@pytest.mark.parametrize("form", ["md", "html"])
def test_no_secret_from_the_request_its_urls_or_the_events_reaches_the_report(
    tmp_path, capsys, form
):
    _code, out = report(capsys, str(hostile_recording(tmp_path)), "--format", form)
    for secret in SECRETS:
        assert secret not in out
    shown = rendered_text(out) if form == "md" else html.unescape(re.sub(r"<[^>]+>", "", out))
    assert "https://mcp.example.com/s/<redacted>/mcp?api_key=<redacted>" in shown
    assert "Authorization: <redacted>" in shown  # a redacted value is text, not a lost tag


def test_text_from_the_stream_cannot_break_out_of_its_cell_block_or_fence(tmp_path, capsys):
    _code, out = report(capsys, str(hostile_recording(tmp_path)))
    found = tables(tokens_of(out))
    assert len(found) >= 3  # request, tools, items
    for table in found:  # no cell split by a `|` from the stream
        assert {len(row) for row in table} == {len(table[0])}, table
    tools, items = found[1], found[2]
    assert tools[1][1] == "evil|label" and items[1][1].startswith("mcp\\_call t\\*o\\*o\\_l")
    rendered = GITHUB.render(out)
    assert "<script>" not in rendered and "<h1># heading" not in rendered
    assert len(details_blocks(out)) == 2  # the error's </details> closed nothing
    seen = rendered_text(out)
    assert "</details> <script>alert(1)</script> ``` [red]x[/red]" in seen  # literally
    assert "\x1b" not in out
    assert "t*o*o_l" in seen  # no emphasis eaten


def test_html_is_one_file_without_scripts_or_external_assets(tmp_path, capsys):
    out_file = tmp_path / "report.html"
    code = main(["report", str(SAMPLE_424), "-o", str(out_file)])
    assert code == 1
    assert f"report written to {out_file}" in capsys.readouterr().err
    page = out_file.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "<style>" in page
    assert not re.search(r"<script|<link|<img|src=|@import|url\(", page, re.I)
    assert page.count("<table>") == 3 and page.count("<details>") == 2
    assert "Output schema without structuredContent" in page


# -- tap evidence ------------------------------------------------------------------------------


def test_a_tapped_recording_reports_the_wire_and_the_confirmed_cause(tmp_path, capsys):
    wire = Wire()
    events = in_time_order(
        listing(wire, 0.5),
        stream(("broken", {"q": 1}, TASKGROUP)),
        call(wire, "broken", {"q": 1}, 1.06, NO_STRUCTURED),
    )
    path = tmp_path / "tapped.jsonl"
    path.write_text("\n".join(event_line(e) for e in events) + "\n", encoding="utf-8")
    _code, out = report(capsys, str(path))
    seen = rendered_text(out)
    assert "Confirmed cause: Output schema without structuredContent" in seen
    assert "evidence: tap: tools/list declared an outputSchema for broken" in seen
    wire = next(table for table in tables(tokens_of(out)) if table[0] == ["time", "message"])
    assert [row[1] for row in wire[1:]] == ["MCP → tools/call", "MCP ← answer"]


def test_an_unusable_file_is_named_and_exits_2(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["report", str(empty)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"mcptui: {empty}: the file is empty\n"
    assert captured.out == ""  # no report of nothing


def test_a_report_never_replaces_the_file_it_reports_on(tmp_path, capsys):
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(SAMPLE_424.read_bytes())
    assert main(["report", str(copy), "-o", str(copy)]) == 2
    assert "is " + str(copy) + " itself" in capsys.readouterr().err
    assert copy.read_bytes() == SAMPLE_424.read_bytes()


def test_several_files_open_with_an_overview_and_a_missing_tap_file_is_refused(capsys):
    code, out = report(capsys, str(SAMPLE_SUCCESS), str(SAMPLE_424))
    assert code == 1
    overview = tables(tokens_of(out))[0]
    assert overview[0] == ["file", "responses", "failures", "first failure", "cause"]
    assert [row[2] for row in overview[1:]] == ["✓ 0", "✗ 1"]
    assert "Output schema without structuredContent (+3 more)" in overview[2][4]
    assert main(["report", str(SAMPLE_424), "--tap", "/nonexistent/tap.jsonl"]) == 2
    assert "--tap /nonexistent/tap.jsonl: no such file" in capsys.readouterr().err


def test_a_live_runs_own_secrets_are_hidden_and_still_read_as_redacted(tmp_path):
    """The app's `R` passes the run's MCP credentials: wherever one is echoed in plain text
    (an error message), the reader sees `<redacted>`, not a vanished HTML tag."""
    from mcptui.io.formats import load_path
    from mcptui.share.inspect_output import Inspection
    from mcptui.share.report import markdown_report

    loaded = load_path(str(hostile_recording(tmp_path)))
    event = loaded.events[3]
    raw = event.raw  # read from the file on each use: changed, then kept
    raw["item"]["error"] = "401 from the server: token live-credential-42 refused"
    event.raw = raw
    out = markdown_report([Inspection.of(loaded)], secrets=["live-credential-42"])
    assert "live-credential-42" not in out
    seen = rendered_text(out)
    verdict = seen[seen.index("1 failure") : seen.index("Request")]  # plain text, no fence
    assert "401 from the server: token <redacted> refused" in verdict


def test_a_credential_passed_as_a_tool_argument_is_hidden_in_every_part(tmp_path, capsys):
    """`{"api_key": …}` inside a call's arguments (a JSON string, where `redact` sees text):
    hidden in the items table, the Arguments block and the raw events."""
    lines = SAMPLE_424.read_text(encoding="utf-8").replace(
        '\\"max_results\\":5}', '\\"max_results\\":5,\\"api_key\\":\\"argsecret42\\"}'
    )
    path = tmp_path / "with-key.jsonl"
    path.write_text(lines, encoding="utf-8")
    assert "argsecret42" in lines
    _code, out = report(capsys, str(path))
    assert "argsecret42" not in out
    arguments = next(t for t in tokens_of(out) if t.type == "fence" and '"folder"' in t.content)
    assert json.loads(arguments.content)["api_key"] == "<redacted>"
