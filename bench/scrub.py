"""Cost of hiding secrets split across deltas (tui/mcptui/io/scrub.py) on a real-shaped stream.

The stream is bench/ingest.py's (`build_stream`), read by the live path's StreamIngester;
each event then goes through `DeltaScrubber.push`, as `LiveRun.add`, `Capture.add` and the
recording reader do, with no known secret and with three (an API key, a header value, a URL
token). Best of `--repeat`, in µs per event, beside the ingest itself for scale.

Run: `.venv/bin/python bench/scrub.py [--events N] [--repeat R]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import build_stream
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.ingest import StreamIngester

KNOWN = ["sk-proj-LIVEk3y9Qw7Zx2Vb5Nm", "xak7Hq2Lm9Pz4Wd6", "pthT0k3nA1b2C3d4"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = build_stream(args.events, 7)
    data = data if isinstance(data, bytes) else data.encode()
    best = {"ingest": 1e9, "scrub, no secret": 1e9, "scrub, 3 secrets": 1e9}
    count = 0
    for _ in range(args.repeat):
        started = time.perf_counter()
        ingester = StreamIngester(time.monotonic, start=0.0)
        events = ingester.feed(data) + ingester.finish()
        best["ingest"] = min(best["ingest"], time.perf_counter() - started)
        count = len(events)
        for label, known in (("scrub, no secret", []), ("scrub, 3 secrets", KNOWN)):
            scrubber = DeltaScrubber()
            started = time.perf_counter()
            for event in events:
                scrubber.push(event, known)
            scrubber.release(known)
            best[label] = min(best[label], time.perf_counter() - started)
    for label, seconds in best.items():
        print(
            f"{label:18} {seconds * 1e6 / count:6.2f} µs/event  ({seconds:.3f} s, {count:,} events)"
        )


if __name__ == "__main__":
    main()
