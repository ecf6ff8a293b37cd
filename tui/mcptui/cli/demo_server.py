"""`mcptui demo-server`: the demo MCP server, with the faults tests and demos need."""

from __future__ import annotations

import argparse

from mcptui.cli.common import (
    DEMO_SERVER_PORT,
    Commands,
    add_server_options,
    refuse_line,
)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "demo-server",
        help="run an MCP server whose tools reproduce common failures",
        description="Streamable HTTP at /mcp, SSE at /sse. Tools: search, slow_search, "
        "failing_api, broken_schema, mismatched_schema, bad_content, start_job, "
        "check_job, protocol_error. The options below add failures that are not "
        "a tool's.",
    )
    add_server_options(parser, DEMO_SERVER_PORT)
    parser.add_argument(
        "--token", metavar="T", help="refuse requests without Authorization: Bearer T"
    )
    parser.add_argument(
        "--path-token", metavar="T", help="serve under /s/T/ (a secret in the URL's path)"
    )
    parser.add_argument(
        "--call-token",
        metavar="T",
        help="list tools for anyone, but answer 401 to a tools/call "
        "without Authorization: Bearer T",
    )
    parser.add_argument(
        "--host-check",
        action="store_true",
        help="DNS-rebinding protection: answer 421 to any Host header "
        "but localhost (reach it at 127.0.0.1, as a tunnel would)",
    )
    parser.add_argument(
        "--forget-sessions",
        action="store_true",
        help="forget each session once it has listed tools: the call "
        "gets 404 for its stale session id, as from a restarted "
        "server or another instance behind a load balancer. Legacy "
        "era (initialize, Mcp-Session-Id) only: 2026-07-28 clients "
        "have no session, so they are unaffected",
    )
    era = parser.add_mutually_exclusive_group()
    era.add_argument(
        "--legacy-only",
        action="store_true",
        help="speak only 2025-11-25 (initialize): server/discover is refused as "
        "an older server refuses it (meet it with `emulate --mcp-protocol "
        "modern` to see a revision mismatch)",
    )
    era.add_argument(
        "--modern-only",
        action="store_true",
        help="speak only 2026-07-28 (server/discover): initialize is refused with -32022",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mcptui.emulator.demo_server import DemoModes, run_demo_server
    from mcptui.net.serve import PortUnavailable

    try:
        run_demo_server(
            args.host,
            args.port,
            DemoModes(
                token=args.token,
                path_token=args.path_token,
                call_token=args.call_token,
                host_check=args.host_check,
                forget_sessions=args.forget_sessions,
                legacy_only=args.legacy_only,
                modern_only=args.modern_only,
            ),
        )
    except PortUnavailable as exc:
        return refuse_line(str(exc.strerror))
    return 0
