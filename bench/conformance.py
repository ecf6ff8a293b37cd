"""Conformance benchmark: what `check_stream` costs on a long stream, against the reducer.

The stream is `bench/ingest.py`'s synthetic response (mostly `output_text.delta` events, MCP
calls with argument deltas, `obfuscation` padding), parsed once with `StreamIngester` (untimed).
Two figures, each the best of `--repeat` runs in this process (time.perf_counter):

  baseline       `Timeline(events).seek_end()`: the reducer folding every event, which any
                 session pays anyway
  check_stream   `check_stream(events, state)` on that end state: every event validated
                 against the installed SDK (cached by shape), sequence numbers, item order,
                 deltas against `.done`

Target: check_stream at most 3x the baseline. Exit status 1 when it is over, or when the clean
synthetic stream yields an error-level finding (something is broken).

Run: `.venv/bin/python bench/conformance.py [--events N] [--repeat R] [--seed S]
[--profile [TOP]]`.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcptui.model.conformance import check_stream
from mcptui.model.events import Event
from mcptui.model.findings import count_by_severity
from mcptui.model.ingest import StreamIngester
from mcptui.model.timeline import Timeline

from bench.ingest import build_stream

TARGET_RATIO = 3.0


def parse(stream: bytes) -> list[Event]:
    ingester = StreamIngester()
    return [*ingester.feed(stream), *ingester.finish()]


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def fold(events: list[Event]) -> Timeline:
    timeline = Timeline(events)
    timeline.seek_end()
    return timeline


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000, help="events in the stream")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best counts")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=15,
        default=0,
        metavar="TOP",
        help="also print a cProfile listing of one check_stream run",
    )
    args = parser.parse_args(argv)

    events = parse(build_stream(args.events, args.seed))
    baseline, timeline = best_of(args.repeat, lambda: fold(events))
    # Fresh Event objects per fold would not change anything: the reducer never mutates them.
    state = timeline.state
    check_s, findings = best_of(args.repeat, lambda: check_stream(timeline.events, state))
    ratio = check_s / baseline
    counts = count_by_severity(findings)

    print(f"events               {len(events):,}")
    print(f"baseline (reducer)   {baseline:.3f} s  ({len(events) / baseline:,.0f} events/s)")
    print(f"check_stream         {check_s:.3f} s  ({len(events) / check_s:,.0f} events/s)")
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
    print(
        f"ratio                {ratio:.2f}x the reducer (target <= {TARGET_RATIO:.0f}x: {verdict})"
    )
    print(
        f"findings             {counts['error']} errors, {counts['warning']} warnings, "
        f"{counts['info']} info"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(check_stream, timeline.events, state)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.profile)
        print(out.getvalue())
    if counts["error"]:
        for finding in findings[:10]:
            print(
                f"  {finding.severity} {finding.code} @{finding.event_index}: {finding.message}",
                file=sys.stderr,
            )
        return 1
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
