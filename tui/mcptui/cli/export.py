"""`mcptui export FILE`: a recording's request as curl, a Python snippet or a
request file; `mcptui export FILE… --otlp URL`: its responses as OpenTelemetry traces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import OTLP_TIMEOUT, Commands, refuse_line, seconds_refused
from mcptui.io.reading import output_problem, overwrites_input


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "export",
        help="the recorded request as a curl command or a Python (openai SDK) "
        "snippet, to reproduce it",
        description="Print the request a recording (or a request file) holds as a command "
        "anyone can run: curl, a Python snippet with the openai SDK, or a request "
        "file for `mcptui run`. The API key is $OPENAI_API_KEY and every redacted "
        "value (MCP headers, tokens in server URLs) a ${VAR} placeholder, listed "
        "at the top; OPENAI_BASE_URL, when set, points it elsewhere. Exit 0: "
        "written; 2: FILE holds no request or cannot be read, or OUT cannot be "
        "written. With --otlp URL, each response of each FILE is sent as a trace to an "
        "OTLP/HTTP collector instead (exit 2 if it does not take them).",
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help="a recording with a request, or a request file (several only with --otlp)",
    )
    parser.add_argument(
        "--format",
        choices=("curl", "python", "request"),
        default=None,
        help="curl (default), python, or request (JSON for `mcptui run`); "
        "with -o, taken from OUT's extension (.sh, .py, .json) unless given",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write it here (default, or -: standard output); never over FILE",
    )
    parser.add_argument(
        "--otlp",
        metavar="URL",
        help="instead, send each response of each FILE as a trace to this OTLP/HTTP "
        "endpoint (http://HOST:4318/v1/traces; a base URL gets /v1/traces); needs "
        "pip install 'mcptui[otel]'. Exit 2 when the collector does not take them",
    )
    parser.add_argument(
        "--tap",
        metavar="TAPFILE",
        default=None,
        help="with --otlp and one FILE: a recording of `mcptui tap` made beside it, merged in "
        "as `inspect --tap` does: each tools/call's messages become events of its "
        "execute_tool span, linked to the trace context the call carried",
    )
    parser.add_argument(
        "--otlp-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="with --otlp: give up after this long, retries included (default 10)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """`mcptui export FILE [--format F] [-o OUT]`: 0 written, 2 the file cannot be exported
    (or OUT is FILE itself, or cannot be written)."""
    # Imported here: the parser is built for every command, these load the checks (0.5 s).
    from mcptui.share.export import (
        ExportError,
        _after_note,
        _comment,
        export_format,
        load_exportable,
        render,
        write_file,
        write_stdout,
    )

    timeout = getattr(args, "otlp_timeout", None)
    if (refused := seconds_refused("--otlp-timeout", timeout)) is not None:
        return refused
    if getattr(args, "otlp", None) is not None:
        return run_otlp(args)
    if timeout is not None:
        return refuse_line("--otlp-timeout needs --otlp")
    if getattr(args, "tap", None) is not None:
        print("mcptui: --tap merges a tap recording for --otlp only", file=sys.stderr)
        return 2
    if isinstance(args.file, list):  # FILE… from the parser; callers may pass one path
        if len(args.file) != 1:
            print("mcptui: export takes one FILE (several only with --otlp)", file=sys.stderr)
            return 2
        args.file = args.file[0]
    output = args.output if args.output != "-" else None
    fmt = export_format(args.format, output)
    try:
        problem = output_problem(output, "-o") if output is not None else None
        if problem is not None:
            raise ExportError(f"cannot write {output or repr('')}: {problem}")
        clobbered = overwrites_input(output, [args.file])
        if clobbered is not None:
            raise ExportError(
                f"-o {output} is FILE itself: writing the export there would "
                f"destroy {clobbered}; give another OUT (or -o - for standard "
                "output)"
            )
        exportable = load_exportable(args.file)
        text = render(
            exportable.template,
            fmt,
            exportable.endpoint,
            exportable.source,
            exportable.provider,
        )
        if output:
            write_file(Path(output), text, executable=fmt == "curl")
        else:
            write_stdout(text)
    except ExportError as exc:
        print(f"mcptui: {_comment(str(exc))}", file=sys.stderr)
        return 2
    note = _after_note(exportable, fmt, output)
    if note:
        print(f"mcptui: {note}", file=sys.stderr)
    return 0


def run_otlp(args: argparse.Namespace) -> int:
    """`mcptui export FILE… --otlp URL`: 0 sent, 2 the SDK is missing, a file cannot be
    used, or the collector did not take the spans within --otlp-timeout."""
    from mcptui.share.otel_export import INSTALL_HINT, otel_available

    if args.format is not None or args.output is not None:
        print("mcptui: --otlp sends traces; --format and -o do not apply", file=sys.stderr)
        return 2
    if not otel_available():
        print(f"mcptui: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from mcptui.share.inspect_output import Inspection
    from mcptui.share.otel_export import OtelError, emit, send, shown_url, traces_url
    from mcptui.sources.replay import load_merged

    tap = getattr(args, "tap", None)
    if tap is not None and len(args.file) != 1:
        return refuse_line("--tap merges a tap recording into one stream: give one FILE")
    try:
        url = traces_url(args.otlp)
        inspections = []
        for path in args.file:
            loaded = load_merged(path, tap)
            if not loaded.usable:
                reason = loaded.problems[0].message if loaded.problems else "no events"
                named = reason if path in reason else f"{path}: {reason}"
                raise OtelError(f"{named}; nothing was sent")
            inspections.append(Inspection.of(loaded))
        memory = InMemorySpanExporter()
        done = emit(inspections, memory)
        send(memory.get_finished_spans(), url, args.otlp_timeout or OTLP_TIMEOUT)
    except OtelError as exc:
        print(f"mcptui: {exc}", file=sys.stderr)
        return 2
    what = [f"{plural(done.responses, 'response')}, one trace each"] if done.responses else []
    if done.tap_requests:
        what.append(f"{plural(done.tap_requests, 'MCP request')} of a tap")
    print(
        f"mcptui: sent {plural(done.spans, 'span')} ({'; '.join(what) or 'nothing to send'}) "
        f"to {shown_url(url)}",
        file=sys.stderr,
    )
    note = done.context_note()
    if note:
        print(f"mcptui: {note}", file=sys.stderr)
    return 0


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
