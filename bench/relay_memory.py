"""Relay memory benchmark: the peak RSS of `mcptui proxy` and `mcptui tap` relaying one large
POST, against the size of its body (issue 35 V3: 100 MB took the tap to 1.08 GB, the proxy to
594 MB, when both read each request whole before sending it on).

Everything runs as a user runs it, in separate processes over loopback:

  upstream  a sink (this script with `--serve-sink PORT`): reads each request body in chunks,
            keeps only its length, answers `{"received": N}`.
  relay     `python -m mcptui proxy --no-tui --upstream http://127.0.0.1:S/v1 --record DIR` and
            `python -m mcptui tap --no-tui --upstream http://127.0.0.1:S/mcp --record FILE`,
            unchanged, each in a subprocess on a free port.
  client    this process: httpx2 sends a JSON body of `--mb` MB (`{"model": …, "input": "aaa…"}`
            for the proxy, a JSON-RPC `tools/call` whose argument is that long for the tap)
            from a generator in 1 MB chunks, so the client never holds it whole either.

Peak RSS is the relay's VmHWM from /proc after the answer; the base is its VmRSS before the
request; "added per body byte" is (peak - base) / body size. Target: under 0.5 (a relay that
streams holds a few chunks and what it records, capped; 1.0 would be one whole copy).
Exit 1 when a target is missed.

  .venv/bin/python bench/relay_memory.py [--mb 100]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2

TARGET = 0.5
CHUNK = 1024 * 1024


def serve_sink(port: int) -> None:
    from mcptui.net.serve import serve_forever

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return
        received = 0
        while True:
            message = await receive()
            received += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = json.dumps({"received": received}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    serve_forever(app, "127.0.0.1", port, log_level="warning")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def memory(pid: int, field: str) -> int:
    """A /proc/PID/status figure (VmRSS, VmHWM) in bytes."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    assert found, text
    return int(found.group(1)) * 1024


def body(kind: str, size: int) -> Iterator[bytes]:
    if kind == "proxy":
        head, tail = b'{"model": "gpt-5-mini", "input": "', b'"}'
    else:
        head = (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", '
            b'"arguments": {"q": "'
        )
        tail = b'"}}}'
    yield head
    left = size - len(head) - len(tail)
    block = b"a" * CHUNK
    while left > 0:
        yield block[: min(CHUNK, left)]
        left -= CHUNK
    yield tail


def start_relay(kind: str, sink: str, work: Path) -> tuple[subprocess.Popen[str], str]:
    if kind == "proxy":
        args = ["proxy", "--upstream", f"{sink}/v1", "--record", str(work / "proxy")]
    else:
        args = ["tap", "--upstream", f"{sink}/mcp", "--record", str(work / "tap.jsonl")]
    process = subprocess.Popen(
        [sys.executable, "-m", "mcptui", *args, "--no-tui", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "OPENAI_API_KEY": "sk-bench"},
    )
    assert process.stdout is not None
    while line := process.stdout.readline():
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            return process, found.group(0)
    raise RuntimeError(f"{kind} printed no address")


def measure(kind: str, sink: str, size: int, work: Path) -> dict[str, float]:
    process, address = start_relay(kind, sink, work)
    try:
        path = "/v1/responses" if kind == "proxy" else "/mcp"
        with httpx2.Client(timeout=300) as client:  # warm-up: a small request, not counted
            client.post(
                address + path,
                content=b'{"model": "m", "input": "x"}',
                headers={"content-type": "application/json", "authorization": "Bearer sk-bench"},
            )
        time.sleep(0.5)
        base = memory(process.pid, "VmRSS")
        started = time.perf_counter()
        with httpx2.Client(timeout=300) as client:
            answer = client.post(
                address + path,
                content=body(kind, size),
                headers={
                    "content-type": "application/json",
                    "authorization": "Bearer sk-bench",
                    "accept": "application/json, text/event-stream",
                },
            )
        took = time.perf_counter() - started
        assert answer.json()["received"] == size, answer.text[:200]
        peak = memory(process.pid, "VmHWM")
    finally:
        process.terminate()
        process.wait(timeout=20)
    return {"base": base, "peak": peak, "ratio": (peak - base) / size, "seconds": took}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=100, help="body size in MB (default 100)")
    parser.add_argument("--serve-sink", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_sink is not None:
        serve_sink(args.serve_sink)
        return 0
    port = free_port()
    sink_process = subprocess.Popen(
        [sys.executable, __file__, "--serve-sink", str(port)], stderr=subprocess.DEVNULL
    )
    sink = f"http://127.0.0.1:{port}"
    missed = False
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx2.get(sink, timeout=1)
                break
            except httpx2.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        size = args.mb * 1024 * 1024
        print(f"relay memory: one POST of {args.mb} MB through each relay")
        for kind in ("proxy", "tap"):
            with tempfile.TemporaryDirectory() as work:
                got = measure(kind, sink, size, Path(work))
            ok = got["ratio"] < TARGET
            missed |= not ok
            print(
                f"  {kind:5}  base {got['base'] / 2**20:7.1f} MB  peak {got['peak'] / 2**20:7.1f}"
                f" MB  added per body byte {got['ratio']:.2f} (target < {TARGET})"
                f"  {got['seconds']:.1f} s  {'ok' if ok else 'MISSED'}"
            )
    finally:
        sink_process.terminate()
        sink_process.wait(timeout=20)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
