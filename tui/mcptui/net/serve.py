"""Run an ASGI app with uvicorn on a loopback port: in the foreground, or in a background thread.

`mcptui emulate` and `mcptui demo-server` serve in the foreground. `mcptui demo` and the tests
need servers beside something else (the TUI, a test), so `ServerThread` runs uvicorn on its own
event loop in a daemon thread. The socket is bound before the thread starts, so the port is
known at once (port 0 picks a free one) and there is no race between choosing and binding.
"""

from __future__ import annotations

import errno
import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

DEFAULT_HOST = "127.0.0.1"


class PortUnavailable(OSError):
    """The port cannot be listened on; the message says what to do instead."""


def bind(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening TCP socket on host:port (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio then sets TCP_NODELAY on each connection; without it a small
    # write waits ~40 ms for the peer's delayed ACK (Nagle), on every first byte.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise PortUnavailable(exc.errno, unavailable(host, port, exc)) from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def unavailable(host: str, port: int, exc: OSError) -> str:
    """One line for a port that could not be bound, with the way out."""
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use: pass --port, or --port 0 for a free one"
    if exc.errno == errno.EACCES:
        return f"port {port} needs privileges: pass --port above 1023, or --port 0 for a free one"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def make_server(
    app: Any,
    *,
    log_level: str = "warning",
    access_log: bool = False,
    own_logging: bool = True,
    **options: Any,
) -> uvicorn.Server:
    """A uvicorn server; `own_logging=False` leaves logging to the caller (uvicorn's own
    config would attach handlers to the terminal's stderr, under a running TUI). `options`
    go to uvicorn's Config."""
    extra: dict[str, Any] = {} if own_logging else {"log_config": None}
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=access_log,
        lifespan="auto",
        timeout_graceful_shutdown=2,
        **extra,
        **options,
    )
    return uvicorn.Server(config)


def serve_forever(
    app: Any, host: str, port: int, *, banner: str = "", log_level: str = "info"
) -> None:
    """Serve until Ctrl+C (uvicorn handles the signals in the main thread)."""
    sock = bind(host, port)
    if banner:
        print(banner.format(url=base_url(sock)), flush=True)
    make_server(app, log_level=log_level, access_log=log_level == "debug").run(sockets=[sock])


class ServerThread:
    """uvicorn in a daemon thread; a context manager that waits for startup and shutdown."""

    def __init__(
        self,
        app: Any,
        host: str = DEFAULT_HOST,
        port: int = 0,
        log_level: str = "warning",
        own_logging: bool = True,
        **options: Any,
    ) -> None:
        self.socket = bind(host, port)
        self.url = base_url(self.socket)
        self.server = make_server(app, log_level=log_level, own_logging=own_logging, **options)
        self._thread = threading.Thread(target=self._run, name=f"uvicorn {self.url}", daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.socket])
        except BaseException as exc:  # reported by start(); a thread cannot raise to its caller
            self._error = exc

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self._thread.is_alive():
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"server at {self.url} did not start in {timeout:g} s")
            time.sleep(0.01)
        if not self.server.started:
            raise RuntimeError(f"server at {self.url} failed to start: {self._error!r}")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():  # a stuck connection: stop waiting for it
            self.server.force_exit = True
            self._thread.join(timeout)
        self.socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
