"""`mcptui completion SHELL` (issue 39): the bash script is sourced in a real bash and asked as
bash asks it (COMP_WORDS, COMP_CWORD): commands, a command's options, files, samples, an
option's choices. zsh and fish are not installed here: their scripts are checked to be made
from the parser (every command, every option), and the shells' own syntax checks run where
the shell is found (`zsh -n`, `fish --no-execute`)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import pytest
from mcptui.cli.defaults import sub_parsers as parsers_of
from mcptui.cli.main import COMMANDS, build_parser, main

BASH = shutil.which("bash")


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert out.strip()
    return out


def complete(script_path: Path, cwd: Path, *words: str) -> list[str]:
    """What bash offers for the line `mcptui WORDS…` (the last word the one being typed)."""
    assert BASH is not None
    line = " ".join(("mcptui", *words))
    quoted = " ".join(f"'{w}'" for w in ("mcptui", *words))
    program = (
        f"source '{script_path}'\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; COMP_LINE='{line}'; "
        f"COMP_POINT={len(line)}\n"
        "_mcptui mcptui\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", program],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return sorted(filter(None, done.stdout.split("\n")))


@pytest.fixture
def bash_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "mcptui.bash"
    path.write_text(script("bash", capsys))
    work = tmp_path / "work"
    (work / "runs").mkdir(parents=True)
    for name in ("rec one.jsonl", "rec-two.jsonl", "request.json"):
        (work / name).write_text("{}\n")
    return path


def test_bash_completes_commands_options_files_samples_and_choices(bash_script: Path):
    work = bash_script.parent / "work"
    assert complete(bash_script, work, "re") == [
        "rec one.jsonl",
        "rec-two.jsonl",
        "replay",
        "report",
        "request.json",
    ]
    assert complete(bash_script, work, "co") == ["completion", "config"]
    assert complete(bash_script, work, "replay", "--s") == [
        "--screenshot",
        "--size",
        "--speed",
        "--step",
    ]
    assert complete(bash_script, work, "replay", "rec") == ["rec one.jsonl", "rec-two.jsonl"]
    assert complete(bash_script, work, "replay", "--speed", "4", "mcp-4") == [
        "mcp-424-broken-schema.jsonl"  # a shipped sample's name: `mcptui samples`
    ]
    assert complete(bash_script, work, "replay", "--screenshot", "r") == [
        "rec one.jsonl",
        "rec-two.jsonl",
        "request.json",
        "runs",
    ]
    assert complete(bash_script, work, "replay", "--speed", "") == []  # a number: nothing
    assert complete(bash_script, work, "probe", "x.json", "--transport", "") == [
        "sse",
        "streamable_http",
    ]
    assert complete(bash_script, work, "run", "--record-dir", "") == ["runs"]
    assert complete(bash_script, work, "completion", "") == ["bash", "fish", "zsh"]
    assert complete(bash_script, work, "--") == ["--help", "--version"]


def test_bash_offers_every_option_of_every_command(bash_script: Path):
    work = bash_script.parent / "work"
    for name, parser in parsers_of(build_parser()).items():
        flags = sorted(s for a in parser._actions for s in a.option_strings if s.startswith("--"))
        assert complete(bash_script, work, name, "--") == flags, name


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_are_made_from_the_parser(shell: str, capsys, tmp_path: Path):
    text = script(shell, capsys)
    parser = build_parser()
    for name, sub in parsers_of(build_parser()).items():
        assert name in COMMANDS
        for action in sub._actions:
            for flag in action.option_strings:
                if shell == "zsh":
                    assert f"'{flag}[" in text or f"'*{flag}[" in text, (name, flag)
                else:
                    long = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
                    assert f"'__fish_seen_subcommand_from {name}' {long}" in text or (
                        f"'__fish_seen_subcommand_from {name}' -s" in text and long in text
                    ), (name, flag)
        assert (f"'{name}:" in text) if shell == "zsh" else (f"-a {name} -d" in text), name
    assert "mcp-424-broken-schema.jsonl" in text
    assert "streamable_http" in text
    assert isinstance(parser, argparse.ArgumentParser)
    checker = {"zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}[shell]
    if shutil.which(checker[0]):  # syntax checked by the shell itself where it is installed
        path = tmp_path / f"mcptui.{shell}"
        path.write_text(text)
        done = subprocess.run([*checker, str(path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr


def test_an_unknown_shell_is_refused(capsys):
    with pytest.raises(SystemExit) as done:
        main(["completion", "tcsh"])
    assert done.value.code == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err
