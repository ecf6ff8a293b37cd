"""`mcptui ARGS` as its own process, forked from a server that has already imported mcptui.

A fresh `python -m mcptui` spends ~1.5 s of CPU before the command starts (the interpreter,
mcptui, and the openai SDK's ~300 type modules), more than most commands a test runs take.
Here one server process imports every mcptui module once; each command is a `fork()` of it: a
process of its own (its own pid, working directory, environment, stdin from /dev/null, stdout
and stderr to files, exit code from `main`), as `python -m mcptui` would run it, without
paying the imports again. The server itself never runs a command, so every child starts from
the same pristine state.

One server for the whole run: tests/conftest.py starts it in the controller (`start_shared`)
and every xdist worker sends its requests there (`MCPTUI_FORK_SERVER`: a Unix socket). A
server per worker warmed itself four times over, ~4 s of CPU each while the workers were
collecting (a fifth of the suite's fixed start cost). A process without the variable (pytest
-n 0, a script) starts a server of its own on first use. Each request is served by a waiter,
a fork of the server that forks the command and reports its pid, then its exit code and
peak RSS, through the request's FIFO: the server is free for the next request at once.

What a fork cannot show (the console script, `python -m` itself, a module that reads the
environment at import) stays with the tests that start the real process (tests/e2e/
test_install.py, test_inspect_cli.py's `python -m mcptui` cases, test_run_cli.py's).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ADDRESS = "MCPTUI_FORK_SERVER"
"""The environment variable naming the shared server's socket (set by `start_shared`)."""
SHARED_PID = ADDRESS + "_PID"
READY_TIMEOUT = 180.0
"""Seconds a request may wait for the server to warm (more on a loaded machine); no command's
timeout counts it."""

_SERVER: subprocess.Popen[bytes] | None = None
"""This process's own server, if it started one."""
_SOCKET = ""
_LOCK = threading.Lock()


def _launch() -> tuple[subprocess.Popen[bytes], str]:
    """Start a server listening on a new socket; it exits when its stdin (a pipe from the
    process that started it) closes, so it never outlives that process."""
    path = os.path.join(tempfile.mkdtemp(prefix="mcptui-fork-"), "sock")
    server = subprocess.Popen(
        [sys.executable, __file__, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert server.stdout is not None
    listening = server.stdout.readline()  # bound and listening: requests queue while it warms
    assert listening == b"listening\n", f"the fork server did not start: {listening!r}"
    return server, path


def start_shared() -> Callable[[], None]:
    """Start the run's one server and point this process and its children (the xdist workers)
    at it; returns what stops it."""
    server, path = _launch()
    os.environ[ADDRESS] = path
    os.environ[SHARED_PID] = str(server.pid)
    return lambda: _stop(server)


def server_pid() -> int | None:
    """The pid of this process's own server (None when it uses the shared one)."""
    return _SERVER.pid if _SERVER is not None and _SERVER.poll() is None else None


def shared_server_pid() -> int | None:
    """The pid of the run's shared server, if `start_shared` started one here or above."""
    found = os.environ.get(SHARED_PID)
    return int(found) if found else None


def _address() -> str:
    """The socket to send requests to: the shared server's, else this process's own."""
    global _SERVER, _SOCKET
    shared = os.environ.get(ADDRESS)
    if shared:
        return shared
    with _LOCK:
        if _SERVER is None or _SERVER.poll() is not None:
            _SERVER, _SOCKET = _launch()
            atexit.register(_stop, _SERVER)
    return _SOCKET


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def forked_cli(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    stdin: bytes | None = None,
    memory: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` in `cwd` with exactly `env` (None: this process's), as
    subprocess.run(capture_output=True, text=True, stdin=DEVNULL or `stdin`'s bytes) would
    give it, but undecodable output replaced rather than raised; TimeoutExpired (the child
    killed) past `timeout` seconds. `memory`: see `forked_run`."""
    return _text(forked_cli_bytes(args, cwd, env, timeout, stdin=stdin, memory=memory))


def _text(done: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[str]:
    """Output as text, undecodable bytes replaced."""
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
    )


def real_cli_bytes(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`python -m mcptui ARGS` as a fresh process, stdin from /dev/null: for what a fork cannot
    show (`__main__` itself, a limit set before the interpreter starts, an interpreter's own
    exit); TimeoutExpired past `timeout` seconds."""
    return subprocess.run(
        [sys.executable, "-m", "mcptui", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        preexec_fn=preexec_fn,
        check=False,
    )


def real_cli(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`real_cli_bytes`, its output as text as `forked_cli` gives it."""
    return _text(real_cli_bytes(args, cwd, env, timeout, preexec_fn=preexec_fn))


def forked_cli_bytes(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    stdin: bytes | None = None,
    memory: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`forked_cli` with stdout and stderr as the bytes written."""
    done = forked_run(args, cwd, env, timeout, stdin=stdin, memory=memory)
    if done.timed_out:
        raise subprocess.TimeoutExpired(done.args, timeout, done.stdout, done.stderr)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, done.stderr)


@dataclass
class Forked:
    """What one forked command did."""

    args: list[str]
    returncode: int
    """As subprocess reports it: the exit code, or minus the signal that ended the child."""
    stdout: bytes
    stderr: bytes
    max_rss_kb: int
    """Peak resident set of the child and the children it reaped (wait4's ru_maxrss). A fork
    starts holding the server's resident pages, as a fresh process holds its imports."""
    timed_out: bool
    """Killed past the timeout (returncode -9)."""


def forked_run(
    args: list[str | bytes],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    stdin: bytes | None = None,
    memory: int | None = None,
) -> Forked:
    """`forked_cli_bytes` that reports a timeout (the child killed) instead of raising, and
    the child's peak RSS. An argument given as bytes is passed as Python passes a command
    line's bytes (os.fsdecode).

    `memory`: a runaway guard. The child may map `memory` bytes of address space beyond what it
    holds at the fork (RLIMIT_AS: a fork inherits the server's address space, so a cap as
    `preexec_fn` sets it for a fresh process would count the server's imports), writes no core,
    and leads a session of its own: what it leaves running (a reading helper) is killed when it
    ends, and with it at the timeout."""
    argv = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    process = ForkedProcess(argv, cwd, env, stdin=stdin, memory=memory)
    timed_out = process.finish(timeout)
    out, err = process.output()
    return Forked(["mcptui", *argv], process.wait(), out, err, process.max_rss_kb, timed_out)


class ForkedProcess:
    """`mcptui ARGS` forked as `forked_cli` forks it, but not waited for: what a
    subprocess.Popen of `python -m mcptui ARGS` gives a test that acts while it runs (signals
    it, kills a server under it, runs other commands meanwhile). Several can run at once: the
    server hands each to a waiter of its own (a fork of the server that forks the command and
    reports its pid and exit code through a FIFO), so it is free for the next request at once."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        *,
        stdin: bytes | None = None,
        memory: int | None = None,
    ) -> None:
        self.args = ["mcptui", *(str(a) for a in args)]
        self.returncode: int | None = None
        self._own_session = memory is not None
        """A capped command leads a session of its own (see forked_run)."""
        self.max_rss_kb = 0
        """Peak RSS of the command (see Forked), once it has ended."""
        self._folder = tempfile.TemporaryDirectory()
        request = _request([str(a) for a in args], cwd, env, stdin, self._folder.name)
        request["memory"] = memory
        self._out, self._err = Path(request["out"]), Path(request["err"])
        status = Path(self._folder.name, "status")
        os.mkfifo(status)
        self._status = os.open(status, os.O_RDONLY | os.O_NONBLOCK)
        self._buffer = b""
        request["status"] = str(status)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.connect(_address())
            channel.sendall(json.dumps(request).encode() + b"\n")
        line = self._line(READY_TIMEOUT)
        assert line is not None, "the fork server did not start the command"
        self.pid = int(line)

    def _line(self, timeout: float | None) -> str | None:
        """The waiter's next line; None if none came within `timeout` seconds."""
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self._status], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._status, 4096)
            if not chunk:
                raise RuntimeError(f"the waiter of {self.args} ended without its exit code")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def poll(self) -> int | None:
        if self.returncode is None:
            line = self._line(0)
            if line is not None:
                self._finish(line)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit code; TimeoutExpired past `timeout` seconds (the command left running)."""
        if self.returncode is None:
            line = self._line(timeout)
            if line is None:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            self._finish(line)
        assert self.returncode is not None
        return self.returncode

    def _finish(self, line: str) -> None:
        """The waiter's last line: the exit code (as subprocess gives it) and peak RSS."""
        code, rss = line.split()
        self.returncode, self.max_rss_kb = int(code), int(rss)
        os.close(self._status)

    def output(self) -> tuple[bytes, bytes]:
        """What the command wrote to stdout and stderr (once it has ended); the files go."""
        try:
            return self._out.read_bytes(), self._err.read_bytes()
        finally:
            self._folder.cleanup()

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(9)

    def finish(self, timeout: float | None) -> bool:
        """Wait for the command; past `timeout` seconds kill it (with what it started, when it
        leads a session) and say so."""
        try:
            self.wait(timeout)
        except subprocess.TimeoutExpired:
            if self._own_session:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.pid, signal.SIGKILL)  # the child and what it started
            self.kill()  # the child, if it had no session of its own yet
            self.wait()
            return True
        return False

    def communicate(self, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        """Wait (killing the command past `timeout`, as forked_cli does), then what it wrote,
        as forked_cli returns it."""
        if self.finish(timeout):
            self._folder.cleanup()
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return _text(subprocess.CompletedProcess(self.args, self.wait(), *self.output()))


def _request(
    argv: list[str], cwd: Path, env: dict[str, str] | None, stdin: bytes | None, folder: str
) -> dict[str, Any]:
    """What the server needs to fork one command: its argv, folder and environment, and the
    files in `folder` its stdin (or /dev/null), stdout and stderr are."""
    given = os.devnull
    if stdin is not None:
        given = str(Path(folder, "in"))
        Path(given).write_bytes(stdin)
    return {
        "argv": argv,
        "cwd": str(cwd),
        "env": dict(os.environ if env is None else env),
        "in": given,
        "out": str(Path(folder, "out")),
        "err": str(Path(folder, "err")),
    }


def forked_popen(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    *,
    stdin: bytes | None = None,
) -> ForkedProcess:
    """`mcptui ARGS` started as forked_cli starts it, not waited for (see ForkedProcess)."""
    return ForkedProcess(args, cwd, env, stdin=stdin)


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become `python -m mcptui ARGV` and exit with its code."""
    code = 1
    try:
        if request.get("memory") is not None:
            os.setsid()
            held = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            cap = held + int(request["memory"])
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, path, flags in (
            (0, request["in"], os.O_RDONLY),
            (1, request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(str(path), flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        import mcptui.__main__ as main_module
        from mcptui.cli.main import main

        sys.modules["__main__"] = main_module  # a spawned child re-imports this, as with -m
        argv = [str(a) for a in request["argv"]]
        sys.argv = [str(main_module.__file__), *argv]
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _warm() -> None:
    """Import every module of mcptui and build the openai SDK's event validators once, so that
    no child pays for them (~1.5 s of CPU a command, most of it the SDK's pydantic models)."""
    import importlib
    import pkgutil

    import mcptui
    from mcptui.model.sdktypes import event_models
    from pydantic import ValidationError

    for module in pkgutil.walk_packages(mcptui.__path__, "mcptui."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    for model in set(event_models().values()):
        with contextlib.suppress(ValidationError):
            model.model_validate({}, strict=True)  # builds the model's deferred validator


def _waiter(request: dict[str, Any]) -> None:
    """In a fork of the server: fork the command, write its pid, then its exit code and peak
    RSS, to the request's FIFO, and exit (the server reaps this process, so every CPU second
    is counted in the server's children)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(null, fd)  # the server's pipes stay the server's
        status = os.open(str(request["status"]), os.O_WRONLY)
        pid = os.fork()
        if pid == 0:
            os.close(status)
            _child(request)
        os.write(status, f"{pid}\n".encode())
        _, code, usage = os.wait4(pid, 0)
        if request.get("memory") is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # what the command left running goes with it
        os.write(status, f"{os.waitstatus_to_exitcode(code)} {usage.ru_maxrss}\n".encode())
    finally:
        os._exit(0)


def _reap_waiters() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _serve(path: str) -> None:
    """Listen on `path` (said on stdout at once: requests queue while it warms), warm, then
    hand each request (one JSON line a connection) to a waiter; end when stdin closes."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    print("listening", flush=True)
    import mcptui.__main__  # noqa: F401

    _warm()
    try:
        while True:
            ready, _, _ = select.select([listener, sys.stdin], [], [])
            if sys.stdin in ready and not os.read(sys.stdin.fileno(), 4096):
                break  # whoever started the server is gone
            if listener in ready:
                connection, _ = listener.accept()
                with connection, connection.makefile("rb") as lines:
                    line = lines.readline()
                _reap_waiters()
                if line and os.fork() == 0:
                    listener.close()
                    _waiter(json.loads(line))
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
            os.rmdir(os.path.dirname(path))
        _reap_waiters()


if __name__ == "__main__":
    _serve(sys.argv[1])
