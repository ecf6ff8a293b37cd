"""`mcptui samples [--copy DIR]`: the recordings and request files that ship with mcptui
(tui/mcptui/io/samples.py), listed, or written out to try and change."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import Commands, refuse_line
from mcptui.model.textsafe import shown_path


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "samples",
        help="list the sample recordings and requests that ship with mcptui",
        description="The sample recordings and request files README uses. Any command given "
        "a sample's name (or README's recordings/… path) where no such file exists reads the "
        "shipped one.",
    )
    parser.add_argument(
        "--copy",
        metavar="DIR",
        help="write them to DIR/recordings and DIR/requests (existing files are kept)",
    )
    parser.set_defaults(run=run_samples)


def run_samples(args: argparse.Namespace) -> int:
    from mcptui.io.samples import copy_samples, shipped

    found = shipped()
    if not found:
        return refuse_line("no samples in this installation (a build without them?)")
    if args.copy:
        try:
            written, kept = copy_samples(Path(args.copy))
        except OSError as exc:
            return refuse_line(f"cannot write to {shown_path(args.copy)}: {exc.strerror or exc}")
        for path in written:
            print(shown_path(str(path)))
        if kept:
            print(
                f"mcptui: kept {len(kept)} existing file{'s' if len(kept) != 1 else ''}: "
                + ", ".join(shown_path(str(p)) for p in kept[:3]),
                file=sys.stderr,
            )
        return 0
    width = max(len(f"{s.folder}/{s.name}") for s in found)
    for sample in found:
        print(f"{sample.folder}/{sample.name}".ljust(width + 2) + sample.description)
    print(
        "\nmcptui replay mcp-424-broken-schema.jsonl (any command takes a sample's name); "
        "mcptui samples --copy DIR writes them out",
        file=sys.stderr,
    )
    return 0
