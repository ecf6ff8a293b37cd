"""`mcptui tools REQUEST.json|URL|RECORDING [--header NAME=VALUE]... [--oauth]`: the tool workspace
(tui/mcptui/ui/screens/tool_workspace.py) on its own, for the servers the argument names, as
`probe` reads it (tui/mcptui/probe/targets.py): a request file's `mcp` entries with their
headers, a bare server URL, or a recording's (redacted) request, its form then pre-filled with
the recording's first failed call. Exit 2 when the argument names no server."""

from __future__ import annotations

import argparse
import os
import sys

from mcptui.cli.common import Commands, refuse_line, release_collector, run_app, terminal_missing
from mcptui.cli.oauth_option import OAuthRefused, add_oauth_options, oauth_refused, oauth_tokens
from mcptui.model.textsafe import visible


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "tools",
        help="list an MCP server's tools and call one from a form (the tool workspace)",
        description="The tool workspace: each MCP server's tools (description, annotations, "
        "input and output schemas), a form made from a tool's input schema (F2: raw JSON), "
        "ctrl+s calls it with the probe's client and shows the answer as OpenAI would take "
        "it, the likely cause, each check and the result; every call goes to a history. "
        "Takes a request file, an MCP server's URL, or a recording (its first failed call "
        "pre-fills the form).",
    )
    parser.add_argument("target", metavar="REQUEST.json|URL|RECORDING")
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a header for every MCP server (VALUE may be ${ENV_VAR}): supplies what a "
        "recording's redacted headers lack",
    )
    add_oauth_options(parser, "open the workspace with the token")
    parser.set_defaults(run=run_tools)


def run_tools(args: argparse.Namespace) -> int:
    from mcptui.probe.targets import ProbeInputError, parse_headers, read_input, with_headers

    try:
        supplied = parse_headers(args.header, os.environ)
        target = read_input(args.target)
    except ProbeInputError as exc:
        return refuse_line(str(exc))
    if (refused := oauth_refused(args, supplied)) is not None:
        return refused
    if (missing := terminal_missing(f"mcptui probe {args.target} --json")) is not None:
        return missing
    from mcptui.model.state import mcp_entries
    from mcptui.probe.probing import recorded_failures
    from mcptui.ui.screens.tool_workspace import Prefill, ToolsApp, ToolSource

    request = with_headers(target.request, supplied)
    if args.oauth:  # before the app starts: the URL and the wait are lines on the terminal
        try:
            request, _sources = oauth_tokens(request, args)
        except KeyboardInterrupt:
            print("mcptui: interrupted", file=sys.stderr)
            return 130
        except OAuthRefused as exc:
            return refuse_line(str(exc))
    redacted = target.recording is not None and not supplied
    sources = [
        ToolSource(str(entry.get("server_label") or "?"), entry, redacted)
        for entry in mcp_entries(request)
        if entry.get("server_url")
    ]
    if not sources:
        return refuse_line(f"{visible(args.target)} names no MCP server with a server_url")
    prefill = None
    if target.recording is not None:
        for label, call in recorded_failures(target.recording):
            prefill = Prefill(label or "", call.tool, call.arguments or {})
            break
    release_collector()
    return run_app(ToolsApp(sources, prefill))
