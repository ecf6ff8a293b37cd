"""`mcptui proxy`: any app's Responses traffic through `OPENAI_BASE_URL`, shown and
recorded."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import (
    PROXY_PORT,
    Commands,
    add_otlp_options,
    live_export,
    otlp_target_or_refusal,
    port_number,
    refuse_line,
    run_app,
    terminal_missing,
)
from mcptui.model.textsafe import shown_path


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "proxy",
        help="record any app's Responses API traffic: point its OPENAI_BASE_URL here",
        description="A recording reverse proxy for the OpenAI API on 127.0.0.1. Point any app "
        "(any language, unchanged) at it with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1"
        ": every request goes to --upstream byte for byte, streams pass on as each "
        "chunk arrives, and each Responses API exchange (create, stream, retrieve, "
        "resume, cancel) is recorded, redacted, one recording per response. The "
        "app's API key passes through and is never stored. Exit codes with --no-tui "
        "(after Ctrl+C): 0 no captured response failed, 1 one did, 2 could not start.",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=PROXY_PORT,
        help=f"port on 127.0.0.1 (default {PROXY_PORT}; 0 for a free one)",
    )
    parser.add_argument(
        "--upstream",
        metavar="URL",
        default=None,
        help="the API to forward to (default https://api.openai.com/v1; e.g. "
        "http://127.0.0.1:8787/v1 for `mcptui emulate`)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="folder for the recordings (default mcptui-recordings)",
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="print one line per response and its failures instead of the terminal UI",
    )
    add_otlp_options(parser, "each captured response ends")
    parser.set_defaults(run=run_proxy)


def run_proxy(args: argparse.Namespace) -> int:
    """`mcptui proxy`: refusals (a bad upstream, a busy port) are one line and exit 2."""

    from mcptui.capture.proxy_run import (
        DEFAULT_UPSTREAM,
        ProxyService,
        UpstreamError,
        check_upstream,
        serve_lines,
    )
    from mcptui.io.recording import DEFAULT_RECORD_DIR
    from mcptui.net.serve import PortUnavailable

    record_dir = Path(args.record) if args.record else DEFAULT_RECORD_DIR
    try:
        record_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return refuse_line(f"cannot record in {record_dir}: {exc.strerror or exc}")
    otlp, refused = otlp_target_or_refusal(args)
    if refused is not None:
        return refused
    try:
        upstream = check_upstream(args.upstream or DEFAULT_UPSTREAM, args.port).rstrip("/")
        if args.no_tui:
            from rich.console import Console

            console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
            return serve_lines(upstream, args.port, record_dir, console, otlp)
        export = live_export(otlp)
        service = ProxyService(upstream, args.port, record_dir, export)
    except (UpstreamError, PortUnavailable) as exc:
        return refuse_line(str(exc.strerror if isinstance(exc, PortUnavailable) else exc))
    refused = terminal_missing("add --no-tui to print a line per request")
    if refused is not None:  # bound (a busy port said first), never served
        service.stop()
        return refused
    from mcptui.ui.app import McptuiApp

    code = run_app(McptuiApp(service.session(), proxy=service))
    if service.export is not None:
        from mcptui.share.otel_live import print_end

        print_end(service.export)
    count = len(service.hub.captures)
    print(
        f"mcptui: the proxy captured {count} response{'s' if count != 1 else ''}"
        + (f", recorded in {shown_path(record_dir)}/" if count else ""),
        file=sys.stderr,
    )
    return code
