"""The configuration file as a user meets it (issue 39): `mcptui config` says where it is and
where each setting comes from, its settings become the commands' defaults (the command line
still wins), a header's value never appears, and a bad file is one line naming the file, the
line and the key, exit 2, while `mcptui --help` and `mcptui config` still explain it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from mcptui.cli.main import build_parser, main, use_config

SECRET = "sk-live-Zx9k2LmQ8vR4tY7wQ1"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCPTUI_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return tmp_path / "cfg"


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def parsed(argv: list[str]) -> argparse.Namespace:
    """What the command would run with: its parser, the file's defaults, the command line."""
    parser = build_parser(argv, only=argv[0])
    assert use_config(parser, argv[0], argv) is None
    return parser.parse_args(argv)


def test_config_names_the_file_and_says_there_is_none(folder, capsys):
    assert main(["config"]) == 0
    out = capsys.readouterr()
    assert f"{folder / 'config.toml'} (none: defaults apply)" in out.out
    assert "theme textual-dark default" in " ".join(out.out.split())
    assert "--init" in out.err
    assert main(["config", "--path"]) == 0
    assert capsys.readouterr().out == f"{folder / 'config.toml'}\n"


def test_the_folder_follows_xdg_then_home(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("MCPTUI_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    main(["config", "--path"])
    assert capsys.readouterr().out == f"{tmp_path / 'xdg' / 'mcptui' / 'config.toml'}\n"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    main(["config", "--path"])
    assert capsys.readouterr().out == f"{tmp_path / 'home' / '.config/mcptui/config.toml'}\n"


def test_each_setting_says_where_it_comes_from_and_no_header_value_is_shown(
    folder, capsys, monkeypatch
):
    write(
        folder,
        'theme = "nord"\nbase_url = "http://127.0.0.1:8787/v1"\n\n[headers]\n'
        'Authorization = "MCP_TOKEN"\nX-Other = "${UNSET_ONE}"\n\n[replay]\nspeed = 4\n',
    )
    monkeypatch.setenv("MCP_TOKEN", SECRET)
    monkeypatch.delenv("UNSET_ONE", raising=False)
    assert main(["config"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("config.toml (exists)")
    rows = {line.split("  ")[0]: " ".join(line.split()) for line in lines[1:]}
    assert rows["theme"] == "theme nord file, line 1"
    assert rows["base_url"] == "base_url http://127.0.0.1:8787/v1 file, line 2"
    assert rows["header Authorization"].endswith("$MCP_TOKEN (set; value hidden) file, line 5")
    assert rows["header X-Other"].endswith("$UNSET_ONE (NOT SET; value hidden) file, line 6")
    assert rows["replay --speed"] == "replay --speed 4 file, line 9"
    assert SECRET not in "\n".join(lines)

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    main(["config"])
    out = " ".join(capsys.readouterr().out.split())
    assert "http://127.0.0.1:9999/v1 environment (OPENAI_BASE_URL); the file's (line 2)" in out


def test_the_palettes_remembered_theme_is_shown_when_the_file_sets_none(folder, capsys):
    from mcptui.io.settings import remember

    remember("theme", "dracula")
    main(["config"])
    out = " ".join(capsys.readouterr().out.split())
    assert "theme dracula remembered (chosen in the command palette)" in out


def test_a_commands_table_gives_its_defaults_and_the_command_line_wins(folder, monkeypatch):
    write(folder, "[replay]\nspeed = 4\n\n[inspect]\nstrict = true\nmax-bytes = 1000\n")
    assert parsed(["replay", "x.jsonl"]).speed == 4.0
    assert parsed(["replay", "x.jsonl", "--speed", "2"]).speed == 2.0
    assert parsed(["replay", "x.jsonl", "--instant"]).instant is True  # no conflict with speed
    inspect = parsed(["inspect", "x.jsonl"])
    assert (inspect.strict, inspect.max_bytes) == (True, 1000)
    assert parsed(["inspect", "x.jsonl", "--max-bytes", "5"]).max_bytes == 5


def test_base_url_and_headers_become_the_defaults_of_the_commands_that_take_them(
    folder, monkeypatch
):
    write(folder, 'base_url = "http://127.0.0.1:8787/v1"\n[headers]\nAuthorization = "MCP_TOKEN"\n')
    monkeypatch.setenv("MCP_TOKEN", SECRET)
    assert parsed(["run", "r.json"]).base_url == "http://127.0.0.1:8787/v1"
    assert parsed(["run", "r.json", "--base-url", "http://h/v1"]).base_url == "http://h/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    assert parsed(["run", "r.json"]).base_url is None  # the environment's, as before

    probe = parsed(["probe", "r.json", "--header", "X-Mine=1"])
    assert probe.header == ["Authorization=${MCP_TOKEN}", "X-Mine=1"]  # the last one wins
    from mcptui.probe.targets import parse_headers

    assert parse_headers(probe.header, {"MCP_TOKEN": SECRET})[0] == ("Authorization", SECRET)


def test_an_unset_header_variable_stops_probe_naming_the_line(folder, capsys, monkeypatch):
    path = write(folder, '[headers]\nAuthorization = "MCP_TOKEN"\n')
    monkeypatch.delenv("MCP_TOKEN", raising=False)
    assert main(["probe", "nothing.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"mcptui: {path}:2: headers.Authorization: the environment variable MCP_TOKEN is not set"
    )


BAD = [
    ('theme = "nord\n', 1, "not valid TOML"),
    (
        "[replay]\nspeed = 4\n[replay]\nstep = 1\n",
        3,
        "not valid TOML: Cannot declare [replay] twice",
    ),
    ("theme = 3\n", 1, "theme: must be a non-empty string, not an integer"),
    ('\n\nthem = "nord"\n', 3, "them: unknown key (did you mean theme?)"),
    ("[replai]\nspeed = 4\n", 1, "replai: unknown key (did you mean replay?)"),
    ("[replay]\n\nsped = 4\n", 3, "replay.sped: `mcptui replay` has no option --sped"),
    ('[replay]\nspeed = "fast"\n', 2, "replay.speed: --speed takes a number, not 'fast'"),
    ("[inspect]\nstrict = 1\n", 2, "inspect.strict: --strict is on or off"),
    ("[probe]\nheader = ['A=b']\n", 2, "probe.header: put headers in [headers]"),
    ("[run]\ntap-port = 70000\n", 2, "run.tap-port: --tap-port takes a PORT"),
    ("[probe]\ntransport = 'pigeon'\n", 2, "probe.transport: --transport is one of"),
    ("headers = 'x'\n", 1, "headers: must be a table"),
    ('base_url = "127.0.0.1:8787"\n', 1, "base_url: must be an http:// or https:// URL"),
]


@pytest.mark.parametrize(("text", "line", "said"), BAD, ids=[b[2][:30] for b in BAD])
def test_a_bad_file_is_one_line_naming_file_line_and_key_for_every_command(
    folder, capsys, text, line, said
):
    path = write(folder, text)
    # inspect is not the command the bad table is for: the file is bad for every command
    assert main(["inspect", "missing.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mcptui: {path}:{line}: {said}"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["config"]) == 2  # and `mcptui config` explains it
    assert f"{path}:{line}: {said}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "COMMAND" in capsys.readouterr().out


def test_a_commands_help_names_the_files_default(folder, capsys):
    write(folder, "[replay]\nspeed = 4\nsize = '100%x40'\n")
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default 1) [config.toml: 4.0]" in out
    assert "[config.toml: 100%x40]" in out


def test_a_commands_help_still_helps_and_says_what_is_wrong(folder, capsys):
    path = write(folder, "[replay]\nspeed = 'fast'\n")
    with pytest.raises(SystemExit) as done:
        main(["replay", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr()
    assert "--speed X" in out.out
    assert f"{path}:2: replay.speed" in out.err


def test_a_literal_header_value_is_refused_and_never_repeated(folder, capsys):
    path = write(folder, f'[headers]\nAuthorization = "Bearer {SECRET}"\nX-Key = "{SECRET}"\n')
    assert main(["replay", "x.jsonl"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: headers.Authorization: give the NAME of an environment variable" in err
    assert main(["config"]) == 2
    everything = err + "".join(capsys.readouterr())
    assert SECRET not in everything and "Bearer" not in everything
    write(folder, f'[headers]\nX-Key = "{SECRET}"\n')  # a bare token, however name-like
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: headers.X-Key: give the NAME" in err and SECRET not in err


def test_init_writes_an_example_that_reads_cleanly_and_keeps_an_existing_file(folder, capsys):
    assert main(["config", "--init"]) == 0
    path = folder / "config.toml"
    example = path.read_text()
    assert "[headers]" in example and "speed = 4" in example
    assert main(["config"]) == 0  # all commented: valid, the defaults apply
    capsys.readouterr()
    # uncommented, the example is a valid configuration too
    uncommented = "\n".join(
        line[2:] if (line.startswith("# ") and "=" in line) or line.startswith("# [") else line
        for line in example.splitlines()
    )
    path.write_text(uncommented)
    assert main(["config"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "replay --speed" in out and "run --record-dir" in out and "inspect --strict" in out
    assert main(["config", "--init"]) == 2
    assert "exists: kept as it is" in capsys.readouterr().err
    assert path.read_text() == uncommented


def test_a_switch_with_a_no_form_is_named_by_its_first_flag(folder, capsys):
    """`follow = true` is `--follow` (the pair `--follow` / `--no-follow` shares a `dest`);
    `follow = false` turns following off, and the command line still wins."""
    write(folder, "[replay]\nfollow = false\n")
    assert parsed(["replay", "x.jsonl"]).follow is False
    assert parsed(["replay", "x.jsonl", "--follow"]).follow is True
    write(folder, "[replay]\nfollow = true\n")
    assert parsed(["replay", "x.jsonl"]).follow is True
    assert main(["config"]) == 0
    assert "replay --follow  true" in capsys.readouterr().out
