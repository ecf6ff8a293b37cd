"""`mcptui replay FILE` (and `mcptui FILE`): the recording in the terminal UI, or
`--screenshot` of it as SVG."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcptui.cli.common import (
    Commands,
    add_max_bytes,
    add_tap_file,
    open_replay,
    refuse_line,
    release_collector,
    run_app,
    terminal_missing,
)
from mcptui.io.reading import MAX_BYTES
from mcptui.model.textsafe import shown_path

if TYPE_CHECKING:
    from mcptui.ui.app import OpenAt


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "replay",
        help="open a recording or dump in the inspector and replay it",
        description="Replay a recording (any format inspect reads) in the terminal UI. "
        "`mcptui FILE` is a shorthand.",
    )
    parser.add_argument("file", metavar="FILE")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument(
        "--speed",
        type=float,
        default=None,
        metavar="X",
        help="replay speed relative to the recorded timing (default 1)",
    )
    pace.add_argument("--instant", action="store_true", help="apply every event at once")
    parser.add_argument(
        "--step",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="N",
        help="open paused at step N (default 0), to step event by event",
    )
    parser.add_argument(
        "--failure",
        action="store_true",
        help="open on the first failure (its error and likely cause)",
    )
    parser.add_argument(
        "--screenshot",
        metavar="OUT.svg",
        help="render the app headless (at --step N, on the --failure, else "
        "at the end) to this SVG file, redacted, and exit",
    )
    parser.add_argument(
        "--size",
        default="120x40",
        metavar="COLSxROWS",
        help="the --screenshot's terminal size (default 120x40)",
    )
    follow = parser.add_mutually_exclusive_group()
    follow.add_argument(
        "--follow",
        "-f",
        action="store_true",
        default=None,
        help="read on what is appended to the file (a recording a run or the proxy is "
        "writing, JSON lines an app appends), live; on by default when the file is still "
        "being written",
    )
    follow.add_argument(
        "--no-follow",
        dest="follow",
        action="store_false",
        help="read the file as it is now, even while it is being written",
    )
    add_tap_file(parser)
    add_max_bytes(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.step is not None and args.failure:
        return refuse_line("--step N and --failure are two places to open at: give one")
    if args.screenshot is not None:
        return screenshot(args)
    if args.follow and args.tap is not None:
        return refuse_line("--follow reads one file as it grows: give --tap only without it")
    return run_replay(
        args.file,
        speed=1.0 if args.speed is None else args.speed,
        instant=args.instant,
        step=args.step,
        failure=args.failure,
        max_bytes=args.max_bytes,
        tap=args.tap,
        follow=args.follow,
    )


def screenshot(args: argparse.Namespace) -> int:
    """Exit 0 with the SVG written, 2 when the file, the size or OUT cannot be used, 3 on an
    internal error (as any command)."""
    from mcptui.io.reading import output_problem, overwrites_input
    from mcptui.ui.screenshot import parse_size, take_screenshot

    release_collector()
    problem = output_problem(args.screenshot, "--screenshot")
    if problem is not None:
        shown = shown_path(args.screenshot) or repr("")
        return refuse_line(f"cannot write {shown}: {problem}")
    if overwrites_input(args.screenshot, [args.file] + ([args.tap] if args.tap else [])):
        return refuse_line(
            f"--screenshot {args.screenshot} is the file replayed: name another file"
        )
    size = parse_size(args.size)
    if size is None:
        return refuse_line(f"--size {args.size!r}: give COLUMNSxROWS, e.g. 120x40 (at least 20x8)")
    out = Path(args.screenshot)
    if out.is_dir():
        return refuse_line(f"--screenshot {out}: is a folder; name the .svg file to write")
    session = open_replay(
        args.file, instant=True, max_bytes=args.max_bytes, tap=args.tap, whole=True
    )  # as it is now: a screenshot follows nothing
    if session is None:
        return 2
    open_at: OpenAt = "failure" if args.failure else args.step if args.step is not None else "end"
    shot = take_screenshot(session, size=size, open_at=open_at)
    if shot.crash is not None:
        print(shot.crash, file=sys.stderr)
        return shot.return_code or 3
    if shot.svg is None:
        return refuse_line("the screenshot could not be taken")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(shot.svg, encoding="utf-8")
    except OSError as exc:
        return refuse_line(f"cannot write {out}: {exc.strerror or exc}")
    print(f"mcptui: screenshot saved to {shown_path(out)}", file=sys.stderr)
    return 0


def run_replay(
    path: str,
    *,
    speed: float,
    instant: bool,
    step: int | None,
    failure: bool = False,
    max_bytes: int = MAX_BYTES,
    tap: str | None = None,
    follow: bool | None = False,
) -> int:
    """Replay `path`; `step` opens it paused at that step, `failure` on its first failure.
    `follow`: read on what is appended (None: when it is still being written), from its end
    as it is now (a replay at a `speed` plays up to it first)."""
    session = open_replay(
        path, speed=speed, instant=instant, max_bytes=max_bytes, tap=tap, follow=follow
    )
    if session is None:
        return 2
    if follow and session.follower is None:
        return refuse_line(
            f"--follow reads a recording or one JSON event per line as it grows; {path} is "
            "read whole (give it without --follow)"
        )
    if follow and step is None and not instant and speed == 1.0:
        session.player.instant = True  # a file being written opens at its end, as `tail -f`
    refused = terminal_missing(
        f"`mcptui inspect {path}` prints it, `mcptui replay {path} --screenshot OUT.svg` draws it"
    )
    if refused is not None:
        return refused
    from mcptui.io.recent import note_opened
    from mcptui.ui.app import McptuiApp

    note_opened(path)  # the open dialog's recent files (`o`)
    return run_app(McptuiApp(session, open_at="failure" if failure else step))
