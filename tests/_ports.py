"""Port numbers for loopback servers that a test names before they start (a server in another
process, which cannot tell the test the port it bound; a port that must stay closed).

Why not "bind port 0, close, hand the number on": the kernel gives port-0 binds and outgoing
connections their ports from `ip_local_port_range` (32768–60999 on these machines), so a port
freed that way can go to another test's server (or an outgoing connection) before ours binds it.
A clean-clone CI run saw it: a real MCP stack failed to bind its port while another worker's
server answered there, and every test of that worker's real stacks errored.

So the ports come from below that range, where the kernel never hands one out on its own, and
each xdist worker gets its own slice of it: no two workers of a run can pick the same port. A
worker walks its slice in order, so a port it just handed out (its server perhaps not started
yet) is not handed out again soon; each one is checked to be free before it is given."""

from __future__ import annotations

import os
import random
import socket
import threading
from contextlib import closing
from pathlib import Path

_LOWEST = 10_000
_SLICES = 16
"""Room for up to 16 xdist workers (workers beyond that share a slice, checked as ever)."""


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _slice() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) % _SLICES if worker.isdigit() else 0
    width = (max(_ephemeral_low(), _LOWEST + _SLICES) - _LOWEST) // _SLICES
    start = _LOWEST + index * width
    return range(start, start + width)


_lock = threading.Lock()
_ports = _slice()
_next = random.randrange(len(_ports))
"""Where this process starts in its slice: two runs of the suite at once rarely meet."""


def _is_free(port: int) -> bool:
    with closing(socket.socket()) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback port that nothing listens on and that no other test of this run is given."""
    global _next
    with _lock:
        for _ in range(len(_ports)):
            port = _ports[_next % len(_ports)]
            _next += 1
            if _is_free(port):
                return port
    raise RuntimeError(f"no free port in {_ports.start}–{_ports.stop - 1}")
