"""URL redaction in free text on the input that made it quadratic: `a.a.a.…a ://x`.

Each letter of the `a.a.a.…` run was a place the `_URL` regex could start a scheme, and each
start read to the end of the run: a 400 KB text delta took 127 s to redact (and the app two
minutes to paint the file). `redact_text` now finds URLs with `url_spans`, linear in the text.

  regex      `_URL.sub` as `redact_text` ran it before (the reference regex, still in
             tui/mcptui/model/redaction.py), only up to `--regex-max` bytes: it is quadratic
  redact     `redact_text` as it is

Measured on the development machine (best of 3):
  size       regex      redact
  50 KB      2.1 s      0.2 ms
  100 KB     8.5 s      0.3 ms
  400 KB     (127 s)    1.4 ms
  4 MB                  14 ms

Run: `.venv/bin/python bench/redact_urls.py [--regex-max BYTES] [--repeat R]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcptui.model.redaction import _URL, redact_text, redact_url

SIZES = (50_000, 100_000, 200_000, 400_000, 4_000_000)


def best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--regex-max", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'size':>10} {'regex':>10} {'redact':>10}")
    for size in SIZES:
        text = "a." * (size // 2) + " ://x"
        regex = (
            ""
            if size > args.regex_max
            else f"{best(lambda t=text: _URL.sub(lambda m: redact_url(m.group(0)), t), 1):9.3f}s"
        )
        ours = best(lambda t=text: redact_text(t), args.repeat)
        print(f"{size:>10} {regex:>10} {ours * 1000:9.2f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
