"""`mcptui open RESP_ID`: a response the API stored, fetched by id (tui/mcptui/sources/stored.py)
and opened like a recording: its items, failures and likely causes (no timeline: the API keeps
no events). `--no-tui` prints what `inspect` prints, `--json` its JSON. Exit 0 clean, 1 a
failure in it, 2 when it cannot be fetched (the message says why)."""

from __future__ import annotations

import argparse
import sys

from mcptui.cli.common import (
    Commands,
    add_provider_option,
    live_target_or_refusal,
    refuse_line,
    release_collector,
    run_app,
    terminal_missing,
)
from mcptui.model.textsafe import visible


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "open",
        help="fetch a stored response by id (GET /responses/ID) and open it like a recording",
        description="Fetch a response the API stored (GET /v1/responses/RESP_ID and its "
        "input_items) and open it like a recording: items, failures, likely causes (no "
        "timeline: the API keeps no events). Needs OPENAI_API_KEY; --base-url or "
        "OPENAI_BASE_URL points it elsewhere (e.g. `mcptui emulate`). Exit codes: 0 clean, 1 "
        "a failure in it, 2 it cannot be fetched. `attach` follows a background run's "
        "stream instead.",
    )
    parser.add_argument("response_id", metavar="RESP_ID")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="API base URL (default: OPENAI_BASE_URL, else AZURE_OPENAI_ENDPOINT for "
        "Azure, else the OpenAI API); its query (?api-version=…) goes on every request",
    )
    add_provider_option(parser)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--no-tui", action="store_true", help="print the summary `inspect` prints instead"
    )
    shown.add_argument("--json", action="store_true", help="print `inspect --json` instead")
    parser.set_defaults(run=run_open)


def run_open(args: argparse.Namespace) -> int:
    from mcptui.sources.stored import StoredError, fetch_stored, is_response_id

    if not is_response_id(args.response_id):
        return refuse_line(
            f"{visible(args.response_id[:80])!r} is not a response id (resp_…); "
            "to open a file, `mcptui replay FILE`"
        )
    target, refused = live_target_or_refusal(args)
    if target is None:
        return refused or 2
    if target.missing is not None:
        return refuse_line(
            f"{target.missing}: the stored response is your project's. Against "
            "`mcptui emulate`, any key and --base-url http://127.0.0.1:8787/v1."
        )
    try:
        loaded = fetch_stored(args.response_id, target.endpoint, target.api_key)
    except StoredError as exc:
        return refuse_line(visible(str(exc)))
    if args.no_tui or args.json:
        return print_loaded(loaded, as_json=args.json)
    if (missing := terminal_missing(f"mcptui open {args.response_id} --no-tui")) is not None:
        return missing
    from mcptui.sources.session import Session
    from mcptui.ui.app import McptuiApp

    release_collector()
    session = Session.from_loaded(loaded, instant=True)
    return run_app(McptuiApp(session, open_at="failure"))


def print_loaded(loaded: object, *, as_json: bool) -> int:
    from rich.console import Console

    from mcptui.share.inspect_output import Inspection, exit_code, print_json, render

    release_collector()
    inspection = Inspection.of(loaded)  # type: ignore[arg-type]
    if as_json:
        print_json([inspection], sys.stdout)
    else:
        Console(highlight=False, width=None if sys.stdout.isatty() else 1000).print(
            render(inspection)
        )
    return exit_code([inspection])
