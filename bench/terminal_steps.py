"""Step latency in a real terminal: a key pressed in tmux until the screen shows the new step.

`mcptui replay FILE --step K` runs in tmux (a private socket, 160x50) on bench/tui_open.py's
200k-event recording, opened at the middle. This process attaches to it as a tmux control
client (`tmux -C`: commands and their answers over a pipe, no process spawned per look), then
for each sample sends a `Right` (or `Left`) key and asks for the pane's first lines until the
header reads the next step: from the key sent to the screen that shows it, as a user waits for
it, the app's frame pacing and tmux's parsing included. The anchor, measured in the same run,
is the same round trip for a key that changes nothing (`F12`, not bound): what tmux and the
polling cost by themselves; and, for scale, `less -S` in the same pane scrolling a line (`j`)
until its first line is the next (information: the issue measured 10.7 / 17.8 ms p50 / p95).

Goal (issue 37): p95 <= 25 ms. Prints FIGURE lines (bench/all.py).

Run: `.venv/bin/python bench/terminal_steps.py [--events N] [--samples S]`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import figure
from bench.tui_open import OUT_DIR, generate

GOAL_P95_MS = 25.0
SOCKET = f"mcptui-bench-steps-{os.getpid()}"
STEP = re.compile(r"step (\d+) / (\d+)")
MCPTUI = Path(sys.executable).with_name("mcptui")


class Control:
    """A tmux control-mode client: one command at a time, its answer's lines back."""

    def __init__(self, session: str) -> None:
        self.process = subprocess.Popen(
            ["tmux", "-L", SOCKET, "-C", "attach", "-t", session],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",  # %output notifications carry the app's bytes as they come
            bufsize=1,
        )

    def command(self, text: str) -> list[str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()
        answer: list[str] = []
        inside = False
        for line in self.process.stdout:
            if line.startswith("%begin"):
                inside, answer = True, []
            elif line.startswith(("%end", "%error")) and inside:
                return answer
            elif inside:
                answer.append(line.rstrip("\n"))
        raise RuntimeError("tmux control client ended")

    def step_shown(self) -> int | None:
        for line in self.command("capture-pane -p -t bench -S 0 -E 3"):
            found = STEP.search(line)
            if found:
                return int(found.group(1))
        return None

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(5)


def wait_for(control: Control, want: int | None, timeout: float = 30.0) -> float:
    """Seconds until the header shows step `want` (None: until it shows any)."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        shown = control.step_shown()
        if shown is not None and (want is None or shown == want):
            return time.perf_counter() - start
    raise TimeoutError(f"step {want} never shown")


def timed_key(control: Control, key: str, want: int) -> float:
    start = time.perf_counter()
    control.command(f"send-keys -t bench {key}")
    wait_for(control, want)
    return time.perf_counter() - start


LESS_LINE = re.compile(r"^line (\d+) ")


def less_scrolls(control: Control, samples: int) -> list[float]:
    """The anchor a user knows: `less` (chopping long lines, `-S`) in the same pane, `j`
    pressed until the pane's first line is the next line of the file, `samples` times."""
    text = OUT_DIR / "terminal_steps-less.txt"
    text.write_text("".join(f"line {n:06d} " + "x" * 200 + "\n" for n in range(samples + 100)))
    control.command(f"respawn-pane -k -t bench env LESSHISTFILE=- less -S {text}")

    def first_line() -> int | None:
        found = LESS_LINE.match(
            next(iter(control.command("capture-pane -p -t bench -S 0 -E 0")), "")
        )
        return None if found is None else int(found.group(1))

    def until(want: int) -> float:
        start = time.perf_counter()
        while first_line() != want:
            if time.perf_counter() - start > 30:
                raise TimeoutError(f"less never showed line {want}")
        return time.perf_counter() - start

    until(0)
    out = []
    for n in range(1, samples + 1):
        start = time.perf_counter()
        control.command("send-keys -t bench j")
        until(n)
        out.append(time.perf_counter() - start)
    return out


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=100, help="steps each way")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed: nothing measured")
        return 1
    path = OUT_DIR / f"tui_open-{args.events}-s{args.seed}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        generate(path, args.events, args.seed)
    middle = args.events // 2
    command = f"env TERM=xterm-256color {MCPTUI} replay {path} --step {middle}"
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", "bench", "-x", "160", "-y", "50"],
        check=True,
    )
    control = Control("bench")
    try:
        control.command("set-option -t bench status off")
        control.command(f"respawn-pane -k -t bench {command}")
        wait_for(control, middle, timeout=120)
        time.sleep(1.0)  # the rest of the file read between frames: a settled app is measured
        idle = [timed_key(control, "F12", middle) for _ in range(args.samples)]
        forward = [timed_key(control, "Right", middle + 1 + n) for n in range(args.samples)]
        back = [
            timed_key(control, "Left", middle + args.samples - 1 - n) for n in range(args.samples)
        ]
        scrolled = less_scrolls(control, args.samples) if shutil.which("less") else []
    finally:
        control.close()
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], check=False)
    print(f"step latency in tmux at step {middle:,} of {args.events:,}, {args.samples} each way")
    for name, samples in (("nothing (F12)", idle), ("forward", forward), ("back", back)):
        ms = [s * 1000 for s in samples]
        print(
            f"  {name:14} p50 {statistics.median(ms):6.1f} ms  p95 {percentile(ms, 0.95):6.1f} ms"
            f"  max {max(ms):6.1f} ms"
        )
    what = f"recording {args.events // 1000}k"
    figure("tmux round trip, unbound key (anchor)", percentile(idle, 0.95) * 1000, "ms", None)
    if scrolled:
        ms = [s * 1000 for s in scrolled]
        p50, p95 = statistics.median(ms), percentile(ms, 0.95)
        print(f"  {'less, a line':14} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
        figure("less scrolling a line p95 in tmux (anchor)", p95, "ms", None)
    else:
        print("  less is not installed: no anchor of a pager scrolling")
    for name, samples in (("forward", forward), ("back", back)):
        p95 = percentile(samples, 0.95) * 1000
        figure(f"step latency {name} p95 in tmux, {what}", p95, "ms", GOAL_P95_MS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
