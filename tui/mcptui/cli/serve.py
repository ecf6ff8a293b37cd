"""`mcptui serve`: recordings answered as the Responses API, to replay a failure into an app."""

from __future__ import annotations

import argparse

from mcptui.cli.common import Commands, add_server_options, refuse_line

SERVE_PORT = 8789


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "serve",
        help="answer POST /v1/responses with recorded responses (a mock API for your app)",
        description="Serve the recordings' responses on loopback: each POST /v1/responses "
        "gets the recorded response whose request had the same input, else the next in "
        "order (after the last, the first again). Streamed requests get the recorded events, "
        "others the recorded final Response; a recorded HTTP error is answered with its "
        "status and body. GET, resume (?stream=true&starting_after=N) and cancel work for "
        "background requests.",
    )
    parser.add_argument("recordings", nargs="+", metavar="RECORDING", help="recordings to serve")
    add_server_options(parser, SERVE_PORT)
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument(
        "--speed",
        type=positive,
        default=1.0,
        metavar="X",
        help="play the recorded timing X times faster (default 1: as recorded)",
    )
    pace.add_argument("--instant", action="store_true", help="send events without delays")
    parser.set_defaults(run=run)


def positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from mcptui.emulator.served import Recorded, ServedRecording, recorded_responses
    from mcptui.io.formats import load_path
    from mcptui.net.serve import PortUnavailable, serve_forever

    responses: list[Recorded] = []
    for path in args.recordings:
        loaded = load_path(path)
        found = recorded_responses(loaded)
        if not found:
            reason = str(loaded.problems[0]) if loaded.problems else "no responses in it"
            said = reason if reason.startswith(f"{path}: ") else f"{path}: {reason}"
            return refuse_line(f"nothing to serve in {said}")
        responses += found
    speed = 0.0 if args.instant else args.speed
    count = f"{len(responses)} recorded response{'s' if len(responses) != 1 else ''}"
    banner = (
        f"mcptui serve: {count} on {{url}}/v1  (export OPENAI_BASE_URL={{url}}/v1; "
        "any API key works; Ctrl+C stops)"
    )
    try:
        serve_forever(
            ServedRecording(responses, speed=speed).app, args.host, args.port, banner=banner
        )
    except PortUnavailable as exc:
        return refuse_line(str(exc.strerror))
    return 0
