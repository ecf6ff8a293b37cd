"""The `mcptui` command line. Imports the Textual app lazily, so `inspect` stays light."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui import __version__

COMMANDS = ("inspect", "replay")


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

    replay = commands.add_parser(
        "replay", help="open a recording or dump in the inspector and replay it",
        description="Replay a recording (any format inspect reads) in the terminal UI. "
                    "`mcptui FILE` is a shorthand.")
    replay.add_argument("file", metavar="FILE")
    pace = replay.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=float, default=1.0, metavar="X",
                      help="replay speed relative to the recorded timing (default 1)")
    pace.add_argument("--instant", action="store_true", help="apply every event at once")
    replay.add_argument("--step", action="store_true",
                        help="open paused at step 0, to step event by event")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv = ["replay", *argv]  # `mcptui FILE` opens the file
    args = build_parser().parse_args(argv)
    if args.command == "inspect":
        return run_inspect(args.files, as_json=args.json)
    if args.command == "replay":
        return run_replay(args.file, speed=args.speed, instant=args.instant, step=args.step)
    build_parser().print_help()
    return 2


def run_replay(path: str, *, speed: float, instant: bool, step: bool) -> int:
    from tui.sources.replay import open_session

    if speed <= 0:
        print("mcptui: --speed must be greater than 0", file=sys.stderr)
        return 2
    session = open_session(path, speed=speed, instant=instant)
    if not session.usable:
        for problem in session.problems:
            print(f"mcptui: {problem}", file=sys.stderr)
        return 2
    from tui.app import McptuiApp

    McptuiApp(session, paused=step).run()
    return 0


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
