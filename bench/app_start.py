"""App start cost: the CPU one Pilot test pays to open the inspector, and what it is made of.

Why: the test suite starts ~180 apps, and at start Textual's `Stylesheet.apply` (CSS matched and
applied to one node) was ~35% of the CPU, most of it for the footer's one-widget-per-key
children (18 `FooterKey`s and their component-class pseudo nodes, composed 3 times).

What it measures, in this process, imports warmed by one untimed run first:

  cpu per start   `time.process_time()` of `McptuiApp(open_session(SAMPLE), paused=True)`
                  in `app.run_test(size=(140, 40))` plus one `pilot.pause()`, each of
                  `--runs` runs printed, then min / median
  widgets         widgets on the inspector screen at the end of that start (`screen.query("*")`)
  apply calls     how many times `Stylesheet.apply` ran during one start

Figures only, no pass/fail. Run: `.venv/bin/python bench/app_start.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp
from textual.css.stylesheet import Stylesheet

SAMPLE = Path(__file__).resolve().parent.parent / "recordings" / "mcp-424-broken-schema.jsonl"
SIZE = (140, 40)


async def start_once() -> tuple[float, int]:
    """CPU seconds for one app start, and the number of widgets on its screen."""
    began = time.process_time()
    app = McptuiApp(open_session(str(SAMPLE)), paused=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widgets = len(app.screen.query("*"))
    return time.process_time() - began, widgets


def count_applies() -> int:
    """How many times `Stylesheet.apply` runs during one start."""
    calls = 0
    original = Stylesheet.apply

    def counting(self: Stylesheet, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(self, *args, **kwargs)

    Stylesheet.apply = counting  # type: ignore[method-assign]
    try:
        asyncio.run(start_once())
    finally:
        Stylesheet.apply = original  # type: ignore[method-assign]
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    asyncio.run(start_once())  # warm: imports, Textual's lazy loading, CSS parse caches
    times = []
    widgets = 0
    for run in range(args.runs):
        cpu, widgets = asyncio.run(start_once())
        times.append(cpu)
        print(f"run {run + 1:2}: {cpu:.3f} s CPU")
    print(f"cpu per start: min {min(times):.3f} s, median {statistics.median(times):.3f} s")
    print(f"widgets on the inspector screen: {widgets}")
    print(f"Stylesheet.apply calls per start: {count_applies()}")


if __name__ == "__main__":
    main()
