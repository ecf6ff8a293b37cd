"""A large request body through `mcptui proxy` and `mcptui tap` (their own processes): it
reaches the upstream whole, the relay never holds it whole, and the recording notes it
instead of keeping it (issue 35 V3: 100 MB took the tap to 1.08 GB, the proxy to 594 MB).

The memory bound is a runaway guard, not a target: the relay's peak RSS may grow by less than
the body's size (a relay that buffers holds it several times over); bench/relay_memory.py
measures the figure."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcptui.net.serve import ServerThread
from test_run_cli import cli_env

SIZE = 48 * 1024 * 1024
CHUNK = 1024 * 1024


async def sink(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An upstream that counts the body's bytes and keeps none of them."""
    if scope["type"] != "http":
        return
    received = 0
    while True:
        message = await receive()
        received += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps({"received": received}).encode()})


def large_body(head: bytes, tail: bytes) -> Iterator[bytes]:
    yield head
    left = SIZE - len(head) - len(tail)
    while left > 0:
        yield b"a" * min(CHUNK, left)
        left -= CHUNK
    yield tail


def memory(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    assert found, text
    return int(found.group(1)) * 1024


RELAYS = {
    "proxy": (
        ["proxy", "--record", "rec"],
        "/v1",
        "/v1/responses",
        b'{"model": "gpt-5-mini", "input": "',
        b'"}',
    ),
    "tap": (
        ["tap", "--record", "rec/tap.jsonl"],
        "/mcp",
        "/mcp",
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", '
        b'"arguments": {"q": "',
        b'"}}}',
    ),
}


@pytest.mark.parametrize("kind", RELAYS)
def test_a_large_body_is_streamed_through_and_noted_not_kept(tmp_path: Path, kind: str):
    args, upstream_path, path, head, tail = RELAYS[kind]
    with ServerThread(sink) as upstream:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcptui",
                *args,
                "--no-tui",
                "--port",
                "0",
                "--upstream",
                upstream.url + upstream_path,
            ],
            cwd=tmp_path,
            env=cli_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            address = re.search(r"http://127\.0\.0\.1:\d+", first)
            assert address, first + process.stderr.read()  # type: ignore[union-attr]
            headers = {
                "content-type": "application/json",
                "authorization": "Bearer k",
                "accept": "application/json, text/event-stream",
            }
            with httpx2.Client(timeout=120) as client:
                client.post(
                    address.group(0) + path,
                    content=b'{"model": "m", "input": "x"}',
                    headers=headers,
                )  # warm-up: the base is a relay that has relayed
                base = memory(process.pid, "VmRSS")
                answer = client.post(
                    address.group(0) + path, headers=headers, content=large_body(head, tail)
                )
            peak = memory(process.pid, "VmHWM")
        finally:
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=30)
    assert answer.json() == {"received": SIZE}  # the upstream got every byte
    assert peak - base < SIZE, f"{(peak - base) / 2**20:.0f} MB added for a 48 MB body"
    assert "Traceback" not in out + err, err
    recorded = "".join(path.read_text() for path in (tmp_path / "rec").glob("*.jsonl"))
    assert "relayed, not recorded" in recorded
    assert len(recorded) < 1024 * 1024  # a note of it, not the body
