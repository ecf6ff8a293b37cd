"""What the commands share: the parser that hides secrets, option groups, one-line
refusals (exit 2), and running an app."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from mcptui.io.reading import MAX_BYTES
from mcptui.model.textsafe import visible

if TYPE_CHECKING:
    from mcptui.share.otel_live import LiveExport
    from mcptui.sources.endpoints import LiveTarget
    from mcptui.sources.session import Session
    from mcptui.ui.safe_app import SafeApp


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What a command's `add_parser` adds its sub-parser to."""

EMULATOR_PORT = 8787
PROXY_PORT = 8788
TAP_PORT = 8790
DEMO_SERVER_PORT = 8765
EXIT_BROKEN_PIPE = 141
"""As a shell reports a command killed by SIGPIPE: the reader of the output went away."""
EXIT_INTERRUPTED = 130
"""As a shell reports a command stopped by Ctrl+C (SIGINT)."""


_collector_held = False


def hold_collector() -> None:
    """Turn the cyclic collector off while a command starts. Its imports allocate ~75k
    objects that live as long as the process (modules, classes, functions, compiled
    patterns), which the collector walked in ~100 young and ~10 middle passes: ~30 ms of a
    ~0.33 s start of `replay`'s imports (0.30-0.32 s without, alternating runs)."""
    global _collector_held
    if gc.isenabled():
        gc.disable()
        _collector_held = True


def release_collector() -> None:
    """The command has imported what it needs: the collector runs again, and what start-up
    built is frozen out of its passes (as a loaded recording is, ui/screens/loading.py). Only
    undoes `hold_collector`; a second call does nothing."""
    global _collector_held
    if _collector_held:
        _collector_held = False
        gc.freeze()
        gc.enable()


class RedactingParser(argparse.ArgumentParser):
    """argparse whose usage errors hide the command line's secrets: `unrecognized arguments`
    and `invalid value` repeat what was typed, a mistyped `--hedaer X-Api-Key=…` included."""

    def __init__(self, *args: Any, known: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.known = list(known)

    def error(self, message: str) -> NoReturn:
        from mcptui.model.redaction import hide_known, redact_text

        super().error(hide_known(redact_text(message, strict_urls=True), self.known))


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
        help="API base URL, e.g. http://127.0.0.1:8787/v1 or "
        "https://RES.openai.azure.com/openai/v1 (default: OPENAI_BASE_URL, else "
        "AZURE_OPENAI_ENDPOINT for Azure, else the OpenAI API); its query "
        "(?api-version=…) goes on every request",
    )
    add_provider_option(parser)
    parser.add_argument(
        "--record",
        metavar="PATH",
        help="recording file (default: mcptui-recordings/<time>-<response id>.jsonl)",
    )
    parser.add_argument(
        "--record-dir",
        metavar="DIR",
        help="folder for the recordings named after their response (default "
        "mcptui-recordings); handy in the configuration file's [run]",
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


def add_provider_option(parser: argparse.ArgumentParser) -> None:
    from mcptui.model.providers import PROVIDERS

    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        metavar="NAME",
        help=f"who serves the API: {', '.join(PROVIDERS)} (default: read from the base URL). "
        "azure signs with an api-key header and AZURE_OPENAI_API_KEY; the provider is "
        "recorded, shown, and named by findings where its stream differs from the openai SDK",
    )


def seconds_refused(option: str, value: float | None) -> int | None:
    """Exit 2 with one line when `option`'s seconds are not a finite number above 0 (`inf`
    overflowed a timer in the recorder child, `nan` never ended a wait); None when fine or
    not given."""
    import math

    if value is None or (math.isfinite(value) and value > 0):
        return None
    return refuse_line(f"{option} wants a number of seconds above 0")


OTLP_TIMEOUT = 10.0
"""`--otlp-timeout`'s default."""


def add_otlp_options(parser: argparse.ArgumentParser, what: str) -> None:
    """`--otlp URL` and `--otlp-timeout S`: spans sent live as `what` ends."""
    parser.add_argument(
        "--otlp",
        metavar="URL",
        default=None,
        help=f"send OpenTelemetry spans to this OTLP/HTTP endpoint as {what} "
        "(http://HOST:4318/v1/traces; a base URL gets /v1/traces); off the run's path: a "
        "collector that is down or slow never slows or stops it, and one line at the end "
        "says how many spans were sent and not. Needs pip install 'mcptui[otel]'",
    )
    parser.add_argument(
        "--otlp-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="with --otlp: how long one export may take, retries included, and how long "
        "the end waits for the last ones (default 10)",
    )


def otlp_target_or_refusal(
    args: argparse.Namespace,
) -> tuple[tuple[str, float] | None, int | None]:
    """`--otlp`'s traces URL and timeout, checked (the SDK installed, an http(s) URL, a
    positive timeout), or the exit code of a one-line refusal; (None, None) without it."""
    url = getattr(args, "otlp", None)
    timeout = getattr(args, "otlp_timeout", None)
    if (refused := seconds_refused("--otlp-timeout", timeout)) is not None:
        return None, refused
    if url is None:
        if timeout is not None:
            return None, refuse_line("--otlp-timeout needs --otlp")
        return None, None
    from mcptui.share.otel_export import INSTALL_HINT, OtelError, otel_available, traces_url

    if not otel_available():
        return None, refuse_line(INSTALL_HINT)
    try:
        return (traces_url(url), args.otlp_timeout or OTLP_TIMEOUT), None
    except OtelError as exc:
        return None, refuse_line(str(exc))


def live_export(target: tuple[str, float] | None) -> LiveExport | None:
    """The live exporter for a checked `--otlp` target (its threads start now)."""
    if target is None:
        return None
    from mcptui.share.otel_live import LiveExport

    return LiveExport(*target)


def live_target_or_refusal(args: argparse.Namespace) -> tuple[LiveTarget | None, int | None]:
    """The endpoint and key of `--base-url`, `--provider` and the environment, or the exit
    code of a one-line refusal (a key not set, an Azure URL that cannot work)."""
    import os

    from mcptui.sources.endpoints import EndpointError, live_target

    try:
        target = live_target(args.base_url, args.provider, os.environ)
    except EndpointError as exc:
        return None, refuse_line(str(exc))
    return target, None


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


def open_replay(
    path: str,
    *,
    speed: float = 1.0,
    instant: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
    whole: bool = False,
    follow: bool | None = False,
) -> Session | None:
    """The file as a session, or None once its problems are printed (exit 2); a recording
    is read on in the app, after its first screen, unless `whole`."""
    from mcptui.sources.replay import open_session

    if speed <= 0:
        refuse_line("--speed must be greater than 0")
        return None
    session = open_session(
        path, speed=speed, instant=instant, max_bytes=max_bytes, tap=tap, whole=whole, follow=follow
    )
    if not session.usable:
        for problem in session.problems:
            shown = str(problem)
            shown = shown if shown.startswith(path) else f"{path}: {shown}"
            print(f"mcptui: {visible(shown)}", file=sys.stderr)
        return None
    return session


def run_app(app: SafeApp) -> int:
    """Run the TUI; a crash exits 3 with one line (the app logs the traceback), never 0.
    The collector stays off (`hold_collector`) until its first screen is painted. The
    configuration file's theme (mcptui/cli/defaults.py) is its first; an unknown one, exit 2."""
    from mcptui.cli import defaults

    config = defaults.current
    if config is not None and config.theme is not None:
        problem = app.start_in_theme(config.theme.value)
        if problem is not None:
            from mcptui.io.config import ConfigError

            error = ConfigError(config.path, config.theme.line, "theme", problem)
            return refuse_line(f"{error} (`mcptui config` shows the settings)")
    app.when_shown = release_collector
    app.run()
    if app.crash is not None:
        print(app.crash, file=sys.stderr)
    return app.return_code or 0


def safe_streams() -> None:
    """A text that cannot be encoded (a lone surrogate, from a file name that is not UTF-8 or
    a value no reader cleaned) is written as a visible `\\udcff` escape, never raised."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
