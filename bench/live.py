"""Live-throughput benchmark: how fast the app absorbs a local stream, against a bare read of it.

The emulator (`mcptui emulate --port 0`, in its own process) answers a request with the fault
`flood:N`: N `response.output_text.delta` events sent as fast as the socket takes them. In one
run, best of `--repeat` each, the same request is read:

  bare    httpx2, raw SSE body, counting `\\n\\n`-separated blocks: the server's pace and the
          ceiling. Timed from the first byte to the last.
  app     `mcptui run` in-process and headless: `live_session` (recording to a temporary
          folder, as `mcptui run` records) and `McptuiApp(session, live=..., request=...)`
          under `run_test(headless=True, size=(160, 50))`. Frames are caught by wrapping
          `app._display`, as bench/tui_open.py does (each is also encoded to what a terminal
          would be sent). Timed from the first byte (the first event's arrival time `t`) to
          the first frame that shows the last step (header `step N / N`, the cursor on the
          newest event, the run over).
  no-tui  (information) the same LiveRun with no app: reading, parsing, recording.

Figures: events/s (events / (last painted - first byte)); lag from each event's arrival (its
`t`) to the first frame whose header shows a step past it, p50/p95/max over every event; the
header's stream clock at the end (`t=X.XXs`), which must show the server's pace: the time the
bare read took, not the app's wall time.

Targets: app >= 60,000 events/s (no-tui >= 100,000); clock <= 1.5 x bare
read time + 0.5 s. Ratios against the bare read of the same run are printed. Exit 1 when a
target is missed, 0 otherwise.

Run: `.venv/bin/python bench/live.py [--events N] [--repeat R] [--json] [--profile [TOP]]`.
The machine's load matters (it is a throughput figure): say so when it was shared.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from bisect import bisect_right
from pathlib import Path
from typing import Any

import httpx2

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcptui.sources.live import Recorder, live_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.widgets.status import StatusHeader

from bench.figures import figure
from bench.tui_open import PaintProbe

SIZE = (160, 50)
TARGET_EVENTS_PER_S = 60_000
"""Issue 37's goal for the app on the 200k blast."""
TARGET_NO_TUI_EVENTS_PER_S = 100_000
"""Issue 37's goal for `run --no-tui` (the plain run measures it)."""
CLOCK_FACTOR, CLOCK_SLACK_S = 1.5, 0.5
RUN_TIMEOUT = 600.0
API_KEY = "sk-bench"

now = time.monotonic
"""The clock LiveRun stamps arrivals with: every figure here is on it."""

STEP = re.compile(r"step (\d+) / (\d+)")
CLOCK = re.compile(r"t=(\d+\.\d+)s / (\d+\.\d+)s")


def request(events: int) -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "input": "flood",
        "stream": True,
        "metadata": {"mcptui_fault": f"flood:{events}"},
    }


# -- the emulator ----------------------------------------------------------------------------


class Emulator:
    """`mcptui emulate --port 0` in its own process (its CPU is not the app's)."""

    def __enter__(self) -> Emulator:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcptui", "emulate", "--port", "0", "--keep", "4"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"(http://\S+/v1)", line)
        if found is None:
            self.process.kill()
            raise RuntimeError(f"the emulator did not start: {line!r}")
        self.url = found.group(1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


# -- bare httpx2 -----------------------------------------------------------------------------


async def bare(url: str, events: int) -> dict[str, Any]:
    """Read the raw body, count SSE blocks; first byte → last byte."""
    blocks, size, first, last, tail = 0, 0, None, 0.0, b""
    async with httpx2.AsyncClient(timeout=RUN_TIMEOUT) as client:
        start = now()
        async with client.stream(
            "POST",
            f"{url}/responses",
            json=request(events),
            headers={"authorization": f"Bearer {API_KEY}"},
        ) as response:
            response.raise_for_status()
            async for chunk in response.aiter_raw():
                if first is None:
                    first = now()
                blocks += chunk.count(b"\n\n") + (tail == b"\n" and chunk[:1] == b"\n")
                tail = chunk[-1:]
                size += len(chunk)
            last = now()
    assert first is not None
    return {
        "events": blocks,
        "bytes": size,
        "request_to_first_byte_s": first - start,
        "read_s": last - first,
        "events_per_s": blocks / (last - first),
    }


# -- the live run without the app -------------------------------------------------------------


async def no_tui(url: str, events: int, folder: Path) -> dict[str, Any]:
    session, live = live_session(url, API_KEY, Recorder(folder=folder), source="bench")
    try:
        await live.send(request(events))
    finally:
        await live.aclose()
    end = now()
    received = session.timeline.events
    first = live.start + (received[0].t or 0.0)
    return {
        "events": len(received),
        "seconds": end - first,
        "events_per_s": len(received) / (end - first),
        "stream_time_s": (received[-1].t or 0.0) - (received[0].t or 0.0),
    }


# -- the app ---------------------------------------------------------------------------------


class FrameLog(PaintProbe):
    """Every frame of the InspectorScreen: when it was painted (each encoded as a terminal
    would get it, by PaintProbe) and the step its header shows."""

    def __init__(self, app: McptuiApp) -> None:
        super().__init__(app)
        self.stamps: list[float] = []
        self.steps: list[int] = []
        self.headers: list[str] = []

    def _wrapped(self, screen: Any, renderable: Any) -> None:
        super()._wrapped(screen, renderable)
        if renderable is None or not isinstance(screen, InspectorScreen):
            return
        header = str(screen.query_one(StatusHeader).content)
        shown = STEP.search(header)
        if shown is not None:
            self.stamps.append(now())
            self.steps.append(int(shown.group(1)))
            self.headers.append(header)


async def app_run(url: str, events: int, folder: Path) -> dict[str, Any]:
    session, live = live_session(url, API_KEY, Recorder(folder=folder), source="bench")
    app = McptuiApp(session, live=live, request=request(events))
    frames = FrameLog(app)
    async with app.run_test(size=SIZE, headless=True) as pilot:
        deadline = now() + RUN_TIMEOUT
        while (
            not live.followed
            or not live.followed[-1].terminal
            or any(w.group == "live" and w.is_running for w in app.workers)
        ):
            if now() > deadline:
                raise TimeoutError("the live run did not finish")
            await asyncio.sleep(0.005)
        total = session.timeline.total
        screen = app.screen
        assert isinstance(screen, InspectorScreen), screen
        # The figure: the first frame showing the last step. The clock: the first frame
        # painted once the screen's tick has seen the run end and stopped its clock (the
        # header says where it stopped; a frame painted before that tick still shows the
        # clock running on, as it does while a run waits for more).
        while screen.playback._was_receiving or screen.header_clock.clock_running():
            if now() > deadline:
                raise TimeoutError("the clock never stopped")
            await asyncio.sleep(0.005)
        ended = now()
        while not frames.stamps or frames.steps[-1] != total or frames.stamps[-1] < ended:
            if now() > deadline:
                raise TimeoutError("the last step was never painted")
            await asyncio.sleep(0.005)
        painted = frames.stamps[frames.steps.index(total)]
        header = frames.headers[-1]
        await pilot.pause()
    received = session.timeline.events
    arrivals = [live.start + (event.t or 0.0) for event in received]
    first = arrivals[0]
    steps = frames.steps
    assert steps == sorted(steps), "a following run's steps only rise"
    # Each event's lag: to the first frame whose header shows a step past it.
    lags = [
        frames.stamps[bisect_right(steps, index)] - arrived
        for index, arrived in enumerate(arrivals)
    ]
    clock = CLOCK.search(header)
    return {
        "events": total,
        "seconds": painted - first,
        "events_per_s": total / (painted - first),
        "frames": len(frames.stamps),
        "lag_ms": summary_ms(lags),
        "clock_s": float(clock.group(1)) if clock else None,
        "stream_time_s": arrivals[-1] - first,
        "header": next((line for line in header.splitlines() if "step" in line), header),
    }


def summary_ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return {
        "p50": pick(0.5),
        "p95": pick(0.95),
        "max": ordered[-1] * 1000,
        "mean": statistics.fmean(ordered) * 1000,
    }


def release() -> None:
    gc.unfreeze()
    gc.collect()


def best(runs: list[dict[str, Any]], key: str = "events_per_s") -> dict[str, Any]:
    chosen = max(runs, key=lambda run: run[key])
    return {**chosen, "runs": [round(run[key]) for run in runs]}


def profile_app(url: str, events: int, folder: Path, top: int) -> str:
    release()
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(app_run(url, events, folder))
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000, help="deltas in the flood")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best counts")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument(
        "--plain",
        dest="no_tui",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time the live run without the app, as `run --no-tui` (--no-plain: not)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=30,
        default=0,
        metavar="TOP",
        help="also profile one app run (profiling inflates the times)",
    )
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="mcptui-bench-live-"))
    try:
        with Emulator() as emulator:
            url = emulator.url
            bare_runs, app_runs, plain_runs = [], [], []
            for _ in range(args.repeat):
                release()
                bare_runs.append(asyncio.run(bare(url, args.events)))
                release()
                app_runs.append(asyncio.run(app_run(url, args.events, folder)))
                if args.no_tui:
                    release()
                    plain_runs.append(asyncio.run(no_tui(url, args.events, folder)))
            profile = profile_app(url, args.events, folder, args.profile) if args.profile else ""
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    bare_best = best(bare_runs)
    app_best = best(app_runs)
    bare_read = min(run["read_s"] for run in bare_runs)
    clock_limit = CLOCK_FACTOR * bare_read + CLOCK_SLACK_S
    clock = app_best["clock_s"]
    results: dict[str, Any] = {
        "events_requested": args.events,
        "repeat": args.repeat,
        "size": list(SIZE),
        "bare": bare_best,
        "app": app_best,
        "no_tui": best(plain_runs) if plain_runs else None,
        "app_over_bare": app_best["events_per_s"] / bare_best["events_per_s"],
        "clock_limit_s": clock_limit,
        "targets": {
            "app_events_per_s": TARGET_EVENTS_PER_S,
            "clock": f"<= {CLOCK_FACTOR} x bare read + {CLOCK_SLACK_S} s",
        },
    }
    results["pass_rate"] = app_best["events_per_s"] >= TARGET_EVENTS_PER_S
    results["pass_clock"] = clock is not None and clock <= clock_limit
    results["pass"] = results["pass_rate"] and results["pass_clock"]

    ok = lambda flag: "PASS" if flag else "MISS"  # noqa: E731
    print(f"live throughput, flood:{args.events:,} (best of {args.repeat}; {os.cpu_count()} cores)")
    print(
        f"  bare httpx2:  {bare_best['events']:,} events, {bare_best['bytes'] / 1e6:.1f} MB "
        f"in {bare_best['read_s']:.2f} s = {bare_best['events_per_s']:,.0f} events/s "
        f"(runs {bare_best['runs']})"
    )
    if results["no_tui"]:
        plain = results["no_tui"]
        print(
            f"  no-tui:       {plain['events']:,} events in {plain['seconds']:.2f} s = "
            f"{plain['events_per_s']:,.0f} events/s (runs {plain['runs']}; information)"
        )
    lag = app_best["lag_ms"]
    print(
        f"  app:          {app_best['events']:,} events in {app_best['seconds']:.2f} s = "
        f"{app_best['events_per_s']:,.0f} events/s (runs {app_best['runs']}), "
        f"{app_best['frames']} frames  [{ok(results['pass_rate'])}: target "
        f">= {TARGET_EVENTS_PER_S:,}]"
    )
    print(f"  app / bare:   {results['app_over_bare']:.2f}")
    print(
        f"  lag arrival → painted: p50 {lag['p50']:.0f} ms, p95 {lag['p95']:.0f} ms, "
        f"max {lag['max']:.0f} ms"
    )
    print(
        f"  header clock: {clock if clock is None else f'{clock:.2f}'} s (arrivals span "
        f"{app_best['stream_time_s']:.2f} s; bare read {bare_read:.2f} s)  "
        f"[{ok(results['pass_clock'])}: target <= {clock_limit:.2f} s]"
    )
    print(f"overall: {ok(results['pass'])}")
    figure(
        f"live app, flood {args.events // 1000}k",
        app_best["events_per_s"],
        "events/s",
        TARGET_EVENTS_PER_S,
        at_least=True,
    )
    if results["no_tui"]:
        figure(
            f"live run --no-tui, flood {args.events // 1000}k",
            results["no_tui"]["events_per_s"],
            "events/s",
            TARGET_NO_TUI_EVENTS_PER_S,
            at_least=True,
        )
    figure("live app / bare httpx2 read", results["app_over_bare"], "x", None)
    if args.json:
        print(json.dumps(results, indent=2))
    if profile:
        print(profile)
    return 0 if results["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
