"""`mcptui inspect FILE...`: a summary of recordings or dumps, as text or `--json`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mcptui.cli.common import (
    Commands,
    add_max_bytes,
    add_tap_file,
    refuse_line,
    release_collector,
)
from mcptui.io.reading import MAX_BYTES
from mcptui.model.textsafe import visible


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "inspect",
        help="summarise recordings or stream dumps: items, statuses, failures",
        description="Summarise stream dumps: items, failures with their likely causes, "
        "timing, and conformance findings (each event checked against the installed "
        "openai SDK's types). Exit 0: no failure; 1: a failure is present (with "
        "--strict, also any error-level finding); 2: a file could not be used (the "
        "others are still reported); 3: an internal error.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="a recording or dump; - for stdin")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead")
    add_max_bytes(parser)
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 on any error-level conformance finding too"
    )
    add_tap_file(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.tap and len(args.files) > 1:
        return refuse_line("--tap merges a tap recording into one stream: give one FILE")
    return run_inspect(
        args.files, as_json=args.json, strict=args.strict, max_bytes=args.max_bytes, tap=args.tap
    )


def run_inspect(
    paths: Sequence[str],
    *,
    as_json: bool,
    strict: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
) -> int:
    from rich.console import Console
    from rich.text import Text

    from mcptui.share.inspect_output import (
        Inspection,
        exit_code,
        print_json,
        render,
        tools_of,
        tools_section,
    )
    from mcptui.sources.replay import load_merged

    release_collector()
    inspections = [Inspection.of(load_merged(path, tap, max_bytes)) for path in paths]
    # Piped output is for grep and scripts: don't wrap lines at 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
    if as_json:
        print_json(inspections, sys.stdout)
    else:
        for inspection in inspections:
            console.print(render(inspection))
        if len(inspections) > 1 and (stats := tools_of(inspections)):
            console.print(tools_section(stats, len(inspections)))
    code = exit_code(inspections, strict=strict)
    from mcptui.io.recent import note_opened

    # the open dialog's recent files (`o` in the app)
    note_opened(*(p for p, i in zip(paths, inspections, strict=True) if i.loaded.usable))
    unusable = [i.loaded for i in inspections if not i.loaded.usable]
    if unusable and not as_json:
        what = (
            "nothing usable could be read"
            if len(unusable) == len(inspections)
            else f"{len(unusable)} of {len(inspections)} files could not be used: "
            f"{', '.join(loaded.source for loaded in unusable[:3])}"
        )
        if len(unusable) == 1 and unusable[0].problems:  # the reason, where it is one
            what += f": {unusable[0].problems[0]}"
        Console(stderr=True).print(
            Text(visible(f"mcptui: {what}")), style="bold red", highlight=False
        )
    return code
