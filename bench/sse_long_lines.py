"""SSE framing on long data lines: CPU time to decode one 10/20/40 MB `data:` line fed in
16 KiB and 64 KiB chunks, against decoding the same bytes once (the baseline, same run).

Before the fix a 40 MB line took 17.8 s in 64 KiB chunks and 66 s in 16 KiB ones (every chunk
re-joined and re-scanned the open block). Linear framing keeps the ratio flat as size grows.

    .venv/bin/python bench/sse_long_lines.py
"""

from __future__ import annotations

import time

from mcptui.model.sse import SSEDecoder


def decode(data: bytes, chunk: int) -> float:
    decoder = SSEDecoder()
    start = time.process_time()
    messages = []
    for offset in range(0, len(data), chunk):
        messages += decoder.feed(data[offset : offset + chunk])
    messages += decoder.finish()
    assert len(messages) == 1
    return time.process_time() - start


def main() -> None:
    for megabytes in (10, 20, 40):
        data = b'data: {"type":"x","delta":"' + b"a" * (megabytes << 20) + b'"}\n\n'
        start = time.process_time()
        data.decode()
        baseline = max(time.process_time() - start, 1e-6)
        for chunk in (16 << 10, 64 << 10):
            seconds = decode(data, chunk)
            print(
                f"{megabytes:3d} MB in {chunk >> 10:2d} KiB chunks: {seconds:6.3f} s "
                f"({seconds / baseline:5.1f}x one decode of the same bytes)"
            )


if __name__ == "__main__":
    main()
