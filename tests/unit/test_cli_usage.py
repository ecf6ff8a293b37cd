"""The command line as a user meets it: every command's usage line in README names exactly the
options its parser has, and a mistyped command says so instead of replaying a file of that name."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from mcptui.cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[2]
USAGE_LINE = r"^(?:## |- \*\*|- )`mcptui {name}(?:[ `][^\n]*)?$"
"""README gives a command's synopsis as a heading, a bold item or a plain item, e.g.
"## `mcptui inspect FILE... [--json] …`"; a heading may name two commands."""


def commands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {
        s
        for a in parser._actions
        for s in a.option_strings
        if s.startswith("--") and s not in ("--help",)
    }


def readme_usage(name: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = re.findall(USAGE_LINE.format(name=re.escape(name)), readme, re.M)
    assert lines, f"README has no usage line for `mcptui {name}`"
    # the part of each line that is this command's synopsis (up to the next `mcptui X`)
    parts = [re.split(r"`mcptui ", line)[1] for line in lines]
    return " ".join(part.split("`")[0] for part in parts)


@pytest.mark.parametrize("name", sorted(commands()))
def test_readme_usage_names_every_option_of_the_command_and_no_other(name: str):
    parser = commands()[name]
    shown = readme_usage(name)
    named = set(re.findall(r"--[a-z][a-z-]*", shown))
    missing = sorted(
        opt
        for a in parser._actions
        if a.option_strings and "--help" not in a.option_strings
        for opt in [max(a.option_strings, key=len)]
        if not any(
            re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", shown) for s in a.option_strings
        )
    )
    assert missing == [], f"README's `mcptui {name}` lacks {missing}"
    assert named - options_of(parser) == set(), f"README names options `{name}` has not"


def test_a_mistyped_command_is_named_with_the_closest_one(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["inspekt", "run.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err == "mcptui: unknown command 'inspekt' (did you mean inspect?)\n"


def test_a_file_named_like_a_command_is_still_replayed_as_a_file(capsys, tmp_path, monkeypatch):
    """`mcptui FILE` is replay's shorthand: a file that exists wins over a near command name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inspekt").write_text("not a stream\n")
    code = main(["inspekt"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown command" not in err
    assert "inspekt" in err


def test_the_command_list_names_every_sub_parser_in_help_order():
    """`main` knows the commands without building their parsers (COMMANDS), and builds the
    one it runs: the list must be the parsers' own."""
    from mcptui.cli.main import COMMANDS

    assert list(commands()) == list(COMMANDS)
    for name in COMMANDS:
        (sub,) = [
            a for a in build_parser(only=name)._actions if isinstance(a, argparse._SubParsersAction)
        ]
        assert name in sub.choices
        assert set(sub.choices) <= {name, "run", "attach"}
