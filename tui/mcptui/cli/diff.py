"""`mcptui diff A B`: two runs aligned, in the terminal UI, as text or as JSON."""

from __future__ import annotations

import argparse
import sys

from mcptui.cli.common import (
    Commands,
    add_max_bytes,
    run_app,
)
from mcptui.model.textsafe import visible


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "diff",
        help="compare two runs: where they diverge first, and how",
        description="Align two runs item by item (output index and type; MCP calls by "
        "server and tool) and say where they diverge first: an item in one run "
        "only, a call that completed in A and failed in B (with B's error and "
        "likely cause), different arguments, a different tool list (tools added "
        "or removed, schemas changed), statuses; timing and token usage are "
        "compared too. In a terminal it opens side by side; piped, or with "
        "--no-tui, it prints. Exit 0: the same shape; 1: they differ; 2: a file "
        "could not be used.",
    )
    parser.add_argument("a", metavar="A", help="the run that worked (any format inspect reads)")
    parser.add_argument("b", metavar="B", help="the run to compare with it")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--no-tui", action="store_true", help="print instead of opening the app")
    add_max_bytes(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load both files (2 when one cannot be used), compare, and show the comparison."""
    # Imported here: the parser is built for every command, these load the checks (0.5 s).
    from rich.console import Console

    from mcptui.model.redaction import redact_text
    from mcptui.share.diff_output import (
        EXIT_DIFFERENT,
        EXIT_SAME,
        EXIT_UNUSABLE,
        compare_files,
        print_json,
        render,
        unusable_reason,
    )

    if args.a == "-" and args.b == "-":
        print(
            "mcptui: A and B cannot both be - (standard input): give one of them as a file",
            file=sys.stderr,
        )
        return EXIT_UNUSABLE
    loaded, comparison = compare_files(args.a, args.b, args.max_bytes)
    if comparison is None:
        for one in loaded:
            if not one.usable:
                print(
                    visible(redact_text(f"mcptui: cannot compare: {unusable_reason(one)}")),
                    file=sys.stderr,
                )
        return EXIT_UNUSABLE
    code = EXIT_SAME if comparison.same else EXIT_DIFFERENT
    if sys.stdout.isatty() and not args.no_tui and not args.json:
        from mcptui.ui.screens.diff_screen import DiffApp

        return run_app(DiffApp(comparison, (loaded[0].source, loaded[1].source)))
    try:
        if args.json:
            print_json(comparison, loaded)
        else:
            Console(highlight=False, width=None if sys.stdout.isatty() else 1000).print(
                render(comparison, loaded)
            )
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has seen enough; the answer stands
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code
