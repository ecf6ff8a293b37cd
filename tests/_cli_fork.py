"""`mcptui ARGS` as its own process, forked from a server that has already imported mcptui.

A fresh `python -m mcptui` spends ~1.5 s of CPU before the command starts (the interpreter,
mcptui, and the openai SDK's ~300 type modules), more than most commands a test runs take.
Here one server process per pytest worker imports `mcptui.cli.main` once; each command is a
`fork()` of it: a process of its own (its own pid, working directory, environment, stdin
from /dev/null, stdout and stderr to files, exit code from `main`), as `python -m mcptui`
would run it, without paying the imports again. The server itself never runs a command, so
every child starts from the same pristine state.

What a fork cannot show (the console script, `python -m` itself, a module that reads the
environment at import) stays with the tests that start the real process (tests/e2e/
test_install.py, test_inspect_cli.py's `python -m mcptui` cases, test_run_cli.py's).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

_SERVER: subprocess.Popen[str] | None = None
_LOCK = threading.Lock()


def _server() -> subprocess.Popen[str]:
    global _SERVER
    if _SERVER is None or _SERVER.poll() is not None:
        _SERVER = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        atexit.register(_stop, _SERVER)
    return _SERVER


def _stop(server: subprocess.Popen[str]) -> None:
    if server.poll() is None:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


def forked_cli(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    stdin: bytes | None = None,
    more_address_space: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` in `cwd` with exactly `env` (None: this process's), as
    subprocess.run(capture_output=True, text=True, stdin=DEVNULL or `stdin`'s bytes) would
    give it, but undecodable output replaced rather than raised; TimeoutExpired (the child
    killed) past `timeout` seconds. `more_address_space`: the child's RLIMIT_AS is the address
    space it holds when it starts (the server's, every module imported) plus this many bytes."""
    done = forked_cli_bytes(
        args, cwd, env, timeout, stdin=stdin, more_address_space=more_address_space
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
    )


def forked_cli_bytes(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    *,
    stdin: bytes | None = None,
    more_address_space: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`forked_cli` with stdout and stderr as the bytes written."""
    with _LOCK, tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder, "out"), Path(folder, "err")
        given = os.devnull
        if stdin is not None:
            given = str(Path(folder, "in"))
            Path(given).write_bytes(stdin)
        server = _server()
        assert server.stdin is not None and server.stdout is not None
        request = {
            "argv": [str(a) for a in args],
            "cwd": str(cwd),
            "env": dict(os.environ if env is None else env),
            "in": given,
            "out": str(out),
            "err": str(err),
            "more_address_space": more_address_space,
        }
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        pid = int(server.stdout.readline())
        ready, _, _ = select.select([server.stdout], [], [], timeout)
        if not ready:
            os.kill(pid, 9)
            server.stdout.readline()
            raise subprocess.TimeoutExpired(["mcptui", *args], timeout)
        code = int(server.stdout.readline())
        return subprocess.CompletedProcess(
            ["mcptui", *args], code, out.read_bytes(), err.read_bytes()
        )


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become `python -m mcptui ARGV` and exit with its code."""
    code = 1
    try:
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
        if request.get("more_address_space") is not None:
            import resource

            status = Path("/proc/self/status").read_text()
            (held,) = [
                int(line.split()[1]) << 10
                for line in status.splitlines()
                if line.startswith("VmSize:")
            ]
            cap = held + int(request["more_address_space"])
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
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


def _serve() -> None:
    """Read one JSON request a line; answer the child's pid, then its exit code."""
    import mcptui.__main__  # noqa: F401

    _warm()

    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


if __name__ == "__main__":
    _serve()
