"""`mcptui watch DIR`: a folder's recordings listed as they appear and grow, each opened in the
inspector with Enter (tui/mcptui/ui/watch_app.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mcptui.cli.common import Commands, refuse_line, run_app, terminal_missing


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "watch",
        help="list a folder's recordings as they appear and grow; Enter opens one",
        description="List the mcptui recordings of a folder (the one `mcptui run`, `demo`, "
        "`proxy` and `tap` record into: mcptui-recordings by default), newest first, each "
        "with its status, responses, failures and start time, updated as files appear and "
        "grow. Enter opens one in the inspector; Escape comes back to the list.",
    )
    parser.add_argument("dir", metavar="DIR", help="the folder to watch")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Exit 2 for a folder that cannot be watched (missing, a file, unreadable) or no
    terminal; 0 when the user quits."""
    from mcptui.io.folder_watch import folder_problem

    problem = folder_problem(args.dir)
    if problem is not None:
        return refuse_line(f"watch {args.dir}: {problem}")
    refused = terminal_missing(f"`mcptui inspect {args.dir}/FILE.jsonl` prints one recording")
    if refused is not None:
        return refused
    from mcptui.ui.watch_app import WatchApp

    return run_app(WatchApp(Path(args.dir)))
