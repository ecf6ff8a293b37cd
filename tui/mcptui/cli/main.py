"""The `mcptui` command line: the entry point, the parser built from one module per command,
and the checks every command shares. Imports the Textual app lazily (only the commands that
open it do), so `inspect` stays light."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from difflib import get_close_matches
from functools import partial
from pathlib import Path
from typing import cast

from mcptui import __version__
from mcptui.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    Commands,
    RedactingParser,
    hold_collector,
    refuse_line,
    release_collector,
    safe_streams,
)
from mcptui.model.textsafe import visible

COLLECTOR_RELEASED_BY_COMMAND = ("inspect", "report", "replay")
"""Commands that turn the collector back on themselves, once they have imported what they
need (`release_collector`); every other command gets it back before it runs."""


COMMAND_MODULES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("inspect", ("inspect",), ("add_parser",)),
    ("replay", ("replay",), ("add_parser",)),
    ("report", ("report",), ("add_parser",)),
    ("diff", ("diff",), ("add_parser",)),
    ("export", ("export",), ("add_parser",)),
    ("run", ("run", "attach"), ("add_run_parser", "add_attach_parser")),
    ("open_stored", ("open",), ("add_parser",)),
    ("probe", ("probe",), ("add_parser",)),
    ("tools", ("tools",), ("add_parser",)),
    ("proxy", ("proxy",), ("add_parser",)),
    ("tap", ("tap",), ("add_parser",)),
    ("emulate", ("emulate",), ("add_parser",)),
    ("serve", ("serve",), ("add_parser",)),
    ("demo_server", ("demo-server",), ("add_parser",)),
    ("demo", ("demo",), ("add_parser",)),
    ("samples", ("samples",), ("add_parser",)),
    ("config", ("config",), ("add_parser",)),
    ("completion", ("completion",), ("add_parser",)),
    ("watch", ("watch",), ("add_parser",)),
)
"""Each command's module under `mcptui.cli`, the commands it adds and the functions that add
their sub-parsers (each names its command's run function, `set_defaults(run=…)`), in
`--help`'s order."""
COMMANDS = tuple(name for _, names, _ in COMMAND_MODULES for name in names)
"""Every command, known without building the parsers (tests/unit/test_cli_usage.py checks it
against the sub-parsers)."""


def parsers(only: str | None = None) -> list[Callable[[Commands], None]]:
    """The functions that add the sub-parsers; with `only`, that command's alone: the
    thirteen took ~15 ms to import and build, of a ~0.2 s `inspect` (bench/cold_start.py).
    Imported here, not at the top, so that `main` holds the collector over them too."""
    found: list[Callable[[Commands], None]] = []
    for module, names, adders in COMMAND_MODULES:
        if only is None or only in names:
            loaded = importlib.import_module(f"mcptui.cli.{module}")
            found += [getattr(loaded, adder) for adder in adders]
    return found


def build_parser(argv: Sequence[str] = (), *, only: str | None = None) -> argparse.ArgumentParser:
    """The command line; `argv`'s secrets (`argv_secrets`) are hidden from its errors. With
    `only`, the sub-parser of that command alone (`parsers`)."""
    from mcptui.model.redaction import argv_secrets

    known = argv_secrets(argv)
    parser = RedactingParser(
        known=known,
        prog="mcptui",
        description="Inspect OpenAI Responses API streams that use remote MCP tools.",
    )
    parser.add_argument("--version", action="version", version=f"mcptui {__version__}")
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        # a parser class that knows the secrets: argparse only calls it
        parser_class=cast("type[argparse.ArgumentParser]", partial(RedactingParser, known=known)),
    )
    for add in parsers(only):
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes: 0 clean, 1 a failure in the stream, 2 unusable input or options, 3 an
    internal error (one line on stderr, the traceback in mcptui-recordings/mcptui-error.log)."""
    hold_collector()  # until the command's imports are done (release_collector)
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        release_collector()  # a command that ended before it released it
        if "mcptui.cli.defaults" in sys.modules:  # (imported by the commands that use it)
            from mcptui.cli.defaults import forget

            forget()  # this run's configuration is not the next `main`'s (tests run many)


def _main(argv: list[str]) -> int:
    safe_streams()
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        unknown = unknown_command(argv[0], list(COMMANDS))
        if unknown is not None:
            return refuse_line(unknown)
        argv = ["replay", *argv]  # `mcptui FILE` opens the file
    # `mcptui --help` and the like need every command; a command, its own parser
    only = argv[0] if argv and argv[0] in COMMANDS else None
    parser = build_parser(argv, only=only)
    refused = use_config(parser, only, argv)
    if refused is not None:
        return refused
    args = parser.parse_args(bare_step(argv))
    use_samples(args)
    from mcptui.io.sdk_schema_cache import install

    install()  # the conformance check reads the SDK's types from a cache, not the SDK
    try:
        return dispatch(args)
    except KeyboardInterrupt:  # Ctrl+C where a command has no stop of its own: no traceback
        print("mcptui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `| head` read enough: no traceback, no error log
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug: never a bare traceback, never exit 1 ("a failure")
        from mcptui.io.crash_log import report_crash

        return report_crash(exc)


CONFIG_EXPLAINED_BY = ("config", "completion")
"""Commands that read the configuration file themselves: a bad one is theirs to explain."""


def use_config(parser: argparse.ArgumentParser, command: str | None, argv: list[str]) -> int | None:
    """The configuration file's settings as `command`'s defaults (mcptui/cli/defaults.py);
    exit 2 with the file, line and key when it cannot be used. `--help` still helps (the
    problem said first, on one line), and `mcptui config` explains it."""
    if command is None or command in CONFIG_EXPLAINED_BY:
        return None
    from mcptui.cli.defaults import apply, check_all
    from mcptui.io.config import ConfigError, load

    try:
        config = load(COMMANDS)
        apply(parser, command, config)
        for other in set(config.commands) - {command}:  # a bad table is bad for every command
            check_all(build_parser(only=other), config)
    except ConfigError as exc:
        if "-h" in argv or "--help" in argv:
            print(f"mcptui: {visible(str(exc))} (defaults from it not applied)", file=sys.stderr)
            return None
        return refuse_line(f"{exc} (`mcptui config` shows the settings)")
    return None


FILE_ARGUMENTS = ("file", "files", "request", "target", "a", "b", "recording")
"""The parsed arguments that name an input file (each command's positional, `--recording`)."""


def use_samples(args: argparse.Namespace) -> None:
    """A file argument that names no file here but a shipped sample (tui/mcptui/io/samples.py)
    reads the sample, said on stderr: README's commands work after `pipx install`, away from
    the clone."""
    from mcptui.io.samples import shipped_path

    for name in FILE_ARGUMENTS:
        value = getattr(args, name, None)
        given = value if isinstance(value, list) else [value]
        found = [
            (text, shipped_path(text)) if isinstance(text, str) else (text, None) for text in given
        ]
        if not any(path for _, path in found):
            continue
        for text, path in found:
            if path is not None:
                print(
                    f"mcptui: {text}: no such file here; reading the shipped sample",
                    file=sys.stderr,
                )
        resolved = [str(path) if path is not None else text for text, path in found]
        setattr(args, name, resolved if isinstance(value, list) else resolved[0])


def unknown_command(word: str, names: list[str]) -> str | None:
    """`mcptui inspekt FILE`: a word that is no file but close to a command is a typo, said as
    one (it used to be replayed as a file and fail on FILE as an unrecognized argument)."""
    if Path(word).exists():
        return None
    close = get_close_matches(word, names, n=1, cutoff=0.6)
    if not close:
        return None
    return f"unknown command {word!r} (did you mean {close[0]}?)"


def bare_step(argv: list[str]) -> list[str]:
    """`replay --step FILE` (a bare --step, then the file) keeps meaning step 0: argparse
    would take FILE as --step's number."""
    out = list(argv)
    for index, word in enumerate(out[:-1]):
        if word == "--step" and not out[index + 1].isdigit():
            out[index] = "--step=0"
    return out


def dispatch(args: argparse.Namespace) -> int:
    """The checks every command shares, then the command's own run function."""
    for option in ("max_bytes", "keep"):
        if getattr(args, option, 1) < 1:
            return refuse_line(f"--{option.replace('_', '-')} must be at least 1")
    tap_file = (
        getattr(args, "tap", None) if args.command in ("inspect", "replay", "report") else None
    )
    if isinstance(tap_file, str) and tap_file != "-" and not Path(tap_file).is_file():
        return refuse_line(f"--tap {tap_file}: no such file (a recording of `mcptui tap`)")
    if args.command not in COLLECTOR_RELEASED_BY_COMMAND:
        release_collector()
    command: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if command is None:
        build_parser().print_help()
        return 2
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
