"""`mcptui demo`: the emulator and the demo server on loopback, and a run against them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcptui.cli.common import (
    Commands,
    record_refused,
)
from mcptui.cli.run import run_live
from mcptui.model.textsafe import shown_path


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "demo",
        help="try mcptui without an API key: emulator + demo server + live view",
        description="Start the emulator and the demo MCP server on free loopback ports, send "
        "a request with one successful call and the classic 424, and show it "
        "live. Both servers stop when you quit.",
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="print progress lines and a summary instead of the terminal UI",
    )
    parser.add_argument(
        "--record",
        metavar="PATH",
        help="recording file (default: mcptui-recordings/<time>-<response id>.jsonl)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return run_demo(no_tui=args.no_tui, record=args.record)


def run_demo(*, no_tui: bool, record: str | None) -> int:

    refused = record_refused(record)
    if refused is not None:
        return refused
    from mcptui.emulator.demo import demo_servers
    from mcptui.sources.live import Recorder, live_session

    recorder = Recorder(Path(record) if record else None)
    log_file = None if no_tui else recorder.folder / "demo-servers.log"
    with demo_servers(log_file=log_file) as servers:
        session, live = live_session(
            servers.emulator_url,
            "mcptui-demo",
            recorder,
            source=f"demo (emulator {servers.emulator_url})",
        )
        code = run_live(session, live, servers.request(), no_tui=no_tui)
    if session.recording_path:
        print(f"mcptui: recorded to {shown_path(session.recording_path)}", file=sys.stderr)
    if log_file is not None:
        print(
            f"mcptui: the demo servers' log (with the real cause of each failed call) is "
            f"{shown_path(log_file)}",
            file=sys.stderr,
        )
    return code
