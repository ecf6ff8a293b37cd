"""Where the tap's cost per `tools/call` goes: the same calls through four things in front of
the demo MCP server, in one run (issue 37's tap goal, README's Benchmarks section).

  direct  `mcptui demo-server` itself
  bare    a bare asyncio forwarder: bytes in, bytes out, nothing parsed (the floor any relay
          in Python meets: two more hops on loopback)
  asgi    the ASGI relay (uvicorn, the ASGI app, the hop to the server) recording nothing: the
          tap's relay until tui/mcptui/capture/tap_relay.py, still `mcptui proxy`'s
  relay   the tap's own relay (tap_relay.py: asyncio protocols) recording nothing
  tap     `mcptui tap --no-tui` as a user runs it (its own relay, recording while it waits)

Each behind one legacy-era MCP session (bench/proxy_load.py `McpSession`), `tools/call search`
one after another in blocks of 100, the paths in turn (reversed every other block). Printed for
each: ms per call, calls/s as a ratio of direct's, and the CPU per call its process (and, for
the tap, its recorder child) used, from /proc (clock ticks of 10 ms, over all its blocks).
Information, not a goal: bench/proxy.py carries the tap's goal.

Run: `.venv/bin/python bench/tap_split.py [--calls N]` (default 1200 a path, about 80 s).
Linux only (/proc). With `--serve KIND UPSTREAM PORT` it is one of the stand-ins (internal).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.proxy_load import McpSession

PY = sys.executable
TICK = os.sysconf("SC_CLK_TCK")
BLOCK = 100


class _Bare(asyncio.Protocol):
    """A client connection, piped to its own upstream connection both ways."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.upstream: asyncio.Transport | None = None
        self.queued: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        client = self

        class Back(asyncio.Protocol):
            def data_received(self, data: bytes) -> None:
                client.transport.write(data)  # type: ignore[attr-defined]

        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_connection(Back, self.host, self.port)
        self.upstream = transport  # type: ignore[assignment]
        for data in self.queued:
            transport.write(data)  # type: ignore[attr-defined]
        self.queued = []

    def data_received(self, data: bytes) -> None:
        if self.upstream is None:
            self.queued.append(data)
        else:
            self.upstream.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.upstream is not None:
            self.upstream.close()


async def serve(kind: str, upstream: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGINT, lambda: stop.done() or stop.set_result(None))
    if kind == "bare":
        parts = urlsplit(upstream)
        server = await loop.create_server(
            lambda: _Bare(parts.hostname or "127.0.0.1", parts.port or 80), "127.0.0.1", port
        )
        await stop
        server.close()
        return
    from mcptui.capture.proxy_run import SERVER_OPTIONS
    from mcptui.capture.relay import RecordingProxy
    from mcptui.capture.tap import TapHub
    from mcptui.capture.tap_relay import TapRelay
    from mcptui.net.serve import bind, make_server

    class Unrecorded(TapHub):
        def exchange_for(self, *args: object) -> None:  # type: ignore[override]
            return None

    if kind == "relay":
        await TapRelay(Unrecorded(upstream, None)).serve(bind("127.0.0.1", port), stop)
        return
    relay = make_server(RecordingProxy(Unrecorded(upstream, None)), **SERVER_OPTIONS)
    task = asyncio.ensure_future(relay.serve(sockets=[bind("127.0.0.1", port)]))
    await stop
    relay.should_exit = True
    await task


def cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in found.split()]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int) -> None:
    import socket

    for _ in range(300):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1200)
    parser.add_argument("--serve", nargs=3, metavar=("KIND", "UPSTREAM", "PORT"))
    args = parser.parse_args()
    if args.serve:
        kind, upstream, port = args.serve
        asyncio.run(serve(kind, upstream, int(port)))
        return
    record = Path(os.environ.get("TMPDIR", "/tmp")) / f"tap-split-{os.getpid()}.jsonl"
    server_port = free_port()
    upstream = f"http://127.0.0.1:{server_port}/mcp"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    procs = {
        "direct": subprocess.Popen(
            [PY, "-m", "mcptui", "demo-server", "--port", str(server_port)], **quiet
        )
    }
    wait_port(server_port)
    urls = {"direct": upstream}
    for kind in ("bare", "asgi", "relay", "tap"):
        port = free_port()
        tap = ["tap", "--no-tui", "--port", str(port), "--upstream", upstream]
        command = (
            [PY, "-m", "mcptui", *tap, "--record", str(record)]
            if kind == "tap"
            else [PY, __file__, "--serve", kind, upstream, str(port)]
        )
        procs[kind] = subprocess.Popen(command, **quiet)
        wait_port(port)
        urls[kind] = f"http://127.0.0.1:{port}/mcp"
    try:
        sessions = {kind: McpSession(url) for kind, url in urls.items()}
        for session in sessions.values():
            for _ in range(30):  # warm
                session.call()
        spent = dict.fromkeys(urls, 0.0)
        used = dict.fromkeys(urls, 0.0)
        child = dict.fromkeys(urls, 0.0)
        order = list(sessions.items())
        for block in range(max(1, args.calls // BLOCK)):
            for kind, session in order if block % 2 else order[::-1]:
                pid = procs[kind].pid
                kids = children(pid)
                before, kids_before = cpu(pid), sum(cpu(k) for k in kids)
                started = time.perf_counter()
                for _ in range(BLOCK):
                    session.call()
                spent[kind] += time.perf_counter() - started
                time.sleep(0.05)  # the recorder child catches up: its CPU counts
                used[kind] += cpu(pid) - before
                child[kind] += sum(cpu(k) for k in kids) - kids_before
        calls = max(1, args.calls // BLOCK) * BLOCK
        print(f"tools/call search, {calls} a path, blocks of {BLOCK} in turn")
        print("           ms/call  calls/s vs direct  CPU ms/call (child)")
        for kind in urls:
            print(
                f"  {kind:7s}  {spent[kind] * 1000 / calls:7.3f}  "
                f"{spent['direct'] / spent[kind]:17.3f}  "
                f"{used[kind] * 1000 / calls:6.3f} ({child[kind] * 1000 / calls:.3f})"
            )
        for session in sessions.values():
            session.close()
    finally:
        for proc in procs.values():
            proc.send_signal(signal.SIGINT)
        for proc in procs.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        record.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
