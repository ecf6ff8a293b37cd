"""The `mcptui` command line. Imports the Textual app lazily, so `inspect` stays light."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui import __version__

COMMANDS = ("inspect",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcptui",
        description="Inspect OpenAI Responses API streams that use remote MCP tools.",
    )
    parser.add_argument("--version", action="version", version=f"mcptui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    inspect = commands.add_parser(
        "inspect", help="summarise recordings or stream dumps: items, statuses, failures",
        description="Summarise stream dumps. Exit 0: no failure; 1: a failure is present; "
                    "2: nothing usable could be read.")
    inspect.add_argument("files", nargs="+", metavar="FILE",
                         help="a recording or dump; - for stdin")
    inspect.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "inspect":
        return run_inspect(args.files, as_json=args.json)
    build_parser().print_help()
    return 2


def run_inspect(paths: Sequence[str], *, as_json: bool) -> int:
    from rich.console import Console

    from tui.importers import load_path
    from tui.report import Inspection, exit_code, print_json, render

    inspections = [Inspection.of(load_path(path)) for path in paths]
    # Piped output is for grep and scripts: don't wrap lines at 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
    if as_json:
        print_json(inspections, console)
    else:
        for inspection in inspections:
            console.print(render(inspection))
    code = exit_code(inspections)
    if code == 2 and not as_json:
        Console(stderr=True).print("mcptui: nothing usable could be read", style="bold red",
                                   highlight=False)
    return code


if __name__ == "__main__":
    sys.exit(main())
