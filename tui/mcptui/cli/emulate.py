"""`mcptui emulate`: the offline Responses API stand-in."""

from __future__ import annotations

import argparse

from mcptui.cli.common import (
    EMULATOR_PORT,
    Commands,
    add_server_options,
    refuse_line,
)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "emulate",
        help="run a local Responses API emulator (no API key, no model)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve POST /v1/responses and friends on loopback, calling the request's "
        "MCP servers for real. A scripted stand-in for the model makes one tool "
        "call per input line `call <tool> <json arguments>`.\n\nFaults, per "
        "request in metadata.mcptui_fault (comma-separated):\n" + fault_help(),
    )
    add_server_options(parser, EMULATOR_PORT)
    parser.add_argument(
        "--keep",
        type=int,
        default=1000,
        metavar="N",
        help="finished responses kept for GET and resume (default 1000; "
        "the least recently used go first)",
    )
    parser.add_argument(
        "--tool-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds before a tool call fails with the 424 (default 60)",
    )
    parser.add_argument(
        "--mcp-protocol",
        choices=("legacy", "modern", "auto"),
        default="legacy",
        help="the MCP era the emulator's client speaks to the request's "
        "servers: legacy (default: the 2025-11-25 initialize handshake, "
        "as OpenAI's client is believed to), modern (2026-07-28 "
        "server/discover, stateless) or auto (discover, else initialize)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mcptui.net.serve import PortUnavailable

    try:
        return run_emulate(
            args.host, args.port, args.tool_timeout, args.keep, mcp_protocol=args.mcp_protocol
        )
    except PortUnavailable as exc:
        return refuse_line(str(exc.strerror))


def run_emulate(
    host: str, port: int, tool_timeout: float, keep: int = 1000, *, mcp_protocol: str = "legacy"
) -> int:
    import logging

    from mcptui.emulator.app import Emulator
    from mcptui.emulator.runner import RunConfig
    from mcptui.model.redaction import redact_text
    from mcptui.net.serve import serve_forever

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")

    class Hidden(logging.Filter):
        """Every log line (httpx names each MCP URL it posts to) with its server URLs'
        tokens and credentials hidden."""

        def filter(self, record: logging.LogRecord) -> bool:
            record.msg = redact_text(record.getMessage(), strict_urls=True)
            record.args = None
            return True

    for handler in logging.getLogger().handlers:
        handler.addFilter(Hidden())
    banner = (
        "mcptui emulator: {url}/v1  (export OPENAI_BASE_URL={url}/v1; any API key works; "
        "Azure OpenAI's routes too: {url}/openai/v1 with --provider azure; Ctrl+C stops)"
    )
    config = RunConfig(tool_timeout=tool_timeout, mcp_protocol=mcp_protocol)
    serve_forever(Emulator(config, keep=keep).app, host, port, banner=banner)
    return 0


def fault_help() -> str:
    from mcptui.emulator.faults import FAULTS

    return "\n".join(f"  {name:18} {text}" for name, text in FAULTS.items())
