"""Input that is merely unusual never gives exit 3 (an internal error).

Each case runs the command line as a user does: a separate process, no terminal. Exit codes:
0 clean, 1 a failure is present, 2 bad input (one `mcptui: …` line), 3 a crash. The process is
forked from tests/_cli_fork.py's server (mcptui imported once: ~0.1 s of CPU a command, not
~1.5 s), but `python -m mcptui` for a file name whose bytes are not UTF-8 (a command line only a
real process is given) and for the alias bomb (it once ran for minutes).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_fork import forked_cli, real_cli
from mcptui.cli.main import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "recordings" / "mcp-success.jsonl"


def run_cli(args: list[str], cwd: Path, *, real: bool = False) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` forked from the server; `real`: as `python -m mcptui`."""
    done = (real_cli if real else forked_cli)(args, cwd, timeout=60)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert "internal error" not in done.stderr, done.stderr
    assert done.returncode != 3, done.stderr
    return done


# -- C1: a lone surrogate --------------------------------------------------------------------


def _with_surrogates(value: object) -> object:
    """Every string of `value` (but `type`) with a lone surrogate appended."""
    if isinstance(value, str):
        return value + "\ud800"
    if isinstance(value, list):
        return [_with_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            key: item if key == "type" else _with_surrogates(item) for key, item in value.items()
        }
    return value


@pytest.fixture()
def surrogate_file(tmp_path: Path) -> Path:
    header, *lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    out = [header]
    for line in lines:
        entry = json.loads(line)
        if "event" in entry:
            entry["event"] = _with_surrogates(entry["event"])
        out.append(json.dumps(entry))  # ASCII: the surrogate is the JSON escape "\ud800"
    path = tmp_path / "surrogate.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="ascii")
    assert "\\ud800" in path.read_text(encoding="ascii")
    return path


@pytest.mark.parametrize(
    "command", [["inspect"], ["inspect", "--json"], ["report"], ["diff", str(SAMPLE)]]
)
def test_lone_surrogate_is_shown_escaped(
    command: list[str], surrogate_file: Path, tmp_path: Path
) -> None:
    args = (
        [command[0], *command[1:2], str(surrogate_file)]
        if command[0] != "diff"
        else ["diff", str(surrogate_file), command[1]]
    )
    done = run_cli(args, tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "\\ud800" in done.stdout
    if command[-1] == "--json":
        json.loads(done.stdout)  # still one JSON document


def test_report_to_a_file_with_a_lone_surrogate_is_complete(
    surrogate_file: Path, tmp_path: Path
) -> None:
    output = tmp_path / "report.html"
    done = run_cli(["report", str(surrogate_file), "-o", str(output)], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    text = output.read_text(encoding="utf-8")
    assert text.rstrip().endswith("</html>")
    assert "\\ud800" in text


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8")
def test_a_file_name_that_is_not_utf8_is_written_escaped(
    surrogate_file: Path, tmp_path: Path
) -> None:
    odd = Path(bytes(tmp_path / "odd-").decode() + "\udcff.jsonl")  # the byte 0xff
    odd.write_bytes(surrogate_file.read_bytes())
    output = tmp_path / "report.md"
    done = run_cli(["report", str(odd), "-o", str(output)], tmp_path, real=True)  # argv bytes
    assert done.returncode in (0, 1), done.stderr
    assert output.stat().st_size > 0


# -- C7: a port out of range -----------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["emulate"],
        ["demo-server"],
        ["proxy", "--no-tui"],
        ["tap", "--no-tui", "--upstream", "http://127.0.0.1:9/mcp"],
    ],
)
@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_a_usage_error(
    command: list[str], port: str, tmp_path: Path
) -> None:
    done = run_cli([*command, "--port", port], tmp_path)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "--port" in last and "0 to 65535" in last, done.stderr


# -- C3: Python literals with keys and values JSON has no word for ---------------------------

CREATED = "{'type': 'response.created', 'sequence_number': 0, 'response': {'id': 'resp_1', "
PYTHON_PASTES = {
    "tuple key": CREATED + "'status': 'in_progress', (1, 2): 'x'}}",
    "bytes key": CREATED + "b'k': 1}}",
    "bytes value": CREATED + "'status': 'in_progress'}}\n"
    "{'type': 'response.output_text.delta', 'sequence_number': 1, 'item_id': 'm',"
    " 'output_index': 0, 'content_index': 0, 'delta': b'abc'}",
    "odd keys and values": "{'type': 'response.created', 'k': {1, 2}, 'c': 1j, 'e': ..., "
    "'s': '\\ud800', 'response': {None: 1, 1.5: 2, (1,): 3}}",
    "sdk repr": "ResponseCreatedEvent(type='response.created', sequence_number=0, "
    "response=Response(id='r', x={(1, 2): b'a'}, y=b'z', z={1, 2}))",
}


@pytest.mark.parametrize("prose", ["", "Here is what my app printed:\n"])
@pytest.mark.parametrize("name", list(PYTHON_PASTES))
@pytest.mark.parametrize("command", [["inspect"], ["inspect", "--json"], ["report"]])
def test_python_literals_with_odd_keys_are_read(
    command: list[str],
    name: str,
    prose: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # where a crash would log
    path = tmp_path / "paste.txt"
    path.write_text(prose + PYTHON_PASTES[name] + "\n", encoding="utf-8")
    code = main([*command, str(path)])
    out, err = capsys.readouterr()
    assert code == 1, err  # read: the stream never finished
    if command[-1] == "--json":
        assert json.loads(out)["files"][0]["events"] >= 1


def test_python_literal_values_become_json_data() -> None:
    from mcptui.io.formats import load_text

    loaded = load_text(PYTHON_PASTES["bytes value"] + "\n" + PYTHON_PASTES["odd keys and values"])
    raws = [event.raw for event in loaded.events]
    assert raws[1]["delta"] == "abc"
    assert raws[2]["response"] == {"null": 1, "1.5": 2, "(1,)": 3}
    assert raws[2]["k"] == [1, 2] and raws[2]["c"] == "1j" and raws[2]["s"] == "\\ud800"
    json.dumps(raws)  # JSON data, all of it


# -- C4, C5: archives with values YAML cannot build and URLs urlsplit refuses ----------------

ARCHIVES = REPO / "tests" / "fixtures" / "archives"
CASSETTE = (ARCHIVES / "openai-sdk.yaml").read_text(encoding="utf-8")
FIRST_REQUEST = "interactions:\n- request:\n"
assert CASSETTE.startswith(FIRST_REQUEST)
CASSETTES = {
    # read: a timestamp is kept as its text
    "month 13": ("recorded_at: 2001-13-45\n" + CASSETTE, 1),
    "UTC offset +25:00": ("recorded_at: 2001-01-01 10:00:00 +25:00\n" + CASSETTE, 1),
    "a timestamp key": ("2001-01-01: x\n" + CASSETTE, 1),
    # refused: one line, exit 2
    "!!int abc": ("x: !!int abc\n" + CASSETTE, 2),
    "a 5000-digit int": ("x: " + "9" * 5000 + "\n" + CASSETTE, 2),
    "an anchor inside itself": ("x: &a [*a]\n" + CASSETTE, 2),
    "an anchor inside itself, in a request": (
        FIRST_REQUEST + "    parsed_body: &a {k: [*a]}\n" + CASSETTE[len(FIRST_REQUEST) :],
        2,
    ),
}


def _inspect(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    code = main(["inspect", *options, str(path)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name", list(CASSETTES))
def test_a_cassette_with_odd_yaml_is_read_or_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    text, expected = CASSETTES[name]
    path = tmp_path / "cassette.yaml"
    path.write_text(text, encoding="utf-8")
    for options in (("--json",), ()):
        code, err = _inspect(path, capsys, *options)
        assert code == expected, err
        assert "internal error" not in err
    if expected == 2:  # the reason, on one (wrapped) line
        assert "VCR cassette" in " ".join(err.split())


def test_a_har_entry_with_an_invalid_ipv6_url_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    har = json.loads((ARCHIVES / "app.har").read_text(encoding="utf-8"))
    har["log"]["entries"][-1]["request"]["url"] = "http://[::1/x"
    path = tmp_path / "app.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    code, err = _inspect(path, capsys)
    assert code == 1, err  # the archive's own failures, as without the odd entry
    har["log"]["entries"] = [har["log"]["entries"][-1]]
    path.write_text(json.dumps(har), encoding="utf-8")
    code, err = _inspect(path, capsys)
    assert code == 2 and "none a Responses API call" in " ".join(err.split()), err


def test_split_url_never_raises() -> None:
    from mcptui.model.urlsafe import split_url

    assert split_url("http://[::1/x").path == "/x"
    assert split_url("https://api.openai.com/v1/responses").path == "/v1/responses"
    assert split_url("http://\uff03x/v1/responses").path.endswith("/v1/responses")


# -- C6: tool arguments that join into deeply nested JSON ------------------------------------


def test_report_on_arguments_nested_5000_deep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    out = []
    for line in (REPO / "recordings" / "mcp-timeout-424.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry.get("event", {}).get("type") == "response.mcp_call_arguments.delta":
            entry["event"]["delta"] = "[" * 5000
        out.append(json.dumps(entry))
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    code = main(["report", str(path)])
    report, err = capsys.readouterr()
    assert code == 1, err  # the call's 424, reported
    assert "internal error" not in err
    assert "[" * 5000 in report  # the arguments as sent: not JSON that can be indented


def test_a_tapped_error_body_nested_deep_is_no_jsonrpc_error() -> None:
    from mcptui.model.wire_evidence import _jsonrpc_error_in

    assert _jsonrpc_error_in({"body": '{"error":' + "[" * 5000}) is None
    assert _jsonrpc_error_in({"body": '{"error": {"code": -32602}}'}) == {"code": -32602}


# -- the HTML report's title: a file name with controls ---------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="control characters in a file name")
def test_html_report_title_shows_a_file_names_controls_escaped(tmp_path: Path) -> None:
    odd = tmp_path / "odd\x1b[31m\x07\x9b\u202e.jsonl"
    odd.write_bytes(SAMPLE.read_bytes())
    output = tmp_path / "report.html"
    done = run_cli(["report", str(odd), "--format", "html", "-o", str(output)], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    text = output.read_text(encoding="utf-8")
    assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(text)
    assert "odd\\x1b[31m\\x07\\x9b\\u202e.jsonl" in text


# -- a VCR cassette whose aliases expand exponentially (a "billion laughs") --------------------


def _alias_bomb() -> str:
    lines = ["a0: &a0 [lol]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 10)]
    return "\n".join(lines) + "\ninteractions:\n- request: *a9\n  response: *a9\n"


def test_a_yaml_alias_bomb_is_refused_not_expanded(tmp_path: Path) -> None:
    cassette = tmp_path / "bomb.yaml"
    cassette.write_text(_alias_bomb(), encoding="utf-8")
    done = run_cli(["inspect", str(cassette)], tmp_path, real=True)  # ran for minutes: 10^9 nodes
    assert done.returncode == 2, done.stderr
    assert "alias bomb" in done.stderr


def test_a_cassette_with_ordinary_aliases_still_loads(tmp_path: Path) -> None:
    fixture = REPO / "tests" / "fixtures" / "archives" / "openai-sdk.yaml"
    text = fixture.read_text(encoding="utf-8")
    aliased = text.replace(
        "interactions:\n", "shared: &h {x: [1, 2, 3]}\nalso: [*h, *h, *h]\ninteractions:\n", 1
    )
    cassette = tmp_path / "aliased.yaml"
    cassette.write_text(aliased, encoding="utf-8")
    done = run_cli(["inspect", "--json", str(cassette)], tmp_path)
    plain = run_cli(["inspect", "--json", str(fixture)], tmp_path)
    assert done.returncode == plain.returncode, done.stderr
    assert json.loads(done.stdout)["responses"] == json.loads(plain.stdout)["responses"]
