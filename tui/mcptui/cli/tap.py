"""`mcptui tap`: what OpenAI sends an MCP server, and its answers, relayed and recorded."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import (
    TAP_PORT,
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
        "tap",
        help="record what OpenAI's servers send to your MCP server, and its answers",
        description="A recording reverse proxy in front of an MCP server, on 127.0.0.1: "
        "streamable HTTP (POST, the GET event stream, DELETE, Mcp-Session-Id) and "
        "the SSE transport. Requests are forwarded byte for byte; every JSON-RPC "
        "message in both directions is recorded with its time, HTTP status, "
        "session and transport, as are HTTP failures and broken connections. "
        "Header values are never kept. Put the printed server_url in the request; "
        "the messages show live as a timeline (or as lines with --no-tui). "
        "`mcptui run REQUEST.json --tap` does all of this for you.",
    )
    parser.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the MCP server's URL, as the request's server_url names it, e.g. "
        "http://127.0.0.1:8765/mcp",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=TAP_PORT,
        help=f"port on 127.0.0.1 (default {TAP_PORT}; 0 for a free one)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        default=None,
        help="recording file (default mcptui-recordings/<time>-tap.jsonl)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="the tunnel URL OpenAI's servers reach the tap at (ngrok, "
        "cloudflared): the printed server_url uses it",
    )
    parser.add_argument(
        "--no-tui", action="store_true", help="print a line per message instead of the terminal UI"
    )
    add_otlp_options(parser, "each MCP request is answered (a span per request)")
    parser.set_defaults(run=run_tap)


def run_tap(args: argparse.Namespace) -> int:
    """`mcptui tap`: refusals (a bad upstream, a busy port, a file it cannot write) are one
    line and exit 2."""

    from rich.console import Console

    from mcptui.capture.proxy_run import UpstreamError, check_upstream
    from mcptui.capture.tap_run import TapService, serve_tap_lines
    from mcptui.net.serve import PortUnavailable

    otlp, refused = otlp_target_or_refusal(args)
    if refused is not None:
        return refused
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
    try:
        upstream = check_upstream(
            args.upstream, args.port, itself="the tap", example="http://127.0.0.1:8765/mcp"
        )
        record = Path(args.record) if args.record else None
        if args.no_tui:
            return serve_tap_lines(
                upstream, args.port, record, args.public_url, console, live_export(otlp)
            )
        service = TapService(upstream, args.port, record, args.public_url, live_export(otlp))
    except UpstreamError as exc:
        return refuse_line(str(exc))
    except PortUnavailable as exc:
        return refuse_line(str(exc.strerror))
    except OSError as exc:
        return refuse_line(
            f"cannot record to {args.record or 'mcptui-recordings/'}: {exc.strerror or exc}"
        )
    refused = terminal_missing("add --no-tui to print a line per message")
    if refused is not None:  # bound (a busy port said first), never served
        service.stop()
        return refused
    from mcptui.ui.app import McptuiApp

    code = run_app(McptuiApp(service.session(), proxy=service))
    if service.export is not None:
        from mcptui.share.otel_live import print_end

        print_end(service.export)
    recorded = shown_path(service.hub.path_of_recording)
    print(
        f"mcptui: the tap recorded {service.hub.messages} message"
        f"{'s' if service.hub.messages != 1 else ''} in {recorded}",
        file=sys.stderr,
    )
    return code
