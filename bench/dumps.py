"""Dumps as fast as recordings: `inspect --json` CPU and memory, and the app's first paint, for
the same events in each format a user brings.

The events are bench/tui_open.py's 200k-event recording (real-shaped: text deltas, MCP calls,
a failure), written four ways into bench/out/: the mcptui recording itself, one JSON event per
line (the `*.chunks.txt` of other SDKs, a log), the SSE body `curl -N` saves, and a JSON array.

  json.loads   the anchor, measured in this run: a fresh `python` reading the file and
               `json.loads` every event's JSON (each line; each `data:` payload; the array
               whole), objects not kept. CPU (user + system) of the child.
  inspect      `python -m mcptui inspect --json FILE` in a fresh process: CPU, and peak RSS
               beyond the same command's on the first 1,000 events of the same format (the
               interpreter, the imports and the fixed structures), per event.
  first paint  `open_session` + the app to its first painted frame at step 0 (`--step`), in
               this process (bench/tui_open.py's probe; imports excluded), best of `--repeat`.

  anchors      for the JSON lines dump (information): `orjson.loads` of each line, and the
               openai SDK's reading (`json.loads`, then each event's model validating it).

Goals (issue 37): inspect CPU <= 2.5x json.loads for the JSON lines dump and the SSE body;
memory <= 1 KB an event beyond the base; first paint `--step` <= 0.5 s for every format.
Each figure is also printed as a `FIGURE` line (bench/all.py reads them).

Run: `.venv/bin/python bench/dumps.py [--events N] [--repeat R] [--formats a,b]`.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import figure
from bench.tui_open import OUT_DIR, first_paint, generate, release, timed_screen_mount

GOAL_CPU_RATIO = 2.5
GOAL_BYTES_PER_EVENT = 1024
GOAL_FIRST_PAINT_S = 0.5
BASE_EVENTS = 1000
FORMATS = ("recording", "jsonl", "sse", "array")
CPU_GOAL_FORMATS = ("jsonl", "sse")
"""The formats the CPU goal names; the others' ratios are information."""

ANCHOR = """
import json, sys
fmt, path = sys.argv[1], sys.argv[2]
text = open(path, 'rb').read().decode()
if fmt == 'array':
    json.loads(text)
else:
    for line in text.split('\\n'):
        if fmt == 'sse':
            if line.startswith('data: '):
                json.loads(line[6:])
        elif line:
            json.loads(line)
"""

ANCHOR_ORJSON = """
import orjson, sys
with open(sys.argv[1], 'rb') as file:
    for line in file.read().split(b'\\n'):
        if line:
            orjson.loads(line)
"""
"""The JSON lines dump read by the fastest JSON parser a user may reach for (information)."""

ANCHOR_SDK = """
import json, sys
from typing import get_args
from openai.types.responses import ResponseStreamEvent
by_type = {}
for model in get_args(get_args(ResponseStreamEvent)[0]):
    for literal in get_args(model.model_fields["type"].annotation):
        by_type.setdefault(literal, model)
with open(sys.argv[1], 'rb') as file:
    for line in file.read().split(b'\\n'):
        if line:
            event = json.loads(line)
            model = by_type.get(event.get("type"))
            if model is not None:
                model.model_validate(event)
"""
"""The JSON lines dump read as the openai SDK reads a stream: each event validated by its
model (information: what a user's own script would spend)."""


def events_of(recording: Path, limit: int | None = None) -> list[bytes]:
    """The events' JSON, one per line as the recording holds them (its header dropped)."""
    out: list[bytes] = []
    with recording.open("rb") as file:
        file.readline()  # the header
        for line in file:
            at = line.find(b'"event":')
            out.append(line[at + 8 : line.rstrip().rfind(b"}")].strip())
            if limit is not None and len(out) >= limit:
                break
    return out


def event_type(event: bytes) -> str:
    at = event.find(b'"type":"') + 8
    return event[at : event.index(b'"', at)].decode()


def write_format(fmt: str, events: list[bytes], recording: Path, path: Path) -> Path:
    if fmt == "recording":
        if len(events) == sum(1 for _ in recording.open("rb")) - 1:
            return recording
        with recording.open("rb") as file, path.open("wb") as out:
            for _ in range(len(events) + 1):
                out.write(file.readline())
        return path
    with path.open("wb") as out:
        if fmt == "jsonl":
            out.writelines(event + b"\n" for event in events)
        elif fmt == "sse":
            for event in events:
                out.write(b"event: " + event_type(event).encode() + b"\ndata: " + event + b"\n\n")
        else:
            out.write(b"[\n" + b",\n".join(events) + b"\n]\n")
    return path


SPAWN = """
import os, subprocess, sys
pid = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)
"""
"""Runs a command and prints its exit code, CPU and peak RSS. Linux counts in a child's peak
RSS the memory of the process that forked it (the peak is carried over `exec`): spawned from
this bench, which holds the 200k events and the app, every child "peaked" at this process's
size and a 200k-event dump measured 0 B an event beyond the base. Spawned from this small
process instead, each child's figure is its own (plus the same small floor for every run)."""


def child_cost(argv: list[str]) -> tuple[float, int]:
    """CPU seconds (user + system) and peak RSS (bytes) of one child process run to its end."""
    out = subprocess.run(
        [sys.executable, "-c", SPAWN, *argv], capture_output=True, text=True, check=True
    ).stdout.split()
    code, cpu, rss = int(out[0]), float(out[1]), int(out[2])
    if code not in (0, 1):  # inspect exits 1 on failures found
        raise SystemExit(f"{argv} failed with exit code {code}")
    return cpu, rss


def best(repeat: int, run: Callable[[], tuple[float, int]]) -> tuple[float, int]:
    runs = [run() for _ in range(repeat)]
    return min(cpu for cpu, _ in runs), max(rss for _, rss in runs)


def inspect_argv(path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mcptui",
        "inspect",
        "--json",
        "--max-bytes",
        str(1 << 31),
        str(path),
    ]


def first_paint_s(path: Path, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        release()
        with timed_screen_mount():
            runs.append(asyncio.run(first_paint(path, "step"))["total_s"])
    release()
    return min(runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument(
        "--paint-only",
        action="store_true",
        help="first paint only (no inspect CPU or memory): the 1M-event round of bench/all.py",
    )
    args = parser.parse_args(argv)
    recording = OUT_DIR / f"tui_open-{args.events}-s{args.seed}.jsonl"
    if not recording.exists():
        recording.parent.mkdir(parents=True, exist_ok=True)
        generate(recording, args.events, args.seed)
    events = events_of(recording)
    count = len(events)
    print(f"{count:,} events, {recording.stat().st_size / 2**20:.0f} MiB as a recording")
    print(
        f"{'format':10} {'MiB':>5} {'json s':>7} {'inspect s':>9} {'ratio':>6} "
        f"{'B/event':>8} {'paint s':>8}"
    )
    for fmt in args.formats.split(","):
        path = write_format(fmt, events, recording, OUT_DIR / f"dump-{count}-s{args.seed}.{fmt}")
        what = f"{fmt} {count // 1000}k"
        if args.paint_only:
            paint = first_paint_s(path, args.repeat)
            print(f"{fmt:10} {path.stat().st_size / 2**20:5.0f} {'':34} {paint:8.3f}")
            figure(f"first paint --step, {what}", paint, "s", GOAL_FIRST_PAINT_S)
            continue
        small = write_format(fmt, events[:BASE_EVENTS], recording, OUT_DIR / f"dump-base.{fmt}")
        anchor, _ = best(
            args.repeat, lambda p=path, f=fmt: child_cost([sys.executable, "-c", ANCHOR, f, str(p)])
        )
        cpu, rss = best(args.repeat, lambda p=path: child_cost(inspect_argv(p)))
        _, base_rss = best(1, lambda p=small: child_cost(inspect_argv(p)))
        per_event = max(0, rss - base_rss) / (count - BASE_EVENTS)
        paint = first_paint_s(path, args.repeat)
        ratio = cpu / anchor
        print(
            f"{fmt:10} {path.stat().st_size / 2**20:5.0f} {anchor:7.2f} {cpu:9.2f} {ratio:6.2f} "
            f"{per_event:8.0f} {paint:8.3f}"
        )
        if fmt == "jsonl":
            others = (
                ("orjson.loads", ANCHOR_ORJSON, args.repeat),
                ("SDK validation", ANCHOR_SDK, 1),
            )
            for name, script, runs in others:
                spent, _ = best(
                    runs, lambda p=path, c=script: child_cost([sys.executable, "-c", c, str(p)])
                )
                print(f"  anchor {name}: {spent:.2f} s CPU; inspect --json / it {cpu / spent:.2f}x")
                figure(f"anchor: {name} CPU, {what}", spent, "s", None)
                figure(f"inspect --json CPU / {name}, {what}", cpu / spent, "x", None)
        if fmt in CPU_GOAL_FORMATS:
            figure(f"inspect --json CPU / json.loads, {what}", ratio, "x", GOAL_CPU_RATIO)
        else:
            figure(f"inspect --json CPU / json.loads, {what}", ratio, "x", None)
        figure(f"inspect --json memory per event, {what}", per_event, "B", GOAL_BYTES_PER_EVENT)
        figure(f"first paint --step, {what}", paint, "s", GOAL_FIRST_PAINT_S)
    return 0


if __name__ == "__main__":
    sys.exit(main())
