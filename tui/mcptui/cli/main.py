"""The `mcptui` command line. Imports the Textual app lazily, so `inspect` stays light."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from mcptui import __version__
from mcptui.io.reading import MAX_BYTES
from mcptui.model.jsonsafe import loads
from mcptui.model.textsafe import shown_path, visible

if TYPE_CHECKING:
    from mcptui.io.recording import Loaded
    from mcptui.probe.targets import ProbeInput
    from mcptui.sources.live import LiveRun
    from mcptui.sources.session import Session
    from mcptui.ui.safe_app import SafeApp

COMMANDS = (
    "inspect",
    "replay",
    "report",
    "diff",
    "export",
    "run",
    "attach",
    "probe",
    "proxy",
    "tap",
    "emulate",
    "demo-server",
    "demo",
)
EMULATOR_PORT = 8787
PROXY_PORT = 8788
TAP_PORT = 8790
DEMO_SERVER_PORT = 8765
EXIT_BROKEN_PIPE = 141
"""As a shell reports a command killed by SIGPIPE: the reader of the output went away."""


class RedactingParser(argparse.ArgumentParser):
    """argparse whose usage errors hide the command line's secrets: `unrecognized arguments`
    and `invalid value` repeat what was typed, a mistyped `--hedaer X-Api-Key=…` included."""

    def __init__(self, *args: Any, known: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.known = list(known)

    def error(self, message: str) -> NoReturn:
        from mcptui.model.redaction import hide_known, redact_text

        super().error(hide_known(redact_text(message, strict_urls=True), self.known))


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line; `argv`'s secrets (`argv_secrets`) are hidden from its errors."""
    from mcptui.model.redaction import argv_secrets

    known = argv_secrets(argv)
    parser = RedactingParser(
        known=known,
        prog="mcptui",
        description="Inspect OpenAI Responses API streams that use remote MCP tools.",
    )
    parser.add_argument("--version", action="version", version=f"mcptui {__version__}")
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=partial(RedactingParser, known=known)
    )

    inspect = commands.add_parser(
        "inspect",
        help="summarise recordings or stream dumps: items, statuses, failures",
        description="Summarise stream dumps: items, failures with their likely causes, "
        "timing, and conformance findings (each event checked against the installed "
        "openai SDK's types). Exit 0: no failure; 1: a failure is present (with "
        "--strict, also any error-level finding); 2: a file could not be used (the "
        "others are still reported); 3: an internal error.",
    )
    inspect.add_argument(
        "files", nargs="+", metavar="FILE", help="a recording or dump; - for stdin"
    )
    inspect.add_argument("--json", action="store_true", help="print a JSON summary instead")
    add_max_bytes(inspect)
    inspect.add_argument(
        "--strict", action="store_true", help="exit 1 on any error-level conformance finding too"
    )
    add_tap_file(inspect)

    replay = commands.add_parser(
        "replay",
        help="open a recording or dump in the inspector and replay it",
        description="Replay a recording (any format inspect reads) in the terminal UI. "
        "`mcptui FILE` is a shorthand.",
    )
    replay.add_argument("file", metavar="FILE")
    pace = replay.add_mutually_exclusive_group()
    pace.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="replay speed relative to the recorded timing (default 1)",
    )
    pace.add_argument("--instant", action="store_true", help="apply every event at once")
    replay.add_argument(
        "--step",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="N",
        help="open paused at step N (default 0), to step event by event",
    )
    replay.add_argument(
        "--failure",
        action="store_true",
        help="open on the first failure (its error and likely cause)",
    )
    replay.add_argument(
        "--screenshot",
        metavar="OUT.svg",
        help="render the app headless (at --step N, on the --failure, else "
        "at the end) to this SVG file, redacted, and exit",
    )
    replay.add_argument(
        "--size",
        default="120x40",
        metavar="COLSxROWS",
        help="the --screenshot's terminal size (default 120x40)",
    )
    add_tap_file(replay)
    add_max_bytes(replay)

    report = commands.add_parser(
        "report",
        help="a redacted report to paste into a GitHub issue or forum post",
        description="One self-contained report of recordings or dumps: the request (tools, "
        "server labels and URLs), each response's items and timing as a table, "
        "each failure with its error, likely cause, evidence and what to try "
        "(tap evidence when recorded), the findings, and the failed items' and "
        "terminal events in collapsed blocks. Secrets in the request, headers "
        "and URLs are redacted. Markdown (GitHub-flavoured) or one HTML file "
        "with no external assets. Exit codes as inspect's.",
    )
    report.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a recording or dump (any format inspect reads); - for stdin",
    )
    report.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the report here (default, or -: standard output); never over one of the FILEs",
    )
    report.add_argument(
        "--format",
        choices=("md", "html"),
        default=None,
        help="md (default) or html (the default when OUT ends in .html)",
    )
    add_tap_file(report)
    add_max_bytes(report)

    diff = commands.add_parser(
        "diff",
        help="compare two runs: where they diverge first, and how",
        description="Align two runs item by item (output index and type; MCP calls by "
        "server and tool) and say where they diverge first: an item in one run "
        "only, a call that completed in A and failed in B (with B's error and "
        "likely cause), different arguments, a different tool list (tools added "
        "or removed, schemas changed), statuses; timing and token usage are "
        "compared too. In a terminal it opens side by side; piped, or with "
        "--no-tui, it prints. Exit 0: the same shape; 1: they differ; 2: a file "
        "could not be used.",
    )
    diff.add_argument("a", metavar="A", help="the run that worked (any format inspect reads)")
    diff.add_argument("b", metavar="B", help="the run to compare with it")
    diff.add_argument("--json", action="store_true", help="print the comparison as JSON")
    diff.add_argument("--no-tui", action="store_true", help="print instead of opening the app")
    add_max_bytes(diff)

    export = commands.add_parser(
        "export",
        help="the recorded request as a curl command or a Python (openai SDK) "
        "snippet, to reproduce it",
        description="Print the request a recording (or a request file) holds as a command "
        "anyone can run: curl, a Python snippet with the openai SDK, or a request "
        "file for `mcptui run`. The API key is $OPENAI_API_KEY and every redacted "
        "value (MCP headers, tokens in server URLs) a ${VAR} placeholder, listed "
        "at the top; OPENAI_BASE_URL, when set, points it elsewhere. Exit 0: "
        "written; 2: FILE holds no request or cannot be read, or OUT cannot be "
        "written.",
    )
    export.add_argument(
        "file", metavar="FILE", help="a recording with a request, or a request file"
    )
    export.add_argument(
        "--format",
        choices=("curl", "python", "request"),
        default=None,
        help="curl (default), python, or request (JSON for `mcptui run`); "
        "with -o, taken from OUT's extension (.sh, .py, .json) unless given",
    )
    export.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write it here (default, or -: standard output); never over FILE",
    )

    run = commands.add_parser(
        "run",
        help="send a Responses request and inspect its stream live",
        description="Send REQUEST.json (a Responses API request body) with the openai SDK, "
        "show the stream live and record it. Needs OPENAI_API_KEY; --base-url or "
        "OPENAI_BASE_URL points it elsewhere (e.g. `mcptui emulate`). Exit codes "
        "with --no-tui: 0 clean, 1 a failure, 2 could not run.",
    )
    run.add_argument("request", metavar="REQUEST.json")
    add_live_options(run)
    run.add_argument(
        "--tap",
        action="store_true",
        help="put a tap in front of each MCP server (see `mcptui tap`): the "
        "request goes out with the taps' URLs, and what OpenAI's servers "
        "send each server and its answers join the stream in one timeline "
        "and recording",
    )
    run.add_argument(
        "--tap-public-url",
        action="append",
        default=[],
        metavar="URL",
        help="the tunnel URL (ngrok, cloudflared) at which OpenAI's servers "
        "reach a tap: once per MCP server, in the request's order; the "
        f"taps then listen on --tap-port, +1, … (default {TAP_PORT})",
    )
    run.add_argument(
        "--tap-port",
        type=port_number,
        default=None,
        metavar="PORT",
        help=f"the first tap's port (default: a free one, or {TAP_PORT} with --tap-public-url)",
    )

    attach = commands.add_parser(
        "attach",
        help="follow an existing background response",
        description="Stream a background response (GET /v1/responses/ID?stream=true), "
        "resuming after drops, and record it.",
    )
    attach.add_argument("response_id", metavar="RESP_ID")
    attach.add_argument(
        "--after",
        type=int,
        default=None,
        metavar="N",
        help="start after sequence number N (default: from the start)",
    )
    add_live_options(attach)

    probe = commands.add_parser(
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
    probe.add_argument(
        "request",
        metavar="URL-or-FILE",
        help="an MCP server's URL, a request file, or a recording or stream dump (- for stdin)",
    )
    probe.add_argument(
        "--recording",
        metavar="FILE",
        help="re-run the failed mcp_calls of this recording (any format "
        "inspect reads) on the servers FILE names, instead of FILE's "
        "own; with --tool, only that tool's",
    )
    probe.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="send this header to every server probed, replacing the file's "
        "(redacted) one of that name, e.g. --header "
        "'Authorization=Bearer ${TOKEN}'; ${NAME} is the environment "
        "variable NAME. Repeatable; values are never printed",
    )
    probe.add_argument(
        "--tool", metavar="NAME", help="call this tool on every server that offers it"
    )
    probe.add_argument(
        "--args", metavar="JSON", help="the --tool call's arguments, a JSON object (default {})"
    )
    probe.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait for connecting and for each call (default: for "
        "recorded failures, the tool time limit that applied to their "
        "response; else 60, about where OpenAI gives up)",
    )
    probe.add_argument(
        "--transport",
        choices=("sse", "streamable_http"),
        help="force the transport (default: SSE for URLs ending in /sse, else streamable HTTP)",
    )
    probe.add_argument(
        "--mcp-protocol",
        choices=("legacy", "modern", "auto"),
        default="auto",
        help="which MCP revisions to ask each server about: auto (default) "
        "sends server/discover (2026-07-28) and, separately, initialize "
        "(2025-11-25), reports which it speaks, and calls tools in the "
        "era OpenAI's client meets (legacy, unless the server speaks only "
        "2026-07-28); legacy or modern asks and calls in that era only",
    )
    probe.add_argument("--json", action="store_true", help="print a JSON report instead")

    proxy = commands.add_parser(
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
    proxy.add_argument(
        "--port",
        type=port_number,
        default=PROXY_PORT,
        help=f"port on 127.0.0.1 (default {PROXY_PORT}; 0 for a free one)",
    )
    proxy.add_argument(
        "--upstream",
        metavar="URL",
        default=None,
        help="the API to forward to (default https://api.openai.com/v1; e.g. "
        "http://127.0.0.1:8787/v1 for `mcptui emulate`)",
    )
    proxy.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="folder for the recordings (default mcptui-recordings)",
    )
    proxy.add_argument(
        "--no-tui",
        action="store_true",
        help="print one line per response and its failures instead of the terminal UI",
    )

    tap = commands.add_parser(
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
    tap.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the MCP server's URL, as the request's server_url names it, e.g. "
        "http://127.0.0.1:8765/mcp",
    )
    tap.add_argument(
        "--port",
        type=port_number,
        default=TAP_PORT,
        help=f"port on 127.0.0.1 (default {TAP_PORT}; 0 for a free one)",
    )
    tap.add_argument(
        "--record",
        metavar="FILE",
        default=None,
        help="recording file (default mcptui-recordings/<time>-tap.jsonl)",
    )
    tap.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="the tunnel URL OpenAI's servers reach the tap at (ngrok, "
        "cloudflared): the printed server_url uses it",
    )
    tap.add_argument(
        "--no-tui", action="store_true", help="print a line per message instead of the terminal UI"
    )

    emulate = commands.add_parser(
        "emulate",
        help="run a local Responses API emulator (no API key, no model)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve POST /v1/responses and friends on loopback, calling the request's "
        "MCP servers for real. A scripted stand-in for the model makes one tool "
        "call per input line `call <tool> <json arguments>`.\n\nFaults, per "
        "request in metadata.mcptui_fault (comma-separated):\n" + fault_help(),
    )
    add_server_options(emulate, EMULATOR_PORT)
    emulate.add_argument(
        "--keep",
        type=int,
        default=1000,
        metavar="N",
        help="finished responses kept for GET and resume (default 1000; "
        "the least recently used go first)",
    )
    emulate.add_argument(
        "--tool-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds before a tool call fails with the 424 (default 60)",
    )
    emulate.add_argument(
        "--mcp-protocol",
        choices=("legacy", "modern", "auto"),
        default="legacy",
        help="the MCP era the emulator's client speaks to the request's "
        "servers: legacy (default: the 2025-11-25 initialize handshake, "
        "as OpenAI's client is believed to), modern (2026-07-28 "
        "server/discover, stateless) or auto (discover, else initialize)",
    )

    demo_server = commands.add_parser(
        "demo-server",
        help="run an MCP server whose tools reproduce common failures",
        description="Streamable HTTP at /mcp, SSE at /sse. Tools: search, slow_search, "
        "failing_api, broken_schema, mismatched_schema, bad_content, start_job, "
        "check_job, protocol_error. The options below add failures that are not "
        "a tool's.",
    )
    add_server_options(demo_server, DEMO_SERVER_PORT)
    demo_server.add_argument(
        "--token", metavar="T", help="refuse requests without Authorization: Bearer T"
    )
    demo_server.add_argument(
        "--path-token", metavar="T", help="serve under /s/T/ (a secret in the URL's path)"
    )
    demo_server.add_argument(
        "--call-token",
        metavar="T",
        help="list tools for anyone, but answer 401 to a tools/call "
        "without Authorization: Bearer T",
    )
    demo_server.add_argument(
        "--host-check",
        action="store_true",
        help="DNS-rebinding protection: answer 421 to any Host header "
        "but localhost (reach it at 127.0.0.1, as a tunnel would)",
    )
    demo_server.add_argument(
        "--forget-sessions",
        action="store_true",
        help="forget each session once it has listed tools: the call "
        "gets 404 for its stale session id, as from a restarted "
        "server or another instance behind a load balancer. Legacy "
        "era (initialize, Mcp-Session-Id) only: 2026-07-28 clients "
        "have no session, so they are unaffected",
    )
    era = demo_server.add_mutually_exclusive_group()
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

    demo = commands.add_parser(
        "demo",
        help="try mcptui without an API key: emulator + demo server + live view",
        description="Start the emulator and the demo MCP server on free loopback ports, send "
        "a request with one successful call and the classic 424, and show it "
        "live. Both servers stop when you quit.",
    )
    demo.add_argument(
        "--no-tui",
        action="store_true",
        help="print progress lines and a summary instead of the terminal UI",
    )
    demo.add_argument(
        "--record",
        metavar="PATH",
        help="recording file (default: mcptui-recordings/<time>-<response id>.jsonl)",
    )
    return parser


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535, for argparse: anything else is a usage error (exit 2), not an
    OverflowError from the socket (exit 3)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535)")
    return port


def add_server_options(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=port_number, default=port, help=f"port (default {port})")


def add_tap_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tap",
        metavar="TAPFILE",
        default=None,
        help="a recording of `mcptui tap` made beside this stream: its MCP "
        "messages are merged in (aligned on the first tools/call with the "
        "same tool and arguments, else on the listing)",
    )


def add_max_bytes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=MAX_BYTES,
        metavar="N",
        help=f"read at most N bytes of a file (default {MAX_BYTES}, 256 MiB); "
        "a pipe or FIFO that sends nothing for 10 s is given up",
    )


def add_live_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="API base URL, e.g. http://127.0.0.1:8787/v1 (default: "
        "OPENAI_BASE_URL, else the OpenAI API)",
    )
    parser.add_argument(
        "--record",
        metavar="PATH",
        help="recording file (default: mcptui-recordings/<time>-<response id>.jsonl)",
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="print progress lines and a summary instead of the terminal UI",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=None,
        metavar="S",
        help="give up on a stream that sends nothing for S seconds (a "
        "background stream is resumed instead)",
    )


def fault_help() -> str:
    from mcptui.emulator.faults import FAULTS

    return "\n".join(f"  {name:18} {text}" for name, text in FAULTS.items())


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes: 0 clean, 1 a failure in the stream, 2 unusable input or options, 3 an
    internal error (one line on stderr, the traceback in mcptui-recordings/mcptui-error.log)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv = ["replay", *argv]  # `mcptui FILE` opens the file
    argv = bare_step(argv)
    safe_streams()
    args = build_parser(argv).parse_args(argv)
    try:
        return dispatch(args)
    except BrokenPipeError:  # `| head` read enough: no traceback, no error log
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug: never a bare traceback, never exit 1 ("a failure")
        from mcptui.io.crash_log import report_crash

        return report_crash(exc)


def safe_streams() -> None:
    """A text that cannot be encoded (a lone surrogate, from a file name that is not UTF-8 or
    a value no reader cleaned) is written as a visible `\\udcff` escape, never raised."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def bare_step(argv: list[str]) -> list[str]:
    """`replay --step FILE` (a bare --step, then the file) keeps meaning step 0: argparse
    would take FILE as --step's number."""
    out = list(argv)
    for index, word in enumerate(out[:-1]):
        if word == "--step" and not out[index + 1].isdigit():
            out[index] = "--step=0"
    return out


def dispatch(args: argparse.Namespace) -> int:
    for option in ("max_bytes", "keep"):
        if getattr(args, option, 1) < 1:
            return refuse_line(f"--{option.replace('_', '-')} must be at least 1")
    tap_file = (
        getattr(args, "tap", None) if args.command in ("inspect", "replay", "report") else None
    )
    if isinstance(tap_file, str) and tap_file != "-" and not Path(tap_file).is_file():
        return refuse_line(f"--tap {tap_file}: no such file (a recording of `mcptui tap`)")
    if args.command == "inspect":
        if args.tap and len(args.files) > 1:
            return refuse_line("--tap merges a tap recording into one stream: give one FILE")
        return run_inspect(
            args.files,
            as_json=args.json,
            strict=args.strict,
            max_bytes=args.max_bytes,
            tap=args.tap,
        )
    if args.command == "replay":
        if args.step is not None and args.failure:
            return refuse_line("--step N and --failure are two places to open at: give one")
        if args.screenshot is not None:
            from mcptui.io.reading import output_problem, overwrites_input
            from mcptui.model.textsafe import shown_path
            from mcptui.ui.screenshot import take_screenshot

            problem = output_problem(args.screenshot, "--screenshot")
            if problem is not None:
                shown = shown_path(args.screenshot) or repr("")
                return refuse_line(f"cannot write {shown}: {problem}")
            if overwrites_input(args.screenshot, [args.file] + ([args.tap] if args.tap else [])):
                return refuse_line(
                    f"--screenshot {args.screenshot} is the file replayed: name another file"
                )

            return take_screenshot(args)
        return run_replay(
            args.file,
            speed=args.speed,
            instant=args.instant,
            step=args.step,
            failure=args.failure,
            max_bytes=args.max_bytes,
            tap=args.tap,
        )
    if args.command == "report":
        from mcptui.share.report import run_report

        return run_report(args)
    if args.command == "diff":
        from mcptui.share.diff_output import run_diff

        return run_diff(args)
    if args.command == "export":
        from mcptui.share.export import run_export

        return run_export(args)
    if args.command in ("run", "attach"):
        return run_request(args)
    if args.command == "probe":
        return run_probe(args)
    if args.command == "proxy":
        return run_proxy(args)
    if args.command == "tap":
        return run_tap(args)
    if args.command in ("emulate", "demo-server"):
        from mcptui.net.serve import PortUnavailable

        try:
            if args.command == "emulate":
                return run_emulate(
                    args.host,
                    args.port,
                    args.tool_timeout,
                    args.keep,
                    mcp_protocol=args.mcp_protocol,
                )
            from mcptui.emulator.demo_server import DemoModes, run_demo_server

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
            return 0
        except PortUnavailable as exc:
            print(f"mcptui: {exc.strerror}", file=sys.stderr)
            return 2
    if args.command == "demo":
        return run_demo(no_tui=args.no_tui, record=args.record)
    build_parser().print_help()
    return 2


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
        "Ctrl+C stops)"
    )
    config = RunConfig(tool_timeout=tool_timeout, mcp_protocol=mcp_protocol)
    serve_forever(Emulator(config, keep=keep).app, host, port, banner=banner)
    return 0


def run_demo(*, no_tui: bool, record: str | None) -> int:
    from pathlib import Path

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


def run_request(args: argparse.Namespace) -> int:
    """`mcptui run` and `mcptui attach`: check what can be checked before any network."""
    import os
    from pathlib import Path

    from mcptui.sources.request_file import RequestFileError, load_request

    request = None
    if args.command == "run":
        try:
            request = load_request(args.request)
        except RequestFileError as exc:
            print(f"mcptui: {exc}", file=sys.stderr)
            return 2
    api_key = os.environ.get("OPENAI_API_KEY", "")
    if not api_key:
        print(
            "mcptui: OPENAI_API_KEY is not set. Export your key, or try without one: "
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
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL") or None
    recorder = Recorder(
        Path(args.record) if args.record else None,
        response_id=None if request is not None else args.response_id,
    )
    source = args.request if request is not None else f"attach {args.response_id}"
    session, live = live_session(
        base_url, api_key, recorder, source=source, idle_timeout=args.idle_timeout, taps=taps
    )
    if request is not None:
        code = run_live(session, live, request, no_tui=args.no_tui)
    else:
        code = run_live(
            session, live, None, no_tui=args.no_tui, attach=(args.response_id, args.after)
        )
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


def run_proxy(args: argparse.Namespace) -> int:
    """`mcptui proxy`: refusals (a bad upstream, a busy port) are one line and exit 2."""
    from pathlib import Path

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
    try:
        upstream = check_upstream(args.upstream or DEFAULT_UPSTREAM, args.port).rstrip("/")
        if args.no_tui:
            from rich.console import Console

            console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
            return serve_lines(upstream, args.port, record_dir, console)
        service = ProxyService(upstream, args.port, record_dir)
    except (UpstreamError, PortUnavailable) as exc:
        return refuse_line(str(exc.strerror if isinstance(exc, PortUnavailable) else exc))
    refused = terminal_missing("add --no-tui to print a line per request")
    if refused is not None:  # bound (a busy port said first), never served
        service.stop()
        return refused
    from mcptui.ui.app import McptuiApp

    code = run_app(McptuiApp(service.session(), proxy=service))
    count = len(service.hub.captures)
    print(
        f"mcptui: the proxy captured {count} response{'s' if count != 1 else ''}"
        + (f", recorded in {shown_path(record_dir)}/" if count else ""),
        file=sys.stderr,
    )
    return code


def run_tap(args: argparse.Namespace) -> int:
    """`mcptui tap`: refusals (a bad upstream, a busy port, a file it cannot write) are one
    line and exit 2."""
    from pathlib import Path

    from rich.console import Console

    from mcptui.capture.proxy_run import UpstreamError, check_upstream
    from mcptui.capture.tap_run import TapService, serve_tap_lines
    from mcptui.net.serve import PortUnavailable

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
    try:
        upstream = check_upstream(
            args.upstream, args.port, itself="the tap", example="http://127.0.0.1:8765/mcp"
        )
        record = Path(args.record) if args.record else None
        if args.no_tui:
            return serve_tap_lines(upstream, args.port, record, args.public_url, console)
        service = TapService(upstream, args.port, record, args.public_url)
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
    recorded = shown_path(service.hub.path_of_recording)
    print(
        f"mcptui: the tap recorded {service.hub.messages} message"
        f"{'s' if service.hub.messages != 1 else ''} in {recorded}",
        file=sys.stderr,
    )
    return code


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
    target.request = with_headers(target.request, supplied)
    target.supplied = [name for name, _value in supplied]
    target.recording = recording
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
                redacted_source=target.echoed and not target.supplied,
            )
        )
    except KeyboardInterrupt:
        print("mcptui: interrupted", file=sys.stderr)
        return 130
    if note is not None:
        report.notes.insert(0, note)
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


def refuse_line(message: str) -> int:
    """One line on stderr, exit 2: a file name in `message` can not act on the terminal."""
    print(f"mcptui: {visible(message)}", file=sys.stderr)
    return 2


def record_refused(record: str | None) -> int | None:
    """Exit 2 with one line, before anything is sent, for a --record path no recording can be
    written to (its folder is a file, it is a folder or a pipe)."""
    from mcptui.io.reading import output_problem
    from mcptui.model.textsafe import shown_path

    problem = output_problem(record, "--record") if record is not None else None
    if problem is None:
        return None
    return refuse_line(f"cannot record to {shown_path(record) or repr('')}: {problem}")


def terminal_missing(instead: str) -> int | None:
    """Exit 2 with one line when the terminal UI has no terminal to draw on (standard input
    or output redirected): it would never end, and fill the output with escape codes."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return None
    which = "standard output" if not sys.stdout.isatty() else "standard input"
    return refuse_line(f"the terminal UI needs a terminal, and {which} is not one: {instead}")


def run_replay(
    path: str,
    *,
    speed: float,
    instant: bool,
    step: int | None,
    failure: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
) -> int:
    """Replay `path`; `step` opens it paused at that step, `failure` on its first failure."""
    session = open_replay(path, speed=speed, instant=instant, max_bytes=max_bytes, tap=tap)
    if session is None:
        return 2
    refused = terminal_missing(
        f"`mcptui inspect {path}` prints it, `mcptui replay {path} --screenshot OUT.svg` draws it"
    )
    if refused is not None:
        return refused
    from mcptui.ui.app import McptuiApp

    return run_app(McptuiApp(session, open_at="failure" if failure else step))


def open_replay(
    path: str,
    *,
    speed: float = 1.0,
    instant: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
    whole: bool = False,
) -> Session | None:
    """The file as a session, or None once its problems are printed (exit 2); a recording
    is read on in the app, after its first screen, unless `whole`."""
    from mcptui.sources.replay import open_session

    if speed <= 0:
        refuse_line("--speed must be greater than 0")
        return None
    session = open_session(
        path, speed=speed, instant=instant, max_bytes=max_bytes, tap=tap, whole=whole
    )
    if not session.usable:
        for problem in session.problems:
            shown = str(problem)
            shown = shown if shown.startswith(path) else f"{path}: {shown}"
            print(f"mcptui: {visible(shown)}", file=sys.stderr)
        return None
    return session


def run_app(app: SafeApp) -> int:
    """Run the TUI; a crash exits 3 with one line (the app logs the traceback), never 0."""
    app.run()
    if app.crash is not None:
        print(app.crash, file=sys.stderr)
    return app.return_code or 0


def run_inspect(
    paths: Sequence[str],
    *,
    as_json: bool,
    strict: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
) -> int:
    from rich.console import Console
    from rich.text import Text

    from mcptui.share.inspect_output import (
        Inspection,
        exit_code,
        print_json,
        render,
        tools_of,
        tools_section,
    )
    from mcptui.sources.replay import load_merged

    inspections = [Inspection.of(load_merged(path, tap, max_bytes)) for path in paths]
    # Piped output is for grep and scripts: don't wrap lines at 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
    if as_json:
        print_json(inspections, sys.stdout)
    else:
        for inspection in inspections:
            console.print(render(inspection))
        if len(inspections) > 1 and (stats := tools_of(inspections)):
            console.print(tools_section(stats, len(inspections)))
    code = exit_code(inspections, strict=strict)
    unusable = [i.loaded for i in inspections if not i.loaded.usable]
    if unusable and not as_json:
        what = (
            "nothing usable could be read"
            if len(unusable) == len(inspections)
            else f"{len(unusable)} of {len(inspections)} files could not be used: "
            f"{', '.join(loaded.source for loaded in unusable[:3])}"
        )
        if len(unusable) == 1 and unusable[0].problems:  # the reason, where it is one
            what += f": {unusable[0].problems[0]}"
        Console(stderr=True).print(
            Text(visible(f"mcptui: {what}")), style="bold red", highlight=False
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
