"""`mcptui completion bash|zsh|fish`: a completion script for the shell, written from the real
parser (every command, its options, files where a file is read, the shipped samples' names
where a recording is, the choices of an option that has them; mcptui/cli/shell_scripts.py)."""

from __future__ import annotations

import argparse

from mcptui.cli.common import Commands
from mcptui.cli.shell_scripts import SCRIPTS, Command, Option, Spec, Value, short_help

FILE_METAVARS = ("FILE", "PATH", "OUT", ".json", ".svg", "RECORDING")
"""An option whose metavar holds one of these reads or writes a file (`--tap TAPFILE`,
`--screenshot OUT.svg`, `--record PATH`); `DIR` names a folder."""


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "completion",
        help="print a completion script for bash, zsh or fish",
        description="Print a shell completion script made from mcptui's own parser: commands, "
        "their options, file names where a file is read, the shipped samples' names. "
        "README's `mcptui completion` section says where each shell reads it from.",
    )
    parser.add_argument("shell", choices=sorted(SCRIPTS), metavar="bash|zsh|fish")
    parser.set_defaults(run=run_completion)


def run_completion(args: argparse.Namespace) -> int:
    from mcptui.cli.main import build_parser

    print(SCRIPTS[args.shell](spec_of(build_parser())), end="")
    return 0


def spec_of(parser: argparse.ArgumentParser) -> Spec:
    """What completes where, read from `parser` (mcptui's, built whole)."""
    from mcptui import __version__
    from mcptui.cli.defaults import sub_parsers
    from mcptui.cli.main import FILE_ARGUMENTS
    from mcptui.io.samples import shipped

    samples = tuple(sorted({sample.name for sample in shipped()}))
    helps = {
        action.dest: action.help or ""
        for sub in parser._actions
        if isinstance(sub, argparse._SubParsersAction)
        for action in sub._choices_actions
    }
    commands = []
    for name, sub in sub_parsers(parser).items():
        positionals = [a for a in sub._actions if not a.option_strings]
        positional = None
        if positionals:
            first = positionals[0]
            if first.choices is not None:
                positional = Value("words", tuple(str(c) for c in first.choices), "choice")
            elif first.dest in FILE_ARGUMENTS:
                positional = Value("file", samples, str(first.metavar or "FILE"))
            else:
                positional = Value("none", (), str(first.metavar or first.dest))
        commands.append(
            Command(
                name,
                short_help(helps.get(name, "")),
                options_of(sub),
                positional,
                many=len(positionals) > 1 or positionals[0].nargs in ("+", "*")
                if positionals
                else False,
            )
        )
    return Spec(
        parser.prog,
        __version__,
        options_of(parser),
        tuple(commands),
        Value("file", samples, "FILE"),
    )


def options_of(parser: argparse.ArgumentParser) -> tuple[Option, ...]:
    found = []
    for action in parser._actions:
        if not action.option_strings:
            continue
        value = value_of(action)
        found.append(
            Option(
                tuple(action.option_strings),
                short_help(action.help or ""),
                value,
                repeat=isinstance(action, argparse._AppendAction),
            )
        )
    return tuple(found)


def value_of(action: argparse.Action) -> Value | None:
    """What the option's value completes to; None for a flag (and for `--step [N]`, whose
    value may be left out: the next word is anything)."""
    if action.nargs == 0 or action.nargs == "?":
        return None
    metavar = str(action.metavar or action.dest.upper())
    if action.choices is not None:
        return Value("words", tuple(str(c) for c in action.choices), metavar)
    if metavar == "DIR":
        return Value("dir", (), metavar)
    if any(part in metavar for part in FILE_METAVARS):
        return Value("file", (), metavar)
    return Value("none", (), metavar)
