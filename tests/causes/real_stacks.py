"""Real MCP servers from the SDKs people deploy, started as processes on 127.0.0.1.

Each stack (`STACKS`) serves the same deliberately failing tools over streamable HTTP at /mcp,
as far as the stack can express them (the contract, and what reaches the wire for each stack
and tool, is in tests/causes/stacks/README.md):

- `echo(text)`: a normal text result;
- `broken_schema(query)`: declares an outputSchema, returns no structuredContent;
- `wrong_type(query)`: declares `{"count": number}`, returns structuredContent `{"count": "three"}`;
- `bad_content(query)`: returns a content block `{"type": "json", ...}`;
- `slow(seconds)`: sleeps that long, then answers;
- `fails(message)`: raises inside the tool;
- `crash(query)` (MCPServer, the TypeScript McpServer): a middleware of the server's own breaks
  on its request, so the server answers HTTP 500.

    with start("py_mcpserver") as server:
        ...  # server.url is http://127.0.0.1:PORT/mcp
        server.kill()     # SIGKILL, returns once the port is closed
        server.restart()  # the same stack on the same port, returns once it answers

`start_all(names)` starts several at once; `SharedStacks` keeps them running for whoever
needs them next (tests/causes/conftest.py: one per pytest worker, for the session). The
Python stacks run on this interpreter (the project's venv: `mcp`, `fastmcp`); the TypeScript
ones on node with the packages of tests/package.json (`npm ci` in tests/). stacks/README.md has
how each is served, how long it takes to start, and the matrix of what each answers
(stacks/probe.py regenerates it).
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _ports import free_port

HERE = Path(__file__).resolve().parent
STACKS_DIR = HERE / "stacks"
TESTS_DIR = HERE.parent
NODE_MODULES = TESTS_DIR / "node_modules"

LEGACY = "2025-11-25"
MODERN = "2026-07-28"

CONTRACT: tuple[str, ...] = (
    "echo",
    "broken_schema",
    "wrong_type",
    "bad_content",
    "slow",
    "fails",
    "crash",
)
"""The contract tools, by the name the contract gives them."""
ARGUMENT = {
    "echo": "text",
    "broken_schema": "query",
    "wrong_type": "query",
    "crash": "query",
    "bad_content": "query",
    "slow": "seconds",
    "fails": "message",
}
"""Each contract tool's one argument."""

READY_TIMEOUT = 20.0
"""How long a server may take to answer on its port before start() gives up."""


@dataclass(frozen=True)
class Stack:
    name: str
    language: str
    """"python" or "typescript"."""
    label: str
    """Who serves it, for people: "mcp 2.3 MCPServer", "TypeScript SDK 1.32 McpServer", ..."""
    tools: dict[str, str]
    """The contract tools this stack has: contract name -> the server's tool name."""
    revisions: tuple[str, ...]
    """The protocol revisions it serves (probed: see stacks/README.md)."""
    sessions: bool
    """Whether its 2025-era serving hands out an Mcp-Session-Id (stateful) or not."""
    command: tuple[str, ...]
    """argv; "{port}" is replaced, "{python}" is this interpreter, "{node}" is node."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment; "{port}" is replaced."""
    arguments: dict[str, str] = field(default_factory=dict)
    """Argument names that differ from the contract's (contract tool -> the server's name)."""
    needs: tuple[str, ...] = ()
    """What must be installed: "node:<package>" (in tests/node_modules) or "py:<module>"."""

    @property
    def modern(self) -> bool:
        return MODERN in self.revisions

    def call(self, tool: str, value: Any) -> tuple[str, dict[str, Any]]:
        """The server's tool name and arguments for a contract tool called with one value."""
        return self.tools[tool], {self.arguments.get(tool, ARGUMENT[tool]): value}


def _py(script: str) -> tuple[str, ...]:
    return ("{python}", str(STACKS_DIR / script), "--port", "{port}")


def _node(script: str) -> tuple[str, ...]:
    return ("{node}", str(STACKS_DIR / script), "--port", "{port}")


_ALL = {tool: tool for tool in CONTRACT if tool != "crash"}
_CRASHING = {tool: tool for tool in CONTRACT}
"""`crash(query)`: a tool whose request a middleware of the server's own (logging, auth) breaks
on, so the server answers HTTP 500 instead of JSON-RPC: on two stacks, one per language."""

STACKS: dict[str, Stack] = {
    stack.name: stack
    for stack in (
        Stack(
            "py_mcpserver",
            "python",
            "mcp 2.3 MCPServer",
            _CRASHING,
            (LEGACY, MODERN),
            True,
            _py("py_mcpserver.py"),
            needs=("py:mcp",),
        ),
        Stack(
            "py_lowlevel",
            "python",
            "mcp 2.3 low-level Server",
            _ALL,
            (LEGACY, MODERN),
            True,
            _py("py_lowlevel.py"),
            needs=("py:mcp",),
        ),
        Stack(
            "py_fastmcp",
            "python",
            "fastmcp 4.x FastMCP",
            _ALL,
            (LEGACY, MODERN),
            True,
            _py("py_fastmcp.py"),
            needs=("py:fastmcp",),
        ),
        Stack(
            "ts_mcpserver",
            "typescript",
            "TypeScript SDK 1.32 McpServer",
            _CRASHING,
            (LEGACY,),
            True,
            _node("ts_mcpserver.mjs"),
            needs=("node:@modelcontextprotocol/sdk", "node:zod"),
        ),
        Stack(
            "ts_lowlevel",
            "typescript",
            "TypeScript SDK 1.32 low-level Server",
            _ALL,
            (LEGACY,),
            True,
            _node("ts_lowlevel.mjs"),
            needs=("node:@modelcontextprotocol/sdk",),
        ),
        Stack(
            "ts_v2",
            "typescript",
            "TypeScript SDK 2.4 McpServer (createMcpHandler)",
            _ALL,
            (LEGACY, MODERN),
            False,
            _node("ts_v2.mjs"),
            needs=(
                "node:@modelcontextprotocol/server",
                "node:@modelcontextprotocol/node",
                "node:zod",
            ),
        ),
        Stack(
            "everything",
            "typescript",
            "server-everything 2026.8.31 (TypeScript SDK 1.32)",
            {"echo": "echo", "slow": "trigger-long-running-operation"},
            (LEGACY,),
            True,
            (
                "{node}",
                "--import",
                str(STACKS_DIR / "loopback.mjs"),
                str(NODE_MODULES / "@modelcontextprotocol/server-everything/dist/index.js"),
                "streamableHttp",
            ),
            env={"PORT": "{port}"},
            arguments={"echo": "message", "slow": "duration"},
            needs=("node:@modelcontextprotocol/server-everything",),
        ),
    )
}


def available(name: str) -> str | None:
    """None when the stack can run here, else why not (and what to do about it)."""
    stack = STACKS[name]
    for need in stack.needs:
        kind, _, what = need.partition(":")
        if kind == "py" and importlib.util.find_spec(what) is None:
            return f"the Python package {what!r} is missing: pip install -e '.[test]'"
        if kind == "node":
            if shutil.which("node") is None:
                return "node is not installed"
            if not (NODE_MODULES / what / "package.json").is_file():
                return f"{what} is not in tests/node_modules: run npm ci in tests/"
    return None


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _answers(port: int) -> bool:
    """Whether an HTTP POST to /mcp gets any HTTP answer (whatever its status)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request(
            "POST",
            "/mcp",
            body=b'{"jsonrpc":"2.0","id":0,"method":"ping"}',
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        conn.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        conn.close()


class Running:
    """One started stack: its process, its port, its log (stdout and stderr together)."""

    def __init__(self, stack: Stack, port: int) -> None:
        self.stack = stack
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready_seconds = 0.0
        """How long the last (re)start took until the server answered."""
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by start())
        self._started = 0.0

    def _argv(self) -> list[str]:
        node = shutil.which("node") or "node"
        subst = {"{port}": str(self.port), "{python}": sys.executable, "{node}": node}
        return [subst.get(arg, arg) for arg in self.stack.command]

    def _launch(self) -> None:
        env = {
            **os.environ,
            **{k: v.replace("{port}", str(self.port)) for k, v in self.stack.env.items()},
        }
        env["PYTHONUNBUFFERED"] = "1"
        self._started = time.monotonic()
        self.proc = subprocess.Popen(
            self._argv(),
            cwd=TESTS_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            start_new_session=True,
        )

    def _wait_ready(self) -> None:
        assert self.proc is not None
        deadline = self._started + READY_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.stack.name} exited with {self.proc.returncode} "
                    f"before it answered on port {self.port}:\n{self.log()}"
                )
            if _port_open(self.port) and _answers(self.port):
                break
            if time.monotonic() > deadline:
                self._signal(signal.SIGKILL)
                raise RuntimeError(
                    f"{self.stack.name} did not answer on port {self.port} "
                    f"within {READY_TIMEOUT:.0f} s:\n{self.log()}"
                )
            time.sleep(0.02)
        self.ready_seconds = time.monotonic() - self._started

    def _spawn(self) -> None:
        self._launch()
        self._wait_ready()

    def log(self) -> str:
        """What the server wrote to stdout and stderr so far (all its (re)starts)."""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")

    def _signal(self, sig: int) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)  # its own session: node's children go too

    def _wait_closed(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while _port_open(self.port):
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"port {self.port} still open {timeout:.0f} s after {self.stack.name} ended"
                )
            time.sleep(0.02)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the server; returns once the process is gone and its port is closed."""
        if self.proc is None:
            return
        self._signal(signal.SIGKILL)
        self.proc.wait()
        self._wait_closed()

    def restart(self) -> None:
        """Start the stack again on the same port (killing it first if it still runs)."""
        self.kill()
        self._spawn()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 5 s; returns once the process is gone."""
        if self.proc is None:
            return
        self._signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.proc.wait()


@contextlib.contextmanager
def start(name: str, port: int | None = None) -> Iterator[Running]:
    """Start the stack `name` on 127.0.0.1 (on `port`, else a free one) and stop it after."""
    with start_all([name], {name: port} if port else None) as running:
        yield running[name]


@contextlib.contextmanager
def start_all(
    names: Iterable[str], ports: dict[str, int] | None = None
) -> Iterator[dict[str, Running]]:
    """Start several stacks at once (all launched, then each waited for); stop them all after."""
    names = list(names)
    for name in names:
        reason = available(name)
        if reason is not None:
            raise RuntimeError(f"stack {name} cannot run here: {reason}")
    ports = ports or {}
    running = {name: Running(STACKS[name], ports.get(name) or free_port()) for name in names}
    try:
        for server in running.values():
            server._launch()
        for server in running.values():
            server._wait_ready()
        yield running
    finally:
        for server in running.values():
            server._signal(signal.SIGTERM)
        for server in running.values():
            server.stop()
            server._log.close()


class SharedStacks:
    """Stacks started on first need and kept running until `close()`: for tests that leave a
    server as they found it (restarted on its port if they killed it), so that each stack is
    started once, not once per module or scenario."""

    def __init__(self) -> None:
        self.running: dict[str, Running] = {}
        self._stops = contextlib.ExitStack()

    def ensure(self, names: Iterable[str]) -> dict[str, Running]:
        """The running server of each stack of `names` (those not running yet started at
        once; one that a test killed and did not restart, restarted)."""
        names = list(names)
        missing = [name for name in names if name not in self.running]
        if missing:
            self.running.update(self._stops.enter_context(start_all(missing)))
        for name in names:
            if not self.running[name].alive:
                self.running[name].restart()
        return {name: self.running[name] for name in names}

    def close(self) -> None:
        self._stops.close()
        self.running.clear()
