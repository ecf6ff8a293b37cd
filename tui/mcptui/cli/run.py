"""`mcptui run REQUEST.json` and `mcptui attach RESP_ID`: a live run, shown and recorded
as it arrives."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcptui.cli.common import (
    EXIT_INTERRUPTED,
    TAP_PORT,
    Commands,
    add_live_options,
    add_otlp_options,
    live_export,
    live_target_or_refusal,
    otlp_target_or_refusal,
    port_number,
    record_refused,
    refuse_line,
    run_app,
    terminal_missing,
)
from mcptui.cli.oauth_option import OAuthRefused, add_oauth_options, oauth_refused, oauth_tokens
from mcptui.model.textsafe import shown_path, visible

if TYPE_CHECKING:
    from mcptui.sources.live import LiveRun
    from mcptui.sources.session import Session


def add_run_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "run",
        help="send a Responses request and inspect its stream live",
        description="Send REQUEST.json (a Responses API request body) with the openai SDK, "
        "show the stream live and record it. Needs OPENAI_API_KEY; --base-url or "
        "OPENAI_BASE_URL points it elsewhere (e.g. `mcptui emulate`, Azure OpenAI with "
        "AZURE_OPENAI_API_KEY, Ollama, vLLM; --provider names it). Exit codes "
        "with --no-tui: 0 clean, 1 a failure, 2 could not run.",
    )
    parser.add_argument("request", metavar="REQUEST.json")
    add_live_options(parser)
    parser.add_argument(
        "--tap",
        action="store_true",
        help="put a tap in front of each MCP server (see `mcptui tap`): the "
        "request goes out with the taps' URLs, and what OpenAI's servers "
        "send each server and its answers join the stream in one timeline "
        "and recording",
    )
    parser.add_argument(
        "--tap-public-url",
        action="append",
        default=[],
        metavar="URL",
        help="the tunnel URL (ngrok, cloudflared) at which OpenAI's servers "
        "reach a tap: once per MCP server, in the request's order; the "
        f"taps then listen on --tap-port, +1, … (default {TAP_PORT})",
    )
    parser.add_argument(
        "--tap-port",
        type=port_number,
        default=None,
        metavar="PORT",
        help=f"the first tap's port (default: a free one, or {TAP_PORT} with --tap-public-url)",
    )
    add_otlp_options(parser, "each response ends")
    add_oauth_options(parser, "send the request with the token in the tool's headers")
    parser.set_defaults(run=run_request)


def add_attach_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "attach",
        help="follow an existing background response",
        description="Stream a background response (GET /v1/responses/ID?stream=true), "
        "resuming after drops, and record it.",
    )
    parser.add_argument("response_id", metavar="RESP_ID")
    parser.add_argument(
        "--after",
        type=int,
        default=None,
        metavar="N",
        help="start after sequence number N (default: from the start)",
    )
    add_live_options(parser)
    add_otlp_options(parser, "the response ends")
    parser.set_defaults(run=run_request)


def run_request(args: argparse.Namespace) -> int:
    """`mcptui run` and `mcptui attach`: check what can be checked before any network."""
    from mcptui.sources.request_file import RequestFileError, load_request

    request = None
    if args.command == "run":
        try:
            request = load_request(args.request)
        except RequestFileError as exc:
            print(f"mcptui: {exc}", file=sys.stderr)
            return 2
    target, refused = live_target_or_refusal(args)
    if target is None:
        return refused or 2
    if target.missing is not None:
        print(
            f"mcptui: {target.missing}. Export your key, or try without one: "
            "`mcptui emulate` and --base-url http://127.0.0.1:8787/v1 with any key, or "
            "`mcptui demo`.",
            file=sys.stderr,
        )
        return 2
    if args.idle_timeout is not None and args.idle_timeout <= 0:
        print("mcptui: --idle-timeout must be greater than 0", file=sys.stderr)
        return 2
    refused = record_refused(args.record)
    if refused is not None:
        return refused
    folder = Path(args.record_dir).expanduser() if args.record_dir else None
    if folder is not None and folder.exists() and not folder.is_dir():
        return refuse_line(f"--record-dir {shown_path(args.record_dir)}: is not a folder")
    otlp, refused = otlp_target_or_refusal(args)
    if refused is not None:
        return refused
    if request is not None and (refused := oauth_refused(args, [])) is not None:
        return refused
    if request is not None and args.oauth:
        try:  # before the taps: the flow talks to each server itself
            request, _ = oauth_tokens(request, args)
        except OAuthRefused as exc:
            return refuse_line(str(exc))
    export = live_export(otlp)
    from mcptui.io.recording import DEFAULT_RECORD_DIR
    from mcptui.sources.live import Recorder, live_session  # the openai SDK: after the checks

    taps = None
    if request is not None and (args.tap or args.tap_public_url):
        from mcptui.capture.tap_run import RunTaps, TapError
        from mcptui.net.serve import PortUnavailable

        port = (
            args.tap_port if args.tap_port is not None else (TAP_PORT if args.tap_public_url else 0)
        )
        try:
            taps = RunTaps(request, public_urls=args.tap_public_url, port=port)
        except TapError as exc:
            return refuse_line(str(exc))
        except PortUnavailable as exc:
            return refuse_line(str(exc.strerror))
    recorder = Recorder(
        Path(args.record) if args.record else None,
        folder or DEFAULT_RECORD_DIR,
        response_id=None if request is not None else args.response_id,
    )
    source = args.request if request is not None else f"attach {args.response_id}"
    session, live = live_session(
        target.endpoint,
        target.api_key,
        recorder,
        source=source,
        idle_timeout=args.idle_timeout,
        taps=taps,
    )
    if export is not None:
        from mcptui.share.otel_live import follow_run

        follow_run(export, live)
    if request is not None:
        code = run_live(session, live, request, no_tui=args.no_tui)
    else:
        code = run_live(
            session, live, None, no_tui=args.no_tui, attach=(args.response_id, args.after)
        )
    if export is not None:
        from mcptui.share.otel_live import print_end

        print_end(export)
        if export.interrupted:  # Ctrl+C cut the wait for the collector: as a shell says it
            code = EXIT_INTERRUPTED
    if recorder.failure is not None:
        print(f"mcptui: {visible(recorder.failure)}", file=sys.stderr)
    elif session.recording_path:
        print(f"mcptui: recorded to {shown_path(session.recording_path)}", file=sys.stderr)
    return code


def run_live(
    session: Session,
    live: LiveRun,
    request: dict[str, Any] | None,
    *,
    no_tui: bool,
    attach: tuple[str, int | None] | None = None,
) -> int:
    """Show a live run in the TUI, or print it; the exit code is `inspect`'s."""
    if no_tui:
        import asyncio

        from rich.console import Console

        from mcptui.io.recording import Loaded
        from mcptui.share.inspect_output import Inspection, exit_code, render
        from mcptui.share.progress_lines import ProgressPrinter

        console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
        live.on_event = ProgressPrinter(console)

        async def send() -> None:
            try:
                if attach is not None:
                    await live.attach(*attach)
                elif request is not None:
                    await live.send(request)
            finally:
                await live.aclose()

        interrupted = False
        try:
            asyncio.run(send())
        except KeyboardInterrupt:  # the recording is already valid: each line was flushed
            interrupted = True
            console.print("mcptui: interrupted; summary of what arrived:", style="yellow")
        loaded = Loaded(
            list(session.timeline.events),
            header=session.header,
            format="live run",
            source=session.recording_path or session.source,
        )
        inspection = Inspection.of(loaded)
        console.print(render(inspection))
        return 130 if interrupted else exit_code([inspection])
    refused = terminal_missing("add --no-tui to print the events as they arrive")
    if refused is not None:
        return refused
    from mcptui.ui.app import McptuiApp

    return run_app(McptuiApp(session, live=live, request=request, attach=attach))
