"""Two figures of bench/proxy.py under load: 8 concurrent clients, and tap calls one after another.

Concurrent requests: `clients` threads, each with its own keep-alive connection, send the same
short unpaced streamed create (20 events) again and again for `seconds`, to one path at a time
(direct first in even rounds, the proxy first in odd ones). Each client is a bare socket that
writes one pre-encoded request and reads until the chunked body's last chunk, so the client's
own cost per request is a few system calls: what is measured is the server side, not httpx's
Python. A stream that does not end in `response.completed` with the expected number of events
stops the bench. requests/s is all requests of a path over all its seconds.

Tap calls: `mcptui demo-server` (its `search` tool) direct and through `mcptui tap --no-tui`,
each behind one legacy-era session (initialize, then `tools/call search` one after another), in
blocks of `block` calls alternately (direct first in even blocks), with httpx2. calls/s is all
calls of a path over the seconds they took.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2

HOST = "127.0.0.1"
END = b"\r\n0\r\n\r\n"
"""How a chunked body ends (uvicorn's, the emulator's and the proxy's)."""


def raw_request(port: int, path: str, body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nhost: {HOST}:{port}\r\nauthorization: Bearer bench\r\n"
        f"content-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


@dataclass
class Load:
    """What the clients of one path did."""

    requests: int = 0
    events: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def _one(sock: socket.socket, request: bytes) -> tuple[bytes, int]:
    """Send one request on a kept-alive socket; its whole answer and its event count."""
    sock.sendall(request)
    parts: list[bytes] = []
    tail = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        parts.append(chunk)
        tail = (tail + chunk)[-len(END) :]
        if tail == END:
            answer = b"".join(parts)
            return answer, answer.count(b"\ndata:")


def _client(
    port: int,
    request: bytes,
    expect: int,
    ready: threading.Barrier,
    until: threading.Event,
    load: Load,
    lock: Any,
) -> None:
    with socket.create_connection((HOST, port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _one(sock, request)  # warm-up: the connection, not counted
        ready.wait()
        done = events = 0
        while not until.is_set():
            answer, count = _one(sock, request)
            if count != expect or b'"response.completed"' not in answer[-4096:]:
                with lock:
                    load.problems.append(f"{count} events (expected {expect}): {answer[:200]!r}")
                break
            done += 1
            events += count
    with lock:
        load.requests += done
        load.events += events


def concurrent(port: int, body: dict[str, Any], expect: int, clients: int, seconds: float) -> Load:
    """`clients` connections sending `body` to `port` for `seconds`; what they got done."""
    load = Load()
    lock = threading.Lock()
    until = threading.Event()
    ready = threading.Barrier(clients + 1, timeout=30.0)
    request = raw_request(port, "/v1/responses", body)
    threads = [
        threading.Thread(target=_client, args=(port, request, expect, ready, until, load, lock))
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    ready.wait()
    began = time.monotonic()
    time.sleep(seconds)
    until.set()
    for thread in threads:
        thread.join()
    load.seconds = time.monotonic() - began
    if load.problems:
        raise RuntimeError(f"port {port}: {load.problems[0]}")
    return load


# -- the tap -----------------------------------------------------------------------------------

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
VERSION = "2025-11-25"


class McpSession:
    """One legacy-era MCP session over httpx2: initialize, then calls."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx2.Client(timeout=httpx2.Timeout(30.0))
        self.next_id = 1
        answer = self.post(
            "initialize",
            {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcptui-bench", "version": "0"},
            },
        )
        session = answer.headers.get("mcp-session-id")
        self.headers = {**ACCEPT, "mcp-protocol-version": VERSION}
        if session:
            self.headers["mcp-session-id"] = session
        done = self.client.post(
            url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.headers,
        )
        if done.status_code >= 300:
            raise RuntimeError(f"{url}: initialized: HTTP {done.status_code}")

    def post(self, method: str, params: dict[str, Any]) -> httpx2.Response:
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        headers = getattr(self, "headers", ACCEPT)
        answer = self.client.post(self.url, json=message, headers=headers)
        if answer.status_code != 200 or f'"id":{message["id"]},"result"' not in answer.text:
            raise RuntimeError(
                f"{self.url}: {method}: HTTP {answer.status_code}: {answer.text[:300]}"
            )
        return answer

    def call(self) -> None:
        self.post("tools/call", {"name": "search", "arguments": {"query": "bench"}})

    def close(self) -> None:
        self.client.close()


def tap_rates(urls: dict[str, str], calls: int, block: int) -> dict[str, float]:
    """calls/s of `tools/call search` one after another, per path (`urls`: direct, tap)."""
    sessions = {path: McpSession(url) for path, url in urls.items()}
    try:
        for session in sessions.values():  # warm-up
            for _ in range(3):
                session.call()
        spent = dict.fromkeys(urls, 0.0)
        made = dict.fromkeys(urls, 0)
        number = 0
        while min(made.values()) < calls:
            order = list(urls) if number % 2 == 0 else list(reversed(urls))
            for path in order:
                count = min(block, calls - made[path])
                began = time.monotonic()
                for _ in range(count):
                    sessions[path].call()
                spent[path] += time.monotonic() - began
                made[path] += count
            number += 1
        return {path: made[path] / spent[path] for path in urls}
    finally:
        for session in sessions.values():
            session.close()
