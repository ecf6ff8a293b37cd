"""Run `mcptui …` inside the test process: the same `main(argv)` the console script calls, with
its working folder, environment, stdin, stdout and stderr as a child process would have them.

Why: each `python -m mcptui` child costs an interpreter start and the package's imports (0.5-1 s
of CPU) before it does anything; the suite ran a few hundred of them and was CPU-bound on two
cores. Tests of what a command *does* with its input (what it prints, what files it writes, its
exit code) run here; the tests of what only a real process shows (the console script, signals,
a terminal, pipes closed early, a crash's log) keep `subprocess`.

What differs from a child: nothing is isolated between calls but what the product keeps in
module state (caches of type shapes, nothing a later command's output could depend on), and
output written to file descriptors 1 and 2 directly, not through `sys.stdout`/`sys.stderr`, is
not captured (mcptui writes through the `sys` streams).
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

_LOCK = threading.Lock()
"""The working folder, the environment and the `sys` streams are the process's: one call at a
time."""


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream over bytes, strict UTF-8 like a child's pipe (so `safe_streams` applies
    the same `backslashreplace`), with a `.buffer` for binary output; no terminal."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict", newline=None)


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _read(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue()


def run_in_process(
    args: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    stdin: bytes = b"",
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` run in `cwd` with `env` (None: this process's); its exit code, stdout and
    stderr as `subprocess.run(..., capture_output=True, text=True)` would give them."""
    done = run_in_process_bytes(args, cwd, env, stdin=stdin)
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", errors="replace").replace("\r\n", "\n"),
        done.stderr.decode("utf-8", errors="replace").replace("\r\n", "\n"),
    )


def run_in_process_bytes(
    args: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    stdin: bytes = b"",
) -> subprocess.CompletedProcess[bytes]:
    """`run_in_process`, stdout and stderr as the bytes written. From inside a running event
    loop (an async test) the command runs on a thread of its own, as `asyncio.run` must."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        in_loop = False  # (not run here: this exception would be every error's __context__)
    else:
        in_loop = True
    if not in_loop:
        return _run(args, cwd, env, stdin)
    result: list[subprocess.CompletedProcess[bytes]] = []
    thread = threading.Thread(target=lambda: result.append(_run(args, cwd, env, stdin)))
    thread.start()
    thread.join()
    assert result, "the command's thread raised (its traceback is above)"
    return result[0]


def _run(
    args: Sequence[str], cwd: Path, env: Mapping[str, str] | None, stdin: bytes
) -> subprocess.CompletedProcess[bytes]:
    from mcptui.cli.main import main

    with _LOCK, _environment(env):
        saved = sys.stdin, sys.stdout, sys.stderr, Path.cwd()
        out, err = _stream(), _stream()
        sys.stdin, sys.stdout, sys.stderr = _stream(stdin), out, err
        os.chdir(cwd)
        try:
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse's refusals and --help
                code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved[:3]
            os.chdir(saved[3])
    return subprocess.CompletedProcess(
        ["mcptui", *args], code if isinstance(code, int) else 0, _read(out), _read(err)
    )
