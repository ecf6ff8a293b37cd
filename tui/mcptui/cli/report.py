"""`mcptui report FILE...`: one report (Markdown or HTML) ready for an issue."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import (
    Commands,
    add_max_bytes,
    add_tap_file,
    refuse_line,
    release_collector,
)
from mcptui.model.textsafe import one_line, shown_path


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "report",
        help="a redacted report to paste into a GitHub issue or forum post",
        description="One self-contained report of recordings or dumps: the request (tools, "
        "server labels and URLs), each response's items and timing as a table, "
        "each failure with its error, likely cause, evidence and what to try "
        "(tap evidence when recorded), the findings, and the failed items' and "
        "terminal events in collapsed blocks. Secrets in the request, headers "
        "and URLs are redacted. Markdown (GitHub-flavoured) or one HTML file "
        "with no external assets. Exit codes as inspect's.",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a recording or dump (any format inspect reads); - for stdin",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the report here (default, or -: standard output); never over one of the FILEs",
    )
    parser.add_argument(
        "--format",
        choices=("md", "html"),
        default=None,
        help="md (default) or html (the default when OUT ends in .html)",
    )
    add_tap_file(parser)
    add_max_bytes(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Exit codes as inspect's: 0 no failure, 1 a failure, 2 a file unusable (reported)."""
    # Imported here: the parser is built for every command, these load the checks (0.5 s).
    from mcptui.io.reading import output_problem, overwrites_input
    from mcptui.share.inspect_output import Inspection, exit_code
    from mcptui.share.report import html_report, markdown_report, report_title
    from mcptui.sources.replay import load_merged

    release_collector()
    if args.tap and len(args.files) > 1:
        return refuse_line("--tap merges a tap recording into one stream: give one FILE")
    output = None if args.output in (None, "-") else Path(args.output)
    problem = output_problem(args.output, "-o") if output is not None or args.output == "" else None
    if problem is not None:
        return refuse_line(f"cannot write {shown_path(args.output) or repr('')}: {problem}")
    clobbered = overwrites_input(args.output, [*args.files, *([args.tap] if args.tap else [])])
    if clobbered is not None:
        return refuse_line(
            f"-o {args.output} is {clobbered} itself: the report would replace what "
            "it reports on; name another file"
        )
    output_format = args.format or (
        "html" if output is not None and output.suffix.lower() in (".html", ".htm") else "md"
    )
    inspections = [
        Inspection.of(load_merged(path, args.tap, args.max_bytes)) for path in args.files
    ]
    for inspection in inspections:
        if not inspection.loaded.usable:
            problems = "; ".join(str(p) for p in inspection.loaded.problems[:3]) or "no events"
            source = inspection.loaded.source or "<input>"
            shown = problems if problems.startswith(source) else f"{source}: {problems}"
            print(f"mcptui: {one_line(shown, 400)}", file=sys.stderr)
    if not any(i.loaded.usable for i in inspections):
        return 2  # nothing to report: no file saying so
    document = markdown_report(inspections)
    if output_format == "html":
        document = html_report(document, title=report_title(inspections))
    if output is None:
        sys.stdout.write(document)
    else:
        try:
            output.write_text(document, encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            return refuse_line(f"cannot write {output}: {exc.strerror or exc}")
        print(f"mcptui: report written to {shown_path(output)}", file=sys.stderr)
    return exit_code(inspections)
