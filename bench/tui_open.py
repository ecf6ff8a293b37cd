"""TUI benchmark: time to first paint of a 200k-event recording, and single-step latency.

The recording is generated first (`bench/ingest.py`'s `build_stream`, parsed with
`StreamIngester`, events 2 ms apart, written with `save_recording` to `bench/out/`, which git
ignores); generation is timed and printed but is not one of the measured figures.

All app runs are headless (`App.run_test(size=(160, 50), headless=True)`). Headless Textual
still lays out and renders every frame (`Screen._compositor_refresh` → `Compositor.
render_update` → `App._display`) and only skips writing it to the terminal; the benchmark wraps
the app's `_display` so that each frame is also encoded to the escape sequence a terminal would
get (`CompositorUpdate.render_segments`), then stamps the time. "Painted at step K" is the end
of the first such frame of the InspectorScreen in which: the timeline is at step K, the tree has
one node per response (none at step 0), the cursor is on the newest event's node (the
follow-the-cursor callback has run; K > 0), the detail pane has been drawn for step K (K > 0),
the header reads `step K / N`, and (K > 0) the footer shows the keys of step K (a failed
item's `probe` too). No harness call
(`pilot.pause`, which sleeps and forces a refresh) runs while a figure is being timed.

First paint, best of `--repeat` runs per mode, each a fresh app in this process:

  load              `open_session(path)`: read, sniff and parse the file, build the timeline
                    and the player (the call `mcptui replay FILE` makes)
  mount → painted   from the end of load: `McptuiApp(session, paused=...)`, `run_test` (driver,
                    CSS, compose, `InspectorScreen.on_mount`), playback ticks, to painted at K
  total             load + mount → painted (interpreter start-up and imports excluded)

  step     `mcptui replay FILE --step`: paused at step 0, K = 0
  instant  `mcptui replay FILE --instant`: the first 30 Hz playback tick applies every event
           (seek to the end, tree rebuilt, cursor to the last event), K = N

  Also (information, `--no-cold` skips it): the same in a fresh `python` per run, timed from
  spawning it, so start-up, imports, Textual's lazy loading and first-touch memory are in. A
  user always gets this cold case; the in-process best-of is the steady-state figure.

Step latency: one app opened with `--step` (GC on). At three places (the middle of the stream,
50 events before the first item boundary after the middle, 100 events before the end) the
cursor is put with `screen.playback.go_to(start)`, then `--steps-per-block` `right` keys and as many
`left` keys follow. Each is timed from posting the `Key` event to the app (as the terminal
driver does) to painted at the new step: binding, `go_to`, tree sync, header, the follow
callback and the repaint, frame pacing included; the app is then let settle, untimed. Reported
in ms as p50/p95/max, forward and back separately, with (information) the CPU time the process
used per step and the part spent in `go_to` + `_follow_newest`, the slowest steps, and the
collector's time during timed steps. "Jump to failure" is one `f` from step 0, timed the same
way.

Baseline, same run: bare `json.loads` of every line of the recording (read + decode + split
included, objects not kept), the floor for loading; `load / json` is printed. Information:
the same keeping the objects (collector paused, as the loader does).

Memory: in a fresh python, the resident memory the session holds once the file is read whole
and folded to the end (as `--instant` shows it), per event, against 1 KB.

Targets: first paint total <= 0.5 s (step) / 1.0 s (instant) up to 200k events, 1.0 s / 3.0 s
above; step p95 <= 16 ms (one 60 Hz frame, forward and back); memory <= 1 KB an event.
A recording is read a piece at a time: `--step` paints its first screen after the first piece
(the header says how much is read), `--instant` once all of it is read and folded.
Exit status 1 when a target is missed.

Run: `.venv/bin/python bench/tui_open.py [--events N] [--repeat R] [--steps-per-block S]
[--reuse] [--no-cold] [--json] [--profile [TOP]]`. `--profile` adds cProfile listings of one
first paint per mode and of the timed steps (profiling inflates the times several-fold).
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
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from textual import events

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcptui.io.reading import MAX_BYTES
from mcptui.io.recording import make_header, save_recording
from mcptui.model.ingest import StreamIngester
from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from mcptui.ui.screens.inspector import InspectorScreen
from mcptui.ui.screens.playback import Playback
from mcptui.ui.widgets.footer import FittingFooter
from mcptui.ui.widgets.status import StatusHeader

from bench.figures import figure
from bench.ingest import build_stream

SIZE = (160, 50)
EVENT_GAP = 0.002
"""Seconds between consecutive events' recorded arrival times."""
OUT_DIR = Path(__file__).resolve().parent / "out"
PAINT_TIMEOUT = 120.0
TARGETS_FIRST_PAINT_S = {"step": 0.5, "instant": 1.0}
"""First paint, up to 200k events (`--events` above that: `TARGETS_FIRST_PAINT_S_1M`)."""
TARGETS_FIRST_PAINT_S_1M = {"step": 1.0, "instant": 3.0}
TARGET_STEP_P95_MS = 16.0
"""One frame at 60 Hz."""
TARGET_BYTES_PER_EVENT = 1024

perf = time.perf_counter


# -- the recording ---------------------------------------------------------------------------


def generate(path: Path, n_events: int, seed: int) -> int:
    """Write an mcptui recording of the synthetic stream; returns the number of events."""
    stream = build_stream(n_events, seed)
    ingester = StreamIngester()
    events = ingester.feed(stream) + ingester.finish()
    for index, event in enumerate(events):
        event.t = index * EVENT_GAP
    header = make_header("bench", generator="bench/tui_open.py", events=n_events, seed=seed)
    path.unlink(missing_ok=True)
    save_recording(path, header, events)
    count = len(events)
    del events, stream
    release()
    return count


def release() -> None:
    """Forget what earlier runs froze (the loader and ingester call gc.freeze) and collect."""
    gc.unfreeze()
    gc.collect()


# -- baseline --------------------------------------------------------------------------------


def json_bare(path: Path) -> int:
    loads = json.loads
    count = 0
    for line in path.read_bytes().decode("utf-8").split("\n"):
        if line:
            loads(line)
            count += 1
    return count


def json_kept(path: Path) -> int:
    loads = json.loads
    gc.disable()
    try:
        kept = [loads(line) for line in path.read_bytes().decode("utf-8").split("\n") if line]
    finally:
        gc.enable()
    return len(kept)


def best_of(repeat: int, run: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(repeat):
        release()
        start = perf()
        run()
        best = min(best, perf() - start)
    release()
    return best


# -- first paint -----------------------------------------------------------------------------


END = -1
"""The step to expect at the end of an instant replay: the file's last, once all is read."""


def any_size(path: Path) -> int:
    """`--max-bytes` for the file whatever its size (a million events are 340 MB, over the
    default bound: the app would open it empty and say so, as a user sees it without the
    flag)."""
    return max(MAX_BYTES, Path(path).stat().st_size)


class PaintProbe:
    """Wraps `app._display`: encodes each frame as a terminal would, and stamps the first frame
    of the InspectorScreen that shows step `expected` (re-armed with `expect` for each step)."""

    def __init__(self, app: McptuiApp, expected: int | None = None) -> None:
        self.app = app
        self.frames = 0
        self.expected: int | None = None
        self.painted_at: float | None = None
        self.painted = asyncio.Event()
        self._display = app._display
        app._display = self._wrapped  # type: ignore[method-assign]
        if expected is not None:
            self.expect(expected)

    def expect(self, step: int) -> None:
        self.expected = step
        self.painted_at = None
        self.painted = asyncio.Event()

    def _wrapped(self, screen: Any, renderable: Any) -> None:
        self._display(screen, renderable)
        if renderable is None:
            return
        render_segments = getattr(renderable, "render_segments", None)
        if render_segments is not None:  # what a real terminal driver would be sent
            render_segments(self.app.console)
        stamp = perf()
        self.frames += 1
        if (
            self.expected is not None
            and isinstance(screen, InspectorScreen)
            and self.shows(screen, self.expected)
        ):
            self.expected = None
            self.painted_at = stamp
            self.painted.set()

    @staticmethod
    def shows(screen: InspectorScreen, step: int) -> bool:
        """The screen is at `step`: timeline, header, one node per response, and the cursor on
        the newest event's node (the follow callback has run) or, after `f` or at the end of
        an instant replay with a failure, on the node the screen put it on (the failed item);
        and the detail pane drawn at this step (not still showing the previous one)."""
        timeline = screen.session.timeline
        if step == END:
            if screen.session.loading is not None:
                return False
            step = timeline.total  # the end of the file, known once all of it is read
        if timeline.position != step:
            return False
        if step and screen.session.loading is not None:
            return False  # past step 0 means "all of it read"
        tree = screen.tree
        if len(tree.root.children) != len(timeline.state.responses):
            return False  # at step 0 there is no response yet, so no node either
        if (
            step
            and tree.cursor_node is not tree.node_for_event(step - 1)
            and (screen.playback.follow or tree.cursor_node is not screen.playback._placed)
        ):
            return False
        if step and screen.detail_view.detail_step != step:
            return False  # the detail pane still shows an earlier step
        header = str(screen.query_one(StatusHeader).content)
        if f"step {step} / {timeline.total}" not in header:
            return False
        footer = screen.query_one(FittingFooter)  # the keys of this step (a failure's too)
        return not step or footer.shows_keys_of(screen)

    async def wait(self) -> float:
        await asyncio.wait_for(self.painted.wait(), PAINT_TIMEOUT)
        assert self.painted_at is not None
        return self.painted_at


class Timings:
    """Durations of calls to some methods of the screen's Playback (patched while in use)."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self.samples: dict[str, list[float]] = {name: [] for name in names}
        self._originals: dict[str, Any] = {}
        self._inside = False

    def __enter__(self) -> Timings:
        for name in self.names:
            original = self._originals[name] = getattr(Playback, name)
            setattr(Playback, name, self._timed(original, self.samples[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._originals.items():
            setattr(Playback, name, original)

    def _timed(self, original: Callable[..., Any], samples: list[float]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self._inside:  # called from another timed method (go_to follows): counted there
                return original(*args, **kwargs)
            self._inside = True
            start = perf()
            try:
                return original(*args, **kwargs)
            finally:
                samples.append(perf() - start)
                self._inside = False

        return wrapper

    def clear(self) -> None:
        for samples in self.samples.values():
            samples.clear()

    def total(self) -> float:
        return sum(sum(samples) for samples in self.samples.values())


_mount_log: list[tuple[float, float]] = []


@contextmanager
def timed_screen_mount() -> Iterator[None]:
    """Record start and end of each `InspectorScreen.on_mount` (restored afterwards)."""
    original = InspectorScreen.on_mount

    def on_mount(self: InspectorScreen) -> None:
        start = perf()
        original(self)
        _mount_log.append((start, perf()))

    InspectorScreen.on_mount = on_mount  # type: ignore[method-assign]
    try:
        yield
    finally:
        InspectorScreen.on_mount = original  # type: ignore[method-assign]


async def first_paint(path: Path, mode: str) -> dict[str, float]:
    """One timed open of `path` in `mode` ("step" or "instant"), in a fresh app."""
    _mount_log.clear()
    start = perf()
    session = open_session(str(path), instant=mode == "instant", max_bytes=any_size(path))
    loaded = perf()
    app = McptuiApp(session, paused=mode == "step")
    probe = PaintProbe(app, 0 if mode == "step" else END)
    with Timings("go_to", "_follow_newest") as timings:
        async with app.run_test(size=SIZE, headless=True) as pilot:
            painted = await probe.wait()
            done = {name: sum(samples) for name, samples in timings.samples.items()}
            assert isinstance(app.screen, InspectorScreen), app.screen
            await pilot.pause()
    assert _mount_log, "InspectorScreen.on_mount did not run"
    mount_start, mount_end = _mount_log[0]
    return {
        "load_s": loaded - start,
        "mount_to_painted_s": painted - loaded,
        "app_start_to_screen_mount_s": mount_start - loaded,
        "screen_on_mount_s": mount_end - mount_start,
        "screen_mount_to_painted_s": painted - mount_end,
        "go_to_s": done["go_to"],
        "follow_s": done["_follow_newest"],
        "total_s": painted - start,
        "frames": probe.frames,
        "start_abs": start,
        "painted_abs": painted,
    }


def best_first_paint(path: Path, mode: str, repeat: int) -> dict[str, Any]:
    runs = []
    for _ in range(repeat):
        release()
        with timed_screen_mount():
            runs.append(asyncio.run(first_paint(path, mode)))
    release()
    best = min(runs, key=lambda run: run["total_s"])
    return {
        **best,
        "best_load_s": min(run["load_s"] for run in runs),
        "runs_total_s": [run["total_s"] for run in runs],
        "runs": runs,
    }


def cold_first_paint(path: Path, mode: str, repeat: int) -> dict[str, Any] | None:
    """First paint in a fresh interpreter, as `mcptui replay` runs: from spawning `python` to
    the painted frame (start-up, imports, first-touch memory and Textual's lazy loading in).
    Returns None where perf_counter is not the system-wide monotonic clock."""
    if time.get_clock_info("perf_counter").implementation != "clock_gettime(CLOCK_MONOTONIC)":
        return None
    runs = []
    for _ in range(repeat):
        spawned = perf()
        child = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--cold-child",
                mode,
                "--out",
                str(path),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(child.stdout.strip().splitlines()[-1])
        runs.append(
            {
                "total_s": row["painted_abs"] - spawned,
                "startup_imports_s": row["start_abs"] - spawned,
                "load_s": row["load_s"],
                "mount_to_painted_s": row["mount_to_painted_s"],
            }
        )
    best = min(runs, key=lambda run: run["total_s"])
    return {**best, "runs_total_s": [run["total_s"] for run in runs]}


def memory_child(path: Path) -> int:
    """Resident memory the app's session holds for the file (read whole, folded to the end
    as `--instant` shows it), over what the interpreter held before: printed as JSON."""
    import mcptui.ui.app  # noqa: F401 -- what the app imports counts as before, not as the file's

    gc.collect()
    before = rss_bytes()
    session = open_session(str(path), max_bytes=any_size(path))
    session.load_all()
    session.timeline.seek_end()
    gc.collect()
    after = rss_bytes()
    print(
        json.dumps(
            {"held_bytes": after - before, "events": session.timeline.total, "rss_bytes": after}
        )
    )
    return 0


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_held(path: Path) -> dict[str, Any]:
    child = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--memory-child", "--out", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    row = json.loads(child.stdout.strip().splitlines()[-1])
    row["bytes_per_event"] = row["held_bytes"] / max(1, row["events"])
    row["pass"] = row["bytes_per_event"] <= TARGET_BYTES_PER_EVENT
    return row


def cold_child(path: Path, mode: str) -> int:
    with timed_screen_mount():
        print(json.dumps(asyncio.run(first_paint(path, mode))))
    return 0


# -- stepping --------------------------------------------------------------------------------


def block_starts(screen: InspectorScreen, per_block: int) -> list[tuple[str, int]]:
    timeline = screen.session.timeline
    n = timeline.total
    middle = n // 2
    boundary = next(
        (
            event.index
            for event in timeline.events[middle + 1 :]
            if event.raw.get("type") == "response.output_item.added"
        ),
        middle,
    )
    return [
        ("middle", middle),
        ("item boundary", max(0, boundary - per_block // 2)),
        ("end", max(0, n - per_block)),
    ]


class GcWatch:
    """Time spent in the cyclic garbage collector while `active`, by generation."""

    def __init__(self) -> None:
        self.active = False
        self.seconds = [0.0, 0.0, 0.0]
        self.counts = [0, 0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = perf()
        elif self.active:
            generation = info["generation"]
            self.seconds[generation] += perf() - self._start
            self.counts[generation] += 1

    def __enter__(self) -> GcWatch:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


async def key_to_paint(app: McptuiApp, probe: PaintProbe, key: str, step: int) -> float:
    """Post a key as the terminal driver does and wait for the frame that shows `step`."""
    probe.expect(step)
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    start = perf()
    app.post_message(event)
    return await probe.wait() - start


async def key_to_paint_cpu(
    app: McptuiApp, probe: PaintProbe, key: str, step: int
) -> tuple[float, float]:
    """As `key_to_paint`, and the CPU time this process used meanwhile (no frame pacing,
    no waiting for a CPU shared with other work)."""
    cpu = time.process_time()
    latency = await key_to_paint(app, probe, key, step)
    return latency, time.process_time() - cpu


async def stepping(
    path: Path, per_block: int, profiler: cProfile.Profile | None = None
) -> dict[str, Any]:
    session = open_session(str(path), max_bytes=any_size(path))
    app = McptuiApp(session, paused=True)
    probe = PaintProbe(app)
    timings = Timings("go_to", "_follow_newest")
    watch = GcWatch()
    slowest: list[tuple[float, str, int, str]] = []
    latencies: dict[str, list[float]] = {"forward": [], "back": []}
    work: dict[str, list[float]] = {"forward": [], "back": []}
    cpu: dict[str, list[float]] = {"forward": [], "back": []}
    blocks = []
    with timings, watch:
        async with app.run_test(size=SIZE, headless=True) as pilot:
            await pilot.pause()
            while session.loading is not None:  # the rest of the file, read in the background
                await pilot.pause(0.05)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, InspectorScreen), screen
            timeline = session.timeline
            for name, start in block_starts(screen, per_block):
                screen.playback.go_to(start)
                await pilot.pause()
                await pilot.pause()
                for direction, key, delta in (("forward", "right", 1), ("back", "left", -1)):
                    for _ in range(per_block):
                        target = timeline.position + delta
                        timings.clear()
                        watch.active = True
                        if profiler is not None:
                            profiler.enable()
                        latency, used = await key_to_paint_cpu(app, probe, key, target)
                        if profiler is not None:
                            profiler.disable()
                        watch.active = False
                        latencies[direction].append(latency)
                        work[direction].append(timings.total())
                        cpu[direction].append(used)
                        slowest.append(
                            (
                                latency,
                                key,
                                target,
                                timeline.events[target - 1].type if target else "-",
                            )
                        )
                        await pilot.pause()  # settle, untimed
                assert timeline.position == start, (timeline.position, start)
                blocks.append({"name": name, "start": start})

            screen.playback.go_to(0)
            await pilot.pause()
            await pilot.pause()
            failure_step = timeline.failure_indexes[0] + 1 if timeline.failure_indexes else None
            jump = None
            if failure_step is not None:
                jump = await key_to_paint(app, probe, "f", failure_step)
            await pilot.pause()
    slowest.sort(reverse=True)
    return {
        **latencies,
        "work_forward": work["forward"],
        "work_back": work["back"],
        "cpu_forward": cpu["forward"],
        "cpu_back": cpu["back"],
        "blocks": blocks,
        "jump_to_failure_s": jump,
        "failure_step": failure_step,
        "slowest": [
            {"ms": ms * 1000, "key": key, "step": step, "event": kind}
            for ms, key, step, kind in slowest[:5]
        ],
        "gc_ms_by_generation": [round(t * 1000, 1) for t in watch.seconds],
        "gc_count_by_generation": watch.counts,
    }


def summary_ms(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {
        "n": len(ms),
        "p50": statistics.median(ms),
        "p95": statistics.quantiles(ms, n=100, method="inclusive")[94],
        "max": ms[-1],
    }


# -- profiling -------------------------------------------------------------------------------


def profile_text(profiler: cProfile.Profile, top: int, title: str) -> str:
    buffer = io.StringIO()
    buffer.write(f"== {title}\n")
    stats = pstats.Stats(profiler, stream=buffer)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return buffer.getvalue()


def profile_first_paint(path: Path, mode: str, top: int) -> str:
    release()
    profiler = cProfile.Profile()
    with timed_screen_mount():
        profiler.enable()
        asyncio.run(first_paint(path, mode))
        profiler.disable()
    release()
    return profile_text(profiler, top, f"first paint, {mode} mode (one run, under cProfile)")


def profile_steps(path: Path, per_block: int, top: int) -> str:
    release()
    profiler = cProfile.Profile()
    asyncio.run(stepping(path, per_block, profiler))
    release()
    steps = 2 * 3 * per_block
    return profile_text(
        profiler,
        top,
        f"stepping: {steps} single steps (press + pause each), "
        "under cProfile; divide by the step count for per step",
    )


# -- report ----------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report_lines(results: dict[str, Any]) -> Iterator[str]:
    yield (
        f"events  {results['events']:,}   file {results['file_bytes'] / 2**20:.1f} MiB   "
        f"terminal {SIZE[0]}x{SIZE[1]} headless   repeat {results['repeat']}"
    )
    yield f"generate {results['generate_s']:.2f} s (not measured)   {results['path']}"
    yield ""
    base = results["baseline"]
    yield f"baseline json.loads (bare)  {base['json_bare_s']:.3f} s"
    yield f"baseline json.loads (kept)  {base['json_kept_s']:.3f} s   (information)"
    yield ""
    yield (
        f"{'first paint':<12} {'open s':>8} {'open/json':>10} {'mount→paint s':>14} "
        f"{'total s':>8} {'total/json':>10}  target"
    )
    for mode in ("step", "instant"):
        row = results["first_paint"][mode]
        yield (
            f"{mode:<12} {row['load_s']:>8.3f} {row['load_over_json']:>10.2f} "
            f"{row['mount_to_painted_s']:>14.3f} {row['total_s']:>8.3f} "
            f"{row['total_s'] / base['json_bare_s']:>10.2f}  <= {row['target_s']:.1f} s "
            f"{verdict(row['pass'])}"
        )
    for mode in ("step", "instant"):
        row = results["first_paint"][mode]
        runs = ", ".join(f"{t:.3f}" for t in row["runs_total_s"])
        yield (
            f"  {mode}: app start→screen mount {row['app_start_to_screen_mount_s']:.3f} s, "
            f"screen on_mount {row['screen_on_mount_s']:.3f} s, "
            f"screen mount→painted {row['screen_mount_to_painted_s']:.3f} s (go_to "
            f"{row['go_to_s']:.3f}, follow {row['follow_s']:.3f}), "
            f"{row['frames']} frame(s); runs {runs}"
        )
    for mode, row in results["first_paint_cold"].items():
        runs = ", ".join(f"{t:.3f}" for t in row["runs_total_s"])
        yield (
            f"  cold {mode} (fresh python, information): total {row['total_s']:.3f} s = "
            f"start-up+imports {row['startup_imports_s']:.3f} + load {row['load_s']:.3f} + "
            f"mount→painted {row['mount_to_painted_s']:.3f}; runs {runs}"
        )
    memory = results["memory"]
    yield (
        f"memory held by the app (file read, folded to the end): "
        f"{memory['held_bytes'] / 2**20:.0f} MiB = {memory['bytes_per_event']:.0f} bytes an "
        f"event ({memory['held_bytes'] / results['file_bytes']:.2f}x the file)  "
        f"target <= {TARGET_BYTES_PER_EVENT} {verdict(memory['pass'])}"
    )
    yield ""
    steps = results["steps"]
    yield (
        f"step latency, key → painted (ms)  {'n':>4} {'p50':>7} {'p95':>7} {'max':>7}  "
        f"target p95 <= {TARGET_STEP_P95_MS:.0f} ms"
    )
    for key, label in (
        ("forward", "forward (right)"),
        ("back", "back (left)"),
        ("cpu_forward", "  CPU time used, forward"),
        ("cpu_back", "  CPU time used, back"),
        ("work_forward", "  of it in go_to+follow, forward"),
        ("work_back", "  of it in go_to+follow, back"),
    ):
        row = steps[key]
        tail = f"  {verdict(row['pass'])}" if "pass" in row else "  (information)"
        yield (
            f"  {label:<33} {row['n']:>4} {row['p50']:>7.2f} {row['p95']:>7.2f} "
            f"{row['max']:>7.2f}{tail}"
        )
    yield "  blocks: " + ", ".join(f"{b['name']} @ {b['start']:,}" for b in steps["blocks"])
    yield "  slowest: " + ", ".join(
        f"{row['ms']:.0f} ms {row['key']}→{row['step']:,} "
        f"({row['event'].removeprefix('response.')})"
        for row in steps["slowest"]
    )
    gc_ms, gc_n = steps["gc_ms_by_generation"], steps["gc_count_by_generation"]
    yield (
        f"  GC during timed steps: gen0 {gc_n[0]}× {gc_ms[0]:.0f} ms, gen1 {gc_n[1]}× "
        f"{gc_ms[1]:.0f} ms, gen2 {gc_n[2]}× {gc_ms[2]:.0f} ms"
    )
    if steps["jump_to_failure_s"] is None:
        yield "jump to failure: the stream has no failure"
    else:
        yield (
            f"jump to failure, key → painted (f from step 0 to step "
            f"{steps['failure_step']:,}): {steps['jump_to_failure_s'] * 1000:.1f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000, help="events in the recording")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per first-paint mode and baseline; the best counts",
    )
    parser.add_argument(
        "--steps-per-block", type=int, default=100, help="steps each way per block (3 blocks)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="recording path (default bench/out/tui_open-EVENTS-sSEED.jsonl)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="reuse the recording if it exists instead of regenerating it",
    )
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        default=0,
        metavar="TOP",
        help="also profile one first paint per mode and the stepping blocks",
    )
    parser.add_argument(
        "--cold",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also time first paint in fresh interpreters (information)",
    )
    parser.add_argument("--cold-child", choices=("step", "instant"), help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold_child:
        return cold_child(args.out, args.cold_child)
    if args.memory_child:
        return memory_child(args.out)

    path = args.out or OUT_DIR / f"tui_open-{args.events}-s{args.seed}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    start = perf()
    if not (args.reuse and path.exists()):
        generate(path, args.events, args.seed)
    generate_s = perf() - start

    bare_s = best_of(args.repeat, lambda: json_bare(path))
    kept_s = best_of(args.repeat, lambda: json_kept(path))
    lines = json_bare(path)
    assert lines == args.events + 1, (lines, args.events)  # header + one line per event

    targets = TARGETS_FIRST_PAINT_S if args.events <= 200_000 else TARGETS_FIRST_PAINT_S_1M
    paint: dict[str, Any] = {}
    for mode in ("step", "instant"):
        row = best_first_paint(path, mode, args.repeat)
        row["load_over_json"] = row["best_load_s"] / bare_s
        row["target_s"] = targets[mode]
        row["pass"] = row["total_s"] <= targets[mode]
        paint[mode] = row
    memory = memory_held(path)
    cold: dict[str, Any] = {}
    if args.cold:
        for mode in ("step", "instant"):
            release()
            row = cold_first_paint(path, mode, args.repeat)
            if row is not None:
                cold[mode] = row

    release()
    raw = asyncio.run(stepping(path, args.steps_per_block))
    release()
    steps: dict[str, Any] = {
        key: summary_ms(raw[key])
        for key in ("forward", "back", "cpu_forward", "cpu_back", "work_forward", "work_back")
    }
    for key in ("forward", "back"):
        steps[key]["pass"] = steps[key]["p95"] <= TARGET_STEP_P95_MS
    for key in (
        "blocks",
        "jump_to_failure_s",
        "failure_step",
        "slowest",
        "gc_ms_by_generation",
        "gc_count_by_generation",
    ):
        steps[key] = raw[key]

    results: dict[str, Any] = {
        "events": args.events,
        "path": str(path),
        "file_bytes": path.stat().st_size,
        "repeat": args.repeat,
        "size": list(SIZE),
        "generate_s": generate_s,
        "baseline": {"json_bare_s": bare_s, "json_kept_s": kept_s},
        "first_paint": paint,
        "first_paint_cold": cold,
        "memory": memory,
        "steps": steps,
        "targets": {
            "first_paint_s": targets,
            "step_p95_ms": TARGET_STEP_P95_MS,
            "bytes_per_event": TARGET_BYTES_PER_EVENT,
        },
        "pass": all(row["pass"] for row in paint.values())
        and memory["pass"]
        and steps["forward"]["pass"]
        and steps["back"]["pass"],
    }
    for line in report_lines(results):
        print(line)
    print(f"overall: {verdict(results['pass'])}")
    what = f"recording {args.events // 1000}k"
    for mode in ("step", "instant"):
        figure(
            f"first paint --{mode}, {what} (in process)", paint[mode]["total_s"], "s", targets[mode]
        )
    figure(f"memory held, {what}", memory["bytes_per_event"], "B/event", TARGET_BYTES_PER_EVENT)
    for key in ("forward", "back"):
        figure(f"step latency {key} p95, {what} (in process)", steps[key]["p95"], "ms", None)
    if args.json:
        print(json.dumps(results, indent=2))
    if args.profile:
        for mode in ("step", "instant"):
            print()
            print(profile_first_paint(path, mode, args.profile))
        print()
        print(profile_steps(path, args.steps_per_block, args.profile))
    return 0 if results["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
