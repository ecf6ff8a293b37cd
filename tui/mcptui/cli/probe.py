"""`mcptui probe`: ask the MCP server directly what OpenAI's call would get."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from mcptui.cli.common import (
    Commands,
    refuse_line,
)
from mcptui.cli.oauth_option import OAuthRefused, add_oauth_options, oauth_refused, oauth_tokens
from mcptui.model.jsonsafe import loads
from mcptui.model.textsafe import visible

if TYPE_CHECKING:
    from mcptui.io.recording import Loaded
    from mcptui.probe.targets import ProbeInput


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "probe",
        help="connect to the MCP servers of a request or a recording from here, "
        "re-run the failed calls, name the cause",
        description="The positional is an MCP server's URL (http(s)://…, probed on its own), "
        "or FILE: a request (REQUEST.json, as `run` sends it) or anything inspect "
        "reads (a recording, JSON lines, SSE, a pasted JSON array of events, a "
        "Response object). For each mcp tool of the request, or each MCP server the "
        "file names (its recording header's request, else the tools "
        "response.created echoes), connect to its server_url with the real mcp "
        "client and the headers, list the tools (as allowed_tools filters them) "
        "and check their schemas, then call tools: a file's own failed mcp_calls "
        "(or those of --recording) with their recorded arguments, or --tool NAME "
        "with --args. Each answer is checked the way OpenAI's MCP client checks it "
        "(structuredContent against outputSchema, content block types, isError, "
        "size, time), and each recorded failure gets its likely cause, confirmed "
        "by the probe where it shows it. Each server is also asked which MCP "
        "revisions it speaks (server/discover for 2026-07-28, initialize for "
        "2025-11-25; --mcp-protocol), with the tools each lists and the one "
        "OpenAI's client meets. A file's header values are redacted: "
        "--header supplies them. Exit 0: everything checks out; 1: a problem was "
        "found (a server unreachable, a call failed, an error-level check); 2: "
        "could not run (unreadable file, bad options, no MCP server to probe).",
    )
    parser.add_argument(
        "request",
        metavar="URL-or-FILE",
        help="an MCP server's URL, a request file, or a recording or stream dump (- for stdin)",
    )
    parser.add_argument(
        "--recording",
        metavar="FILE",
        help="re-run the failed mcp_calls of this recording (any format "
        "inspect reads) on the servers FILE names, instead of FILE's "
        "own; with --tool, only that tool's",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="send this header to every server probed, replacing the file's "
        "(redacted) one of that name, e.g. --header "
        "'Authorization=Bearer ${TOKEN}'; ${NAME} is the environment "
        "variable NAME. Repeatable; values are never printed",
    )
    parser.add_argument(
        "--tool", metavar="NAME", help="call this tool on every server that offers it"
    )
    parser.add_argument(
        "--args", metavar="JSON", help="the --tool call's arguments, a JSON object (default {})"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait for connecting and for each call (default: for "
        "recorded failures, the tool time limit that applied to their "
        "response; else 60, about where OpenAI gives up)",
    )
    parser.add_argument(
        "--transport",
        choices=("sse", "streamable_http"),
        help="force the transport (default: SSE for URLs ending in /sse, else streamable HTTP)",
    )
    parser.add_argument(
        "--mcp-protocol",
        choices=("legacy", "modern", "auto"),
        default="auto",
        help="which MCP revisions to ask each server about: auto (default) "
        "sends server/discover (2026-07-28) and, separately, initialize "
        "(2025-11-25), reports which it speaks, and calls tools in the "
        "era OpenAI's client meets (legacy, unless the server speaks only "
        "2026-07-28); legacy or modern asks and calls in that era only",
    )
    add_oauth_options(parser, "probe with the token")
    parser.add_argument("--json", action="store_true", help="print a JSON report instead")
    parser.set_defaults(run=run_probe)


def run_probe(args: argparse.Namespace) -> int:
    """`mcptui probe`: option and file errors are one line on stderr and exit 2."""
    import os

    from mcptui.probe.targets import ProbeInputError, parse_headers, read_input, with_headers

    if args.timeout is not None and not args.timeout > 0:
        return refuse_line("--timeout must be greater than 0")
    arguments = None
    if args.args is not None:
        if args.tool is None:
            return refuse_line("--args needs --tool NAME (the tool to call with them)")
        try:
            arguments = loads(args.args)
        except ValueError as exc:
            return refuse_line(f"--args is not valid JSON: {exc}")
        if not isinstance(arguments, dict):
            return refuse_line(f"--args must be a JSON object, not {type(arguments).__name__}")
    try:
        supplied = parse_headers(args.header, os.environ)
        target = read_input(args.request)
    except ProbeInputError as exc:
        return refuse_line(str(exc))
    recording = target.recording
    if args.recording is not None:
        from mcptui.io.formats import load_path

        recording = load_path(args.recording)
        if not recording.usable:
            problems = "; ".join(str(p) for p in recording.problems[:3]) or "no events"
            return refuse_line(f"cannot use the recording {args.recording}: {problems}")
    if (refused := oauth_refused(args, supplied)) is not None:
        return refused
    target.request = with_headers(target.request, supplied)
    target.supplied = [name for name, _value in supplied]
    target.recording = recording
    if args.oauth:
        try:
            target.request, target.oauth = oauth_tokens(target.request, args)
        except KeyboardInterrupt:
            print("mcptui: interrupted", file=sys.stderr)
            return 130
        except OAuthRefused as exc:
            return refuse_line(str(exc))
    return print_probe(target, args, arguments)


def probe_timeout(
    args: argparse.Namespace, recording: Loaded | None, arguments: dict[str, Any] | None
) -> tuple[float, str | None]:
    """--timeout, else the limit the recorded failures met (a note says so), else OpenAI's."""
    from mcptui.probe.probing import OPENAI_TIMEOUT, failure_limit

    if args.timeout is not None:
        return args.timeout, None
    if recording is None or (args.tool is not None and arguments is not None):
        return OPENAI_TIMEOUT, None
    limit = failure_limit(recording, args.tool)
    if limit is None or limit == OPENAI_TIMEOUT:
        return OPENAI_TIMEOUT, None
    return limit, (
        f"each call waits up to {limit:g} s, the tool time limit of the recorded "
        "response (its metadata.mcptui_tool_timeout_s): a tool as slow as in the "
        "run times out here too; --timeout S to wait longer"
    )


def print_probe(
    target: ProbeInput, args: argparse.Namespace, arguments: dict[str, Any] | None
) -> int:
    import asyncio
    import io
    import json

    from rich.console import Console

    from mcptui.model.redaction import hide_known, redact_text, request_secrets
    from mcptui.probe.probing import Check, probe
    from mcptui.probe.view import render

    known = request_secrets(target.request)

    def hidden(text: str) -> str:
        """What the probe prints: its servers' URLs and headers are the user's secrets."""
        return hide_known(redact_text(text, strict_urls=True), known)

    def progress(line: str) -> None:
        print(f"mcptui: {hidden(line)}", file=sys.stderr, flush=True)

    timeout, note = probe_timeout(args, target.recording, arguments)
    try:
        report = asyncio.run(
            probe(
                target.request,
                recording=target.recording,
                tool=args.tool,
                arguments=arguments,
                timeout=timeout,
                transport=args.transport,
                protocol=args.mcp_protocol,
                on_progress=None if args.json else progress,
                redacted_source=target.echoed and not target.supplied and not target.oauth,
            )
        )
    except KeyboardInterrupt:
        print("mcptui: interrupted", file=sys.stderr)
        return 130
    if note is not None:
        report.notes.insert(0, note)
    for server in report.servers:
        if server.server_label in target.oauth:
            server.checks.insert(
                0,
                Check(
                    "info",
                    "oauth_token",
                    "token from --oauth (value hidden): " + target.oauth[server.server_label],
                ),
            )
    if target.supplied:
        for server in report.servers:
            server.checks.insert(
                0,
                Check(
                    "info",
                    "supplied_headers",
                    "from --header (values hidden): " + ", ".join(target.supplied),
                ),
            )
    if args.json:
        print(hidden(json.dumps(report.as_json(), indent=2, ensure_ascii=False)))
    elif report.exit_code == 2:  # nothing was probed: say why, like the other refusals
        for problem in report.problems:
            print(f"mcptui: {hidden(visible(str(problem)))}", file=sys.stderr)
    else:
        shown = io.StringIO()
        Console(
            file=shown,
            highlight=False,
            force_terminal=sys.stdout.isatty(),
            width=Console().width if sys.stdout.isatty() else 1000,
        ).print(render(report))
        sys.stdout.write(hidden(shown.getvalue()))
    return report.exit_code
